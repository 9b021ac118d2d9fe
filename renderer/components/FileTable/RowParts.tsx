import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link2 } from 'lucide-react';
import type { Row } from '../../lib/rows';
import { RenameEditor } from '../RenameEditor/RenameEditor';
import type { RowEvents } from './rowEvents';

interface RowNameProps {
  row: Row;
  editing: boolean;
  className: string;
  /** Where the editor reports the new name or that it was cancelled (the row's or card's own props). */
  events: Pick<RowEvents, 'onRenameCommit' | 'onRenameCancel'>;
}

/** A row's or card's name, as text (never HTML), or the inline editor while it is renamed. */
export function RowName({ row, editing, className, events }: RowNameProps) {
  return editing ? (
    <RenameEditor initial={row.name} onCommit={(name) => events.onRenameCommit(row, name)} onCancel={events.onRenameCancel} />
  ) : (
    <span className={className} title={row.name}>
      {row.name}
    </span>
  );
}

interface SharedLinkTagProps extends Pick<RowEvents, 'onShareClick'> {
  row: Row;
  className: string;
  children?: ReactNode;
}

/** The tag on a shared file that opens its link; out of the tab order, as the row has the keys. */
export function SharedLinkTag({ row, className, onShareClick, children }: SharedLinkTagProps) {
  const { t } = useTranslation();
  return (
    <button
      type="button"
      tabIndex={-1}
      className={`tag tag--accent ${className}`}
      aria-label={t('explorer:table.sharedLink', { name: row.name })}
      onClick={(event) => {
        event.stopPropagation();
        onShareClick(row);
      }}
    >
      <Link2 size={12} aria-hidden="true" />
      {children}
    </button>
  );
}
