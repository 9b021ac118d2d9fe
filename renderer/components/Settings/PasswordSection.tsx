import { useTranslation } from 'react-i18next';
import { useState, type FormEvent } from 'react';
import { ApiError, errorMessage } from '../../api/client';
import { queryKeys } from '../../api/queryKeys';
import { useQueryClient } from '@tanstack/react-query';
import { FormProblem } from '../SignIn/FormProblem';
import { NO_PASSWORDS, NewPasswordFields, newPasswordsReady } from '../SignIn/NewPasswordFields';
import { useClient, useSession } from '../Session/sessionContext';
import { CurrentPasswordField } from './CurrentPasswordField';
import { SettingsCard } from './SettingsCard';

/** The English of `settings:password.changed`, for tests. */
export const PASSWORD_CHANGED = 'Password changed. Your other sessions were signed out.';

/** `auth.password`: the current password, then the new one twice. */
export function PasswordSection() {
  const { t } = useTranslation();
  const client = useClient();
  const queryClient = useQueryClient();
  const username = useSession().me.user?.username ?? '';
  const [current, setCurrent] = useState('');
  const [passwords, setPasswords] = useState(NO_PASSWORDS);
  const [tried, setTried] = useState(false);
  const [problem, setProblem] = useState<{ field: 'current' | 'next' | 'form'; text: string } | null>(null);
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setTried(true);
    setDone(false);
    setProblem(null);
    if (!current) {
      setProblem({ field: 'current', text: t('settings:password.enterCurrent') });
      return;
    }
    if (!newPasswordsReady(passwords, username, t)) return;
    setBusy(true);
    try {
      await client.call('auth.password', { password: current, newpassword: passwords.next });
      setCurrent('');
      setPasswords(NO_PASSWORDS);
      setTried(false);
      setDone(true);
      void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'invalid_credentials')
        setProblem({ field: 'current', text: t('settings:password.wrongCurrent') });
      else if (error instanceof ApiError && error.code === 'weak_password') setProblem({ field: 'next', text: errorMessage(error) });
      else setProblem({ field: 'form', text: errorMessage(error) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <SettingsCard title={t('settings:password.title')} lead={t('settings:password.lead')}>
      <form className="settings__form" onSubmit={submit} noValidate>
        <CurrentPasswordField value={current} onChange={setCurrent} error={problem?.field === 'current' ? problem.text : null} />
        <NewPasswordFields
          texts="settings:password"
          username={username}
          value={passwords}
          onChange={setPasswords}
          tried={tried}
          refused={problem?.field === 'next' ? problem.text : null}
        />
        <FormProblem problem={problem?.field === 'form' ? problem.text : null} />
        <FormProblem tone="ok" problem={done ? t('settings:password.changed') : null} />
        <div>
          <button type="submit" className="button button--primary" disabled={busy}>
            {t('settings:password.submit')}
          </button>
        </div>
      </form>
    </SettingsCard>
  );
}
