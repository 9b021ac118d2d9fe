import { useTranslation } from 'react-i18next';
import { MoreHorizontal } from 'lucide-react';
import type { Row } from '../../lib/rows';
import { menuPositionOf, type RowEvents } from './rowEvents';

/** A row's or card's "⋯": its context menu for touch, out of the Tab order (the list has the keyboard). */
export function RowMenuButton({ row, className, onRowMenu }: { row: Row; className: string; onRowMenu: RowEvents['onRowMenu'] }) {
  const { t } = useTranslation();
  return (
    <button
      type="button"
      tabIndex={-1}
      className={`icon-button ${className}`}
      aria-label={t('explorer:menu.openFor', { name: row.name })}
      aria-haspopup="menu"
      onClick={(event) => {
        event.stopPropagation();
        onRowMenu(row, menuPositionOf(event.currentTarget));
      }}
      onDoubleClick={(event) => event.stopPropagation()}
    >
      <MoreHorizontal size={18} aria-hidden="true" />
    </button>
  );
}
