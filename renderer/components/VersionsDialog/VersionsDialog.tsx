import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { History } from 'lucide-react';
import type { FileEntry, FileVersion } from '../../../shared/types';
import { errorMessage } from '../../api/client';
import { useFiles } from '../../hooks/queries';
import { formatDateTime, formatNumber } from '../../lib/format';
import { ConfirmDialog } from '../ConfirmDialog/ConfirmDialog';
import { Dialog } from '../Dialog/Dialog';
import { CurrentRow, VersionRow } from './VersionRow';
import { useRestoreVersion, useVersions } from './useVersions';
import './VersionsDialog.css';

/** The daemon's defaults, which the empty list names (NIMBUS_VERSIONS_KEEP and NIMBUS_VERSIONS_DAYS: docs/versions.md). */
export const DEFAULT_KEEP = 10;
export const DEFAULT_DAYS = 30;

interface VersionsDialogProps {
  username: string;
  /** The folder the file is in (null: the root). */
  folder: string | null;
  file: FileEntry;
  onClose: () => void;
}

/** The newest of the file's records: the listing follows events, a restore answers before its event comes. */
function newest(...files: (FileEntry | null | undefined)[]): FileEntry {
  const known = files.filter((file): file is FileEntry => !!file);
  return known.reduce((a, b) => (Date.parse(b.modifiedAt) > Date.parse(a.modifiedAt) ? b : a));
}

/**
 * A file's versions (docs/versions.md): the current content first, then what uploads replaced,
 * newest first, each to download or to restore (asked first: the current content is kept as a
 * version in turn).
 */
export function VersionsDialog({ username, folder, file, onClose }: VersionsDialogProps) {
  const { t } = useTranslation();
  const versions = useVersions(username, folder, file.name);
  const listing = useFiles(username, folder);
  const restore = useRestoreVersion(username, folder, file.name);
  const [restored, setRestored] = useState<FileEntry | null>(null);
  const [asking, setAsking] = useState<FileVersion | null>(null);
  const current = newest(
    file,
    listing.data?.find((entry) => entry.name === file.name),
    restored,
  );
  const list = versions.data ?? [];

  return (
    <Dialog
      title={t('versions:title', { name: file.name })}
      onClose={onClose}
      width={560}
      footer={
        <button type="button" className="button button--primary" onClick={onClose}>
          {t('common:done')}
        </button>
      }
    >
      {list.length > 0 ? <p className="versions__lead">{t('versions:lead')}</p> : null}
      <ul className="versions" aria-label={t('versions:list', { name: file.name })}>
        <CurrentRow file={current} />
        {list.map((version) => (
          <VersionRow
            key={version.id}
            username={username}
            folder={folder}
            file={file.name}
            version={version}
            onRestore={() => setAsking(version)}
          />
        ))}
      </ul>
      {versions.isPending ? (
        <p className="versions__note" role="status">
          {t('versions:loading')}
        </p>
      ) : versions.isError ? (
        <div className="versions__note versions__note--failed" role="alert">
          <p>
            {t('versions:failed')} {errorMessage(versions.error)}
          </p>
          <button type="button" className="button" onClick={() => void versions.refetch()}>
            {t('common:retry')}
          </button>
        </div>
      ) : list.length === 0 ? (
        <div className="versions__empty">
          <History size={20} aria-hidden="true" className="versions__empty-icon" />
          <div>
            <p className="versions__empty-title">{t('versions:emptyTitle')}</p>
            <p>{t('versions:empty', { keep: formatNumber(DEFAULT_KEEP), days: formatNumber(DEFAULT_DAYS) })}</p>
          </div>
        </div>
      ) : null}
      {asking ? (
        <ConfirmDialog
          // The date on one line: "Nov 27, 2026, 1:58 AM" reads as one.
          title={t('versions:restore.title', { when: formatDateTime(asking.keptAt).replaceAll(' ', '\u00a0') })}
          confirmLabel={t('versions:restore.confirm')}
          // Nothing is lost: the current content is kept as a version.
          tone="primary"
          onConfirm={async () => {
            const now = await restore(asking);
            if (now) setRestored(now);
          }}
          onClose={() => setAsking(null)}
        >
          <p>{t('versions:restore.body', { name: file.name })}</p>
        </ConfirmDialog>
      ) : null}
    </Dialog>
  );
}
