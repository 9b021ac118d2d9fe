import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { TrashItem } from '../../../shared/types';
import { ActionsHeader } from '../ActionsHeader/ActionsHeader';
import { TrashRow } from './TrashRow';

interface TrashTableProps {
  items: readonly TrashItem[];
  picked: ReadonlySet<string>;
  /** How many of `items` are picked, and whether that is all of them (the header's box). */
  pickedCount: number;
  allPicked: boolean;
  /** Something runs, or the list is being asked for again. */
  busy: boolean;
  fetching: boolean;
  onToggle(id: string): void;
  onToggleAll(): void;
  onRestore(item: TrashItem): void;
  onDelete(item: TrashItem): void;
  /** There is a next page (`trash.list` is paged), and whether it is on its way. */
  more: { loading: boolean; onLoad(): void } | null;
}

/** The columns after the name; their classes align them and hide some on a phone (TrashView.css). */
const COLUMNS: readonly { className: string; label: (t: TFunction) => string }[] = [
  { className: 'trash__from', label: (t) => t('trash:from') },
  { className: 'trash__num', label: (t) => t('trash:size') },
  { className: 'trash__when', label: (t) => t('trash:deletedAt') },
  { className: 'trash__left', label: (t) => t('trash:left') },
];

/** The deleted items as a table with a box to pick each one, and a button for the next page. */
export function TrashTable(props: TrashTableProps) {
  const { t } = useTranslation();
  const { items, picked, allPicked, busy } = props;
  return (
    <div className="list-scroll trash__scroll">
      <table className="list-table trash__table" aria-busy={busy || props.fetching}>
        <caption className="visually-hidden">{t('trash:caption')}</caption>
        <thead>
          <tr>
            <th scope="col" className="trash__check">
              <input
                type="checkbox"
                aria-label={t('trash:selectAll')}
                checked={allPicked}
                ref={(box) => {
                  if (box) box.indeterminate = props.pickedCount > 0 && !allPicked;
                }}
                onChange={props.onToggleAll}
              />
            </th>
            <th scope="col">{t('trash:name')}</th>
            {COLUMNS.map(({ className, label }) => (
              <th key={className} scope="col" className={className}>
                {label(t)}
              </th>
            ))}
            <ActionsHeader label={t('trash:actions')} />
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <TrashRow
              key={item.id}
              item={item}
              picked={picked.has(item.id)}
              busy={busy}
              onToggle={() => props.onToggle(item.id)}
              onRestore={() => props.onRestore(item)}
              onDelete={() => props.onDelete(item)}
            />
          ))}
        </tbody>
      </table>
      {props.more ? (
        <div className="trash__more">
          <button type="button" className="button" disabled={props.more.loading} onClick={props.more.onLoad}>
            {props.more.loading ? t('trash:loadingMore') : t('trash:loadMore')}
          </button>
        </div>
      ) : null}
    </div>
  );
}
