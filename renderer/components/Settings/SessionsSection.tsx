import { Monitor } from 'lucide-react';
import type { SessionInfo } from '../../../shared/types';
import { errorMessage } from '../../api/client';
import { queryKeys } from '../../api/queryKeys';
import { useSessions } from '../../hooks/queries';
import { useApiAction } from '../../hooks/useApiAction';
import { formatFullDate, formatModified } from '../../lib/format';
import { useClient, useSession } from '../Session/sessionContext';
import { useToast } from '../Toasts/toastContext';
import { SettingsCard } from './SettingsCard';

/** Where the user is signed in (`auth.sessions`), each one to end (`auth.sessions.delete`); this one signs out. */
export function SessionsSection() {
  const sessions = useSessions();
  const list = [...(sessions.data ?? [])].sort((a, b) => Number(b.current) - Number(a.current) || b.lastUsedAt.localeCompare(a.lastUsedAt));
  return (
    <SettingsCard title="Sessions" lead="The browsers signed in to your account. Sign out any you do not recognise.">
      {sessions.isPending ? <p className="settings__muted">Loading…</p> : null}
      {sessions.isError ? <p className="field__error">{errorMessage(sessions.error)}</p> : null}
      {sessions.isSuccess && list.length === 0 ? <p className="settings__muted">No browser is signed in.</p> : null}
      {list.length > 0 ? (
        <ul className="settings__list" aria-label="Sessions">
          {list.map((session) => (
            <SessionRow key={session.id} session={session} />
          ))}
        </ul>
      ) : null}
    </SettingsCard>
  );
}

function SessionRow({ session }: { session: SessionInfo }) {
  const client = useClient();
  const { signOut } = useSession();
  const toast = useToast();
  const run = useApiAction();
  const device = session.device || 'Unknown browser';

  async function end() {
    if (session.current) {
      signOut();
      return;
    }
    const done = await run('Could not end the session', () => client.call('auth.sessions.delete', { id: session.id }), [
      queryKeys.sessions,
    ]);
    if (done) toast.success(`Signed out ${device}`);
  }

  return (
    <li className="settings__item">
      <Monitor size={18} aria-hidden="true" className="settings__item-icon" />
      <div className="settings__item-main">
        <div className="settings__item-title">
          {device}
          {session.current ? <span className="tag tag--accent">This browser</span> : null}
        </div>
        <div className="settings__item-meta">
          {session.address} · <span title={formatFullDate(session.lastUsedAt)}>last used {formatModified(session.lastUsedAt)}</span> ·{' '}
          <span title={formatFullDate(session.createdAt)}>signed in {formatModified(session.createdAt)}</span>
        </div>
      </div>
      <button
        type="button"
        className="button"
        aria-label={`Sign out ${device}${session.current ? ' (this browser)' : ''}`}
        onClick={() => void end()}
      >
        Sign out
      </button>
    </li>
  );
}
