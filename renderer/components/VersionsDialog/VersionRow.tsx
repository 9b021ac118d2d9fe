import { useTranslation } from 'react-i18next';
import { Download, RotateCcw } from 'lucide-react';
import type { FileEntry, FileVersion } from '../../../shared/types';
import { errorMessage } from '../../api/client';
import { linkUrl, linksAreDirect } from '../../api/links';
import { formatBytes, formatDateTime, formatFullDate, formatModified } from '../../lib/format';
import { saveBlob } from '../../lib/saveBlob';
import { useCanWrite, useSession } from '../Session/sessionContext';
import { useToast } from '../Toasts/toastContext';

interface VersionRowProps {
  username: string;
  folder: string | null;
  /** The file's name: what a version downloads as. */
  file: string;
  version: FileVersion;
  onRestore: () => void;
}

/** The file as it is now, first in the list: its size and when it was last modified. */
export function CurrentRow({ file }: { file: FileEntry }) {
  const { t } = useTranslation();
  return (
    <li className="versions__item versions__item--current">
      <span className="versions__what">
        <span className="versions__when">
          <span className="tag tag--accent">{t('versions:current')}</span>
        </span>
        <span className="versions__meta" title={formatFullDate(file.modifiedAt)}>
          {t('versions:currentMeta', { size: formatBytes(file.size), when: formatDateTime(file.modifiedAt) })}
        </span>
      </span>
    </li>
  );
}

/** One earlier version: when an upload replaced it (the whole date on hover), its size, and its Download and Restore. */
export function VersionRow({ username, folder, file, version, onRestore }: VersionRowProps) {
  const { t } = useTranslation();
  const when = formatDateTime(version.keptAt);
  // A `read` key downloads an earlier version but cannot put it back (the daemon would refuse).
  const canWrite = useCanWrite();
  return (
    <li className="versions__item">
      <span className="versions__what">
        <span className="versions__when" title={formatFullDate(version.keptAt)}>
          {formatModified(version.keptAt)}
        </span>
        <span className="versions__meta">{formatBytes(version.size)}</span>
      </span>
      <span className="versions__actions">
        <VersionDownload username={username} folder={folder} file={file} version={version} label={t('versions:downloadNamed', { when })} />
        {canWrite ? (
          <button type="button" className="button" aria-label={t('versions:restoreNamed', { when })} onClick={onRestore}>
            <RotateCcw size={15} aria-hidden="true" />
            {t('versions:restoreAction')}
          </button>
        ) : null}
      </span>
    </li>
  );
}

/**
 * A version's bytes as a normal download, under the file's name: a plain link the browser
 * streams itself; with a key held in the page, fetched with it (as the preview's Download).
 */
function VersionDownload({ username, folder, file, version, label }: Omit<VersionRowProps, 'onRestore'> & { label: string }) {
  const { t } = useTranslation();
  const session = useSession();
  const toast = useToast();
  const params = { username, folder: folder ?? undefined, file, id: version.id };
  const content = (
    <>
      <Download size={15} aria-hidden="true" />
      {t('versions:download')}
    </>
  );
  if (linksAreDirect(session)) {
    return (
      <a className="button" href={linkUrl(session.client, 'files.versions.download', params)} download={file} aria-label={label}>
        {content}
      </a>
    );
  }
  return (
    <button
      type="button"
      className="button"
      aria-label={label}
      onClick={async () => {
        try {
          saveBlob(await session.client.downloadVersion(params), file);
        } catch (error) {
          toast.error(t('versions:downloadFailed', { name: file }), errorMessage(error));
        }
      }}
    >
      {content}
    </button>
  );
}
