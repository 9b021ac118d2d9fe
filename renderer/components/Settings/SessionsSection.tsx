import { useTranslation } from 'react-i18next';
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
  const { t } = useTranslation();
  const sessions = useSessions();
  const list = [...(sessions.data ?? [])].sort((a, b) => Number(b.current) - Number(a.current) || b.lastUsedAt.localeCompare(a.lastUsedAt));
  return (
    <SettingsCard title={t('settings:sessions.title')} lead={t('settings:sessions.lead')}>
      {sessions.isPending ? <p className="settings__muted">{t('common:loading')}</p> : null}
      {sessions.isError ? (
        <p className="field__error" role="alert">
          {errorMessage(sessions.error)}
        </p>
      ) : null}
      {sessions.isSuccess && list.length === 0 ? <p className="settings__muted">{t('settings:sessions.none')}</p> : null}
      {list.length > 0 ? (
        <ul className="settings__list" aria-label={t('settings:sessions.title')}>
          {list.map((session) => (
            <SessionRow key={session.id} session={session} />
          ))}
        </ul>
      ) : null}
    </SettingsCard>
  );
}

function SessionRow({ session }: { session: SessionInfo }) {
  const { t } = useTranslation();
  const client = useClient();
  const { signOut } = useSession();
  const toast = useToast();
  const run = useApiAction();
  const device = session.device || t('settings:sessions.unknownDevice');

  async function end() {
    if (session.current) {
      signOut();
      return;
    }
    const done = await run(t('settings:sessions.endFailed'), () => client.call('auth.sessions.delete', { id: session.id }), [
      queryKeys.sessions,
    ]);
    if (done) toast.success(t('settings:sessions.ended', { device }));
  }

  return (
    <li className="settings__item">
      <Monitor size={18} aria-hidden="true" className="settings__item-icon" />
      <div className="settings__item-main">
        <div className="settings__item-title">
          {device}
          {session.current ? <span className="tag tag--accent">{t('settings:sessions.thisBrowser')}</span> : null}
        </div>
        <div className="settings__item-meta">
          {session.address} ·{' '}
          <span title={formatFullDate(session.lastUsedAt)}>
            {t('settings:sessions.lastUsed', { when: formatModified(session.lastUsedAt) })}
          </span>{' '}
          ·{' '}
          <span title={formatFullDate(session.createdAt)}>
            {t('settings:sessions.signedIn', { when: formatModified(session.createdAt) })}
          </span>
        </div>
      </div>
      <button
        type="button"
        className="button"
        aria-label={session.current ? t('settings:sessions.signOutThisLabel', { device }) : t('settings:sessions.signOutLabel', { device })}
        onClick={() => void end()}
      >
        {t('settings:sessions.signOut')}
      </button>
    </li>
  );
}
