import { useContext, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Inbox, Link2 } from 'lucide-react';
import type { Row } from '../../lib/rows';
import { RenameEditor } from '../RenameEditor/RenameEditor';
import { RenameRefusalContext } from '../RenameEditor/renameRefusal';
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
  const refusal = useContext(RenameRefusalContext);
  return editing ? (
    <RenameEditor
      initial={row.name}
      refusal={refusal}
      onCommit={(name) => events.onRenameCommit(row, name)}
      onCancel={events.onRenameCancel}
    />
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

/** What a folder's tag says, by the links it has: a folder link, an upload link, or both. */
function folderTagLabel(row: Extract<Row, { kind: 'folder' }>): 'sharedLink' | 'uploadLinkTag' | 'sharedWithUploadLink' {
  if (!row.links.upload) return 'sharedLink';
  return row.links.folder ? 'sharedWithUploadLink' : 'uploadLinkTag';
}

/**
 * The tag on a shared file, or on a folder with a folder link or an upload link (a link icon, an
 * inbox icon, or both), that opens its link; out of the tab order, as the row has the keys.
 */
export function SharedLinkTag({ row, className, onShareClick, children }: SharedLinkTagProps) {
  const { t } = useTranslation();
  const folder = row.kind === 'folder' ? row : null;
  const label = t(`explorer:table.${folder ? folderTagLabel(folder) : 'sharedLink'}`, { name: row.name });
  return (
    <button
      type="button"
      tabIndex={-1}
      className={`tag tag--accent ${className}`}
      aria-label={label}
      title={label}
      onClick={(event) => {
        event.stopPropagation();
        onShareClick(row);
      }}
    >
      {!folder || folder.links.folder ? <Link2 size={12} aria-hidden="true" /> : null}
      {folder?.links.upload ? <Inbox size={12} aria-hidden="true" /> : null}
      {children}
    </button>
  );
}
