import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Check, Copy, Folder, Link2, Link2Off } from 'lucide-react';
import type { FileEntry } from '../../../shared/types';
import { useEveryFile } from '../../hooks/queries';
import { useFileActions } from '../../hooks/useFileActions';
import type { LiveState } from '../../hooks/useLiveEvents';
import { copyText } from '../../lib/clipboard';
import { formatBytes, formatFullDate, formatModified } from '../../lib/format';
import { ActionsHeader } from '../ActionsHeader/ActionsHeader';
import { ListState } from '../ListState/ListState';
import { StatusBar } from '../StatusBar/StatusBar';
import './SharedByMe.css';

interface SharedByMeProps {
  username: string;
  live: LiveState;
  /** Opens the folder (null: the root) holding a file. */
  onOpenFolder: (folder: string | null) => void;
}

const byPlace = (a: FileEntry, b: FileEntry) => (a.folder ?? '').localeCompare(b.folder ?? '') || a.name.localeCompare(b.name);

/** A user's shared files, from their listings' share info: each link, to copy or revoke. */
export function SharedByMe({ username, live, onOpenFolder }: SharedByMeProps) {
  const { t } = useTranslation();
  const every = useEveryFile(username);
  const shared = every.files.filter((file) => file.shared && file.shareUrl).sort(byPlace);

  useEffect(() => {
    document.title = t('share:page.windowTitle');
  }, [t]);

  const body = (
    <ListState
      icon={Link2}
      loading={every.pending ? t('share:page.loading') : null}
      failed={every.error ? { title: t('share:page.failed'), error: every.error } : null}
      empty={shared.length === 0 ? { title: t('share:page.emptyTitle'), text: t('share:page.emptyText') } : null}
    >
      <div className="list-scroll shared__scroll">
        <table className="list-table shared__table">
          <caption className="visually-hidden">{t('share:page.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('share:page.name')}</th>
              <th scope="col">{t('share:page.folder')}</th>
              <th scope="col" className="shared__num">
                {t('share:page.size')}
              </th>
              <th scope="col">{t('share:page.modified')}</th>
              <ActionsHeader label={t('share:page.actions')} />
            </tr>
          </thead>
          <tbody>
            {shared.map((file) => (
              <SharedRow key={`${file.folder ?? ''}/${file.name}`} username={username} file={file} onOpenFolder={onOpenFolder} />
            ))}
          </tbody>
        </table>
      </div>
    </ListState>
  );

  return (
    <section className="shared" aria-labelledby="shared-title">
      <header className="page-header">
        <h1 id="shared-title">{t('share:page.title')}</h1>
        <p>{t('share:page.lead')}</p>
      </header>
      {body}
      <StatusBar summary={every.pending ? '' : t('share:page.count', { count: shared.length })} live={live} />
    </section>
  );
}

function SharedRow({ username, file, onOpenFolder }: { username: string; file: FileEntry; onOpenFolder: (folder: string | null) => void }) {
  const { t } = useTranslation();
  const actions = useFileActions(username, file.folder);
  const [copied, setCopied] = useState(false);
  const [busy, setBusy] = useState(false);
  return (
    <tr>
      <th scope="row" className="shared__name">
        <span title={file.name}>{file.name}</span>
      </th>
      <td>
        <button type="button" className="link-button shared__folder" onClick={() => onOpenFolder(file.folder)}>
          <Folder size={14} aria-hidden="true" />
          {file.folder ?? t('share:page.root')}
        </button>
      </td>
      <td className="shared__num">{formatBytes(file.size)}</td>
      <td title={formatFullDate(file.modifiedAt)}>{formatModified(file.modifiedAt)}</td>
      <td className="shared__actions">
        <button
          type="button"
          className="button"
          aria-label={t('share:copyLinkTo', { file: file.name })}
          onClick={async () => setCopied(await copyText(file.shareUrl ?? ''))}
        >
          {copied ? <Check size={15} aria-hidden="true" /> : <Copy size={15} aria-hidden="true" />}
          <span className="shared__label">{copied ? t('share:copied') : t('share:copyLink')}</span>
        </button>
        <button
          type="button"
          className="button button--ghost"
          aria-label={t('share:stopSharingFile', { file: file.name })}
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            await actions.unshare(file);
            setBusy(false);
          }}
        >
          <Link2Off size={15} aria-hidden="true" />
          <span className="shared__label">{t('share:stopSharing')}</span>
        </button>
      </td>
    </tr>
  );
}
