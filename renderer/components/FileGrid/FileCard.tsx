import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import { Folder } from 'lucide-react';
import { formatBytes, formatFullDate } from '../../lib/format';
import { folderItems, type Row } from '../../lib/rows';
import { RowMenuButton } from '../FileTable/RowMenuButton';
import { rowInteractionProps, type RowEvents } from '../FileTable/rowEvents';
import { RowName, SharedLinkTag } from '../FileTable/RowParts';
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
        {row.shared ? <SharedLinkTag row={row} className="fg__shared" onShareClick={props.onShareClick} /> : null}
      </div>
      <div className="fg__caption">
        <div className="fg__text">
          <RowName row={row} editing={editing} className="fg__name" events={props} />
          <span className="fg__meta">
            {row.kind === 'folder' ? t('explorer:table.items', { count: folderItems(row.folder) }) : formatBytes(row.size)}
          </span>
        </div>
        <RowMenuButton row={row} className="fg__more" onRowMenu={props.onRowMenu} />
      </div>
    </div>
  );
});
