import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import { Folder, Link2 } from 'lucide-react';
import { formatBytes, formatFullDate } from '../../lib/format';
import type { Row } from '../../lib/rows';
import { RenameEditor } from '../RenameEditor/RenameEditor';
import { RowMenuButton } from '../FileTable/RowMenuButton';
import { rowInteractionProps, type RowEvents } from '../FileTable/rowEvents';
import { Thumbnail } from './Thumbnail';

export interface FileCardProps extends RowEvents {
  username: string;
  row: Row;
  id: string;
  selected: boolean;
  active: boolean;
  editing: boolean;
}

/** One card of the grid view: picture, name, size; the same clicks, drags and menu as a list row. */
export const FileCard = memo(function FileCard(props: FileCardProps) {
  const { t } = useTranslation();
  const { row, selected, active, editing } = props;
  const className = ['fg__card', selected && 'is-selected', active && 'is-active'].filter(Boolean).join(' ');
  return (
    <div
      id={props.id}
      role="gridcell"
      aria-selected={selected}
      className={className}
      title={formatFullDate(row.modifiedAt)}
      {...rowInteractionProps(row, editing, props)}
    >
      <div className="fg__picture">
        {row.kind === 'folder' ? (
          <Folder size={48} strokeWidth={1.5} className="ft__icon fg__icon ft__icon--folder" aria-hidden="true" />
        ) : (
          <Thumbnail username={props.username} file={row.file} />
        )}
        {row.shared ? (
          <button
            type="button"
            tabIndex={-1}
            className="tag tag--accent fg__shared"
            aria-label={t('explorer:table.sharedLink', { name: row.name })}
            onClick={(event) => {
              event.stopPropagation();
              props.onShareClick(row);
            }}
          >
            <Link2 size={12} aria-hidden="true" />
          </button>
        ) : null}
      </div>
      <div className="fg__caption">
        <div className="fg__text">
          {editing ? (
            <RenameEditor initial={row.name} onCommit={(name) => props.onRenameCommit(row, name)} onCancel={props.onRenameCancel} />
          ) : (
            <span className="fg__name" title={row.name}>
              {row.name}
            </span>
          )}
          <span className="fg__meta">
            {row.kind === 'folder' ? t('explorer:table.items', { count: row.folder.fileCount }) : formatBytes(row.size)}
          </span>
        </div>
        <RowMenuButton row={row} className="fg__more" onRowMenu={props.onRowMenu} />
      </div>
    </div>
  );
});
