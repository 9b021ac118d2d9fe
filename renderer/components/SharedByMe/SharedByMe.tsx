import { useEffect, useState } from 'react';
import { Check, Copy, Folder, Link2, Link2Off } from 'lucide-react';
import type { FileEntry } from '../../../shared/types';
import { errorMessage } from '../../api/client';
import { useEveryFile } from '../../hooks/queries';
import { useFileActions } from '../../hooks/useFileActions';
import type { LiveState } from '../../hooks/useLiveEvents';
import { copyText } from '../../lib/clipboard';
import { formatBytes, formatFullDate, formatModified, plural } from '../../lib/format';
import { EmptyState } from '../EmptyState/EmptyState';
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
  const every = useEveryFile(username);
  const shared = every.files.filter((file) => file.shared && file.shareUrl).sort(byPlace);

  useEffect(() => {
    document.title = 'Shared by me — Nimbus';
  }, []);

  let body;
  if (every.pending) {
    body = (
      <div className="shell__loading" role="status">
        Loading your shares…
      </div>
    );
  } else if (every.error) {
    body = (
      <EmptyState icon={Link2} title="Could not list your shares">
        {errorMessage(every.error)}
      </EmptyState>
    );
  } else if (shared.length === 0) {
    body = (
      <EmptyState icon={Link2} title="Nothing shared yet">
        Select a file in My files and press Share to make a link anyone can download it with.
      </EmptyState>
    );
  } else {
    body = (
      <div className="shared__scroll">
        <table className="shared__table">
          <caption className="visually-hidden">Files you share by link</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Folder</th>
              <th scope="col" className="shared__num">
                Size
              </th>
              <th scope="col">Modified</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {shared.map((file) => (
              <SharedRow key={`${file.folder ?? ''}/${file.name}`} username={username} file={file} onOpenFolder={onOpenFolder} />
            ))}
          </tbody>
        </table>
      </div>
    );
  }

  return (
    <section className="shared" aria-labelledby="shared-title">
      <header className="page-header">
        <h1 id="shared-title">Shared by me</h1>
        <p>Anyone with one of these links can download the file, without signing in. Stop sharing to make a link stop working.</p>
      </header>
      {body}
      <StatusBar summary={every.pending ? '' : plural(shared.length, 'shared file')} live={live} />
    </section>
  );
}

function SharedRow({ username, file, onOpenFolder }: { username: string; file: FileEntry; onOpenFolder: (folder: string | null) => void }) {
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
          {file.folder ?? 'Root'}
        </button>
      </td>
      <td className="shared__num">{formatBytes(file.size)}</td>
      <td title={formatFullDate(file.modifiedAt)}>{formatModified(file.modifiedAt)}</td>
      <td className="shared__actions">
        <button
          type="button"
          className="button"
          aria-label={`Copy the link to ${file.name}`}
          onClick={async () => setCopied(await copyText(file.shareUrl ?? ''))}
        >
          {copied ? <Check size={15} aria-hidden="true" /> : <Copy size={15} aria-hidden="true" />}
          <span className="shared__label">{copied ? 'Copied' : 'Copy link'}</span>
        </button>
        <button
          type="button"
          className="button button--ghost"
          aria-label={`Stop sharing ${file.name}`}
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            await actions.unshare(file);
            setBusy(false);
          }}
        >
          <Link2Off size={15} aria-hidden="true" />
          <span className="shared__label">Stop sharing</span>
        </button>
      </td>
    </tr>
  );
}
