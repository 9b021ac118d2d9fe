import { memo, type MouseEvent } from 'react';
import { Link2 } from 'lucide-react';
import { KIND_ICON, fileKind } from '../../lib/fileIcon';
import { formatBytes, formatFullDate, formatModified, plural } from '../../lib/format';
import type { Row } from '../../lib/rows';
import { RenameEditor } from '../RenameEditor/RenameEditor';

export interface FileRowProps {
  row: Row;
  id: string;
  index: number;
  top: number;
  selected: boolean;
  active: boolean;
  editing: boolean;
  onRowClick: (row: Row, event: MouseEvent) => void;
  onRowDoubleClick: (row: Row, onName: boolean) => void;
  onShareClick: (row: Row) => void;
  onRenameCommit: (row: Row, name: string) => void;
  onRenameCancel: () => void;
}

/** One virtualised line of the file table. File names are rendered as text, never as HTML. */
export const FileRow = memo(function FileRow(props: FileRowProps) {
  const { row, selected, active, editing } = props;
  const kind = row.kind === 'folder' ? 'folder' : fileKind(row.name, row.file.mimeType);
  const Icon = KIND_ICON[kind];
  const className = ['ft__row', 'ft__row--body', selected && 'is-selected', active && 'is-active'].filter(Boolean).join(' ');
  return (
    <div
      id={props.id}
      role="row"
      aria-rowindex={props.index + 2}
      aria-selected={selected}
      className={className}
      style={{ transform: `translateY(${props.top}px)` }}
      onClick={(event) => props.onRowClick(row, event)}
      onDoubleClick={(event) => {
        const onName = (event.target as HTMLElement).closest('.ft__name-text') !== null;
        props.onRowDoubleClick(row, onName);
      }}
    >
      <div role="gridcell" className="ft__cell ft__cell--name">
        <Icon size={18} className={`ft__icon ft__icon--${kind}`} aria-hidden="true" />
        {editing ? (
          <RenameEditor initial={row.name} onCommit={(name) => props.onRenameCommit(row, name)} onCancel={props.onRenameCancel} />
        ) : (
          <span className="ft__name-text" title={row.name}>
            {row.name}
          </span>
        )}
      </div>
      <div role="gridcell" className="ft__cell ft__cell--size">
        {row.kind === 'folder' ? plural(row.folder.fileCount, 'item') : formatBytes(row.size)}
      </div>
      <div role="gridcell" className="ft__cell ft__cell--modified" title={formatFullDate(row.modifiedAt)}>
        {formatModified(row.modifiedAt)}
      </div>
      <div role="gridcell" className="ft__cell ft__cell--shared">
        {row.shared ? (
          <button
            type="button"
            tabIndex={-1}
            className="tag tag--accent ft__shared"
            aria-label={`Shared: show the link for ${row.name}`}
            onClick={(event) => {
              event.stopPropagation();
              props.onShareClick(row);
            }}
          >
            <Link2 size={12} aria-hidden="true" />
            Shared
          </button>
        ) : null}
      </div>
    </div>
  );
});
