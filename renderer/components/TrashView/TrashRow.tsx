import { useTranslation } from 'react-i18next';
import { Folder, RotateCcw, Trash2 } from 'lucide-react';
import type { TrashItem } from '../../../shared/types';
import { KIND_ICON, fileKind } from '../../lib/fileIcon';
import { formatBytes, formatFullDate, formatModified } from '../../lib/format';
import { useCanWrite } from '../Session/sessionContext';
import { daysLeft } from './trashDates';

interface TrashRowProps {
  item: TrashItem;
  picked: boolean;
  busy: boolean;
  onToggle(): void;
  onRestore(): void;
  onDelete(): void;
}

/** One deleted file or folder: where it was, its size, when it was deleted, the days it has left, and its own Restore and Delete. */
export function TrashRow({ item, picked, busy, onToggle, onRestore, onDelete }: TrashRowProps) {
  const { t } = useTranslation();
  // A read key sees what is in the trash, but would be refused putting it back or deleting it.
  const canWrite = useCanWrite();
  const Icon = item.kind === 'folder' ? Folder : KIND_ICON[fileKind(item.name)];
  const days = daysLeft(item.purgeAt);
  const left = days === null ? '—' : days === 0 ? t('trash:today') : t('trash:days', { count: days });
  const place = item.folder ?? t('trash:root');
  return (
    <tr className={picked ? 'is-selected' : undefined}>
      <td className="trash__check">
        <input type="checkbox" aria-label={t('trash:selectItem', { name: item.name })} checked={picked} onChange={onToggle} />
      </td>
      <th scope="row" className="trash__name">
        <span className="trash__name-inner">
          <Icon size={16} aria-hidden="true" className="trash__icon" />
          <span className="trash__name-lines">
            <span className="trash__name-text" title={item.name}>
              {item.name}
            </span>
            {item.kind === 'folder' ? <span className="trash__files">{t('trash:fileCount', { count: item.fileCount })}</span> : null}
            {/* On a phone the columns of place and time are hidden: they come under the name. */}
            <span className="trash__sub" aria-hidden="true">
              {place} · {left}
            </span>
          </span>
        </span>
      </th>
      <td className="trash__from">{place}</td>
      <td className="trash__num">{formatBytes(item.size)}</td>
      <td className="trash__when" title={formatFullDate(item.deletedAt)}>
        {formatModified(item.deletedAt)}
      </td>
      <td className="trash__left" title={formatFullDate(item.purgeAt)}>
        {left}
      </td>
      <td className="trash__actions">
        {canWrite ? (
          <>
            <button
              type="button"
              className="button"
              disabled={busy}
              aria-label={t('trash:restoreNamed', { name: item.name })}
              title={t('trash:restore')}
              onClick={onRestore}
            >
              <RotateCcw size={15} aria-hidden="true" />
              <span className="trash__label">{t('trash:restore')}</span>
            </button>
            <button
              type="button"
              className="button button--ghost"
              disabled={busy}
              aria-label={t('trash:deleteNamed', { name: item.name })}
              title={t('trash:deleteForGood')}
              onClick={onDelete}
            >
              <Trash2 size={15} aria-hidden="true" />
            </button>
          </>
        ) : null}
      </td>
    </tr>
  );
}
