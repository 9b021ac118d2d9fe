import { useTranslation } from 'react-i18next';
import { useState, type FormEvent } from 'react';
import { ApiError, errorMessage } from '../../api/client';
import { queryKeys } from '../../api/queryKeys';
import { useQueryClient } from '@tanstack/react-query';
import { FormProblem } from '../SignIn/FormProblem';
import { passwordProblem, passwordRule } from '../SignIn/passwordRules';
import { useClient, useSession } from '../Session/sessionContext';
import { TextField } from '../TextField/TextField';
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
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [tried, setTried] = useState(false);
  const [problem, setProblem] = useState<{ field: 'current' | 'next' | 'form'; text: string } | null>(null);
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);

  const weak = tried ? passwordProblem(next, username, t) : null;
  const mismatch = tried && !weak && again !== next ? t('settings:password.mismatch') : null;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setTried(true);
    setDone(false);
    setProblem(null);
    if (!current) {
      setProblem({ field: 'current', text: t('settings:password.enterCurrent') });
      return;
    }
    if (passwordProblem(next, username, t) || again !== next) return;
    setBusy(true);
    try {
      await client.call('auth.password', { password: current, newpassword: next });
      setCurrent('');
      setNext('');
      setAgain('');
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
        <TextField
          label={t('settings:password.current')}
          type="password"
          value={current}
          onChange={setCurrent}
          autoComplete="current-password"
          error={problem?.field === 'current' ? problem.text : null}
        />
        <TextField
          label={t('settings:password.new')}
          type="password"
          value={next}
          onChange={setNext}
          autoComplete="new-password"
          hint={passwordRule(t)}
          error={weak ?? (problem?.field === 'next' ? problem.text : null)}
        />
        <TextField
          label={t('settings:password.again')}
          type="password"
          value={again}
          onChange={setAgain}
          autoComplete="new-password"
          error={mismatch}
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
