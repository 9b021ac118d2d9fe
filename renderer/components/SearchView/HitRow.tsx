import type { MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Folder } from 'lucide-react';
import type { SearchHit } from '../../../shared/types';
import { KIND_ICON, fileKind } from '../../lib/fileIcon';
import { formatBytes, formatFullDate, formatModified } from '../../lib/format';
import { fileRow } from '../../lib/rows';
import type { FileRowOf } from '../FileBrowser/fileActions';
import { RowMenuButton } from '../FileTable/RowMenuButton';
import { RowName } from '../FileTable/RowParts';
import type { RowEvents } from '../FileTable/rowEvents';
import { matchRange } from './highlight';

/**
 * A hit as the folder view's row, so the folder view's actions take it as they are. Its key
 * names its folder too: two folders may each hold a file of that name. The row's entry says
 * which folder the file is in, and every action acts there (lib/rows.ts, `folderOfRow`).
 */
export const hitRow = (hit: SearchHit): FileRowOf => ({ ...(fileRow(hit) as FileRowOf), key: `s:${hit.folder ?? ''}/${hit.name}` });

interface HitRowProps {
  row: FileRowOf;
  index: number;
  query: string;
  /** The one result Tab stops at (the list is one stop; arrows move within it). */
  tabbable: boolean;
  /** Being renamed in place: the name is the folder view's editor. */
  editing: boolean;
  events: Pick<RowEvents, 'onRenameCommit' | 'onRenameCancel'>;
  onFocus(): void;
  onPreview(): void;
  onOpenFolder(): void;
  /** The row's menu at a point of the viewport (right-click, the "⋯" button). */
  onMenu(position: { x: number; y: number }): void;
}

/** One search result: its name (previews it), its folder (opens it), size, date and "⋯". */
export function HitRow({ row, index, query, tabbable, editing, events, onFocus, onPreview, onOpenFolder, onMenu }: HitRowProps) {
  const { t } = useTranslation();
  const { file } = row;
  const Icon = KIND_ICON[fileKind(file.name, file.mimeType)];
  const onContextMenu = (event: MouseEvent) => {
    event.preventDefault();
    onMenu({ x: event.clientX, y: event.clientY });
  };
  return (
    <tr className="search__row" data-row={index} onDoubleClick={editing ? undefined : onPreview} onContextMenu={onContextMenu}>
      <th scope="row" className="search__name">
        {editing ? (
          <span className="search__open">
            <Icon size={16} aria-hidden="true" className="search__icon" />
            <RowName row={row} editing className="search__text" events={events} />
          </span>
        ) : (
          <button
            type="button"
            className="search__open"
            data-hit={index}
            tabIndex={tabbable ? 0 : -1}
            onFocus={onFocus}
            onClick={onPreview}
            title={t('search:previewNamed', { name: file.name })}
          >
            <Icon size={16} aria-hidden="true" className="search__icon" />
            <Marked name={file.name} query={query} />
          </button>
        )}
      </th>
      <td className="search__folder">
        <button
          type="button"
          className="link-button search__folder-link"
          tabIndex={tabbable ? 0 : -1}
          onFocus={onFocus}
          onClick={onOpenFolder}
          aria-label={file.folder === null ? t('search:openRoot') : t('search:openFolder', { folder: file.folder })}
        >
          <Folder size={14} aria-hidden="true" />
          <span>{file.folder ?? t('search:root')}</span>
        </button>
      </td>
      <td className="search__num">{formatBytes(file.size)}</td>
      <td className="search__when" title={formatFullDate(file.modifiedAt)}>
        {formatModified(file.modifiedAt)}
      </td>
      <td className="search__more">
        <RowMenuButton row={row} className="search__more-button" onRowMenu={(_, position) => onMenu(position)} />
      </td>
    </tr>
  );
}

/** The name with the part that matched the search marked. */
function Marked({ name, query }: { name: string; query: string }) {
  const range = matchRange(name, query);
  if (!range) return <span className="search__text">{name}</span>;
  const [start, stop] = range;
  return (
    <span className="search__text">
      {name.slice(0, start)}
      <mark className="search__mark">{name.slice(start, stop)}</mark>
      {name.slice(stop)}
    </span>
  );
}
