import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import { KIND_ICON, fileKind } from '../../lib/fileIcon';
import { formatBytes, formatFullDate, formatModified } from '../../lib/format';
import { folderItems, type Row } from '../../lib/rows';
import { RowMenuButton } from './RowMenuButton';
import { rowInteractionProps, type RowEvents } from './rowEvents';
import { RowName, SharedLinkTag } from './RowParts';

export interface FileRowProps extends RowEvents {
  row: Row;
  id: string;
  index: number;
  top: number;
  height: number;
  selected: boolean;
  active: boolean;
  editing: boolean;
  /** Set on the row being renamed: the table measures it, as the editor's message makes it taller. */
  measureRef?: (element: HTMLElement | null) => void;
}

/** One virtualised line of the file table. File names are rendered as text, never as HTML. */
export const FileRow = memo(function FileRow(props: FileRowProps) {
  const { t } = useTranslation();
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
      ref={props.measureRef}
      data-index={props.index}
      // While renamed, at least a row's height: the rename message below the field adds to it.
      style={{ transform: `translateY(${props.top}px)`, ...(editing ? { minHeight: props.height } : { height: props.height }) }}
      {...rowInteractionProps(row, editing, props)}
    >
      <div role="gridcell" className="ft__cell ft__cell--name">
        <Icon size={18} className={`ft__icon ft__icon--${kind}`} aria-hidden="true" />
        <RowName row={row} editing={editing} className="ft__name-text" events={props} />
      </div>
      <div role="gridcell" className="ft__cell ft__cell--size">
        {row.kind === 'folder' ? t('explorer:table.items', { count: folderItems(row.folder) }) : formatBytes(row.size)}
      </div>
      <div role="gridcell" className="ft__cell ft__cell--modified" title={formatFullDate(row.modifiedAt)}>
        {formatModified(row.modifiedAt)}
      </div>
      <div role="gridcell" className="ft__cell ft__cell--shared">
        {row.shared ? (
          <SharedLinkTag row={row} className="ft__shared" onShareClick={props.onShareClick}>
            {t('explorer:table.shared')}
          </SharedLinkTag>
        ) : null}
      </div>
      <div role="gridcell" className="ft__cell ft__cell--more">
        <RowMenuButton row={row} className="ft__more" onRowMenu={props.onRowMenu} />
      </div>
    </div>
  );
});
