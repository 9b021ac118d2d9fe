import { useState, type FormEvent } from 'react';
import { ApiError, errorMessage } from '../../api/client';
import { queryKeys } from '../../api/queryKeys';
import { useQueryClient } from '@tanstack/react-query';
import { FormProblem } from '../SignIn/FormProblem';
import { PASSWORD_RULE, passwordProblem } from '../SignIn/passwordRules';
import { useClient, useSession } from '../Session/sessionContext';
import { TextField } from '../TextField/TextField';
import { SettingsCard } from './SettingsCard';

export const PASSWORD_CHANGED = 'Password changed. Your other sessions were signed out.';

/** `auth.password`: the current password, then the new one twice. */
export function PasswordSection() {
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

  const weak = tried ? passwordProblem(next, username) : null;
  const mismatch = tried && !weak && again !== next ? 'The two new passwords differ.' : null;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setTried(true);
    setDone(false);
    setProblem(null);
    if (!current) {
      setProblem({ field: 'current', text: 'Enter your current password.' });
      return;
    }
    if (passwordProblem(next, username) || again !== next) return;
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
        setProblem({ field: 'current', text: 'The current password is wrong.' });
      else if (error instanceof ApiError && error.code === 'weak_password') setProblem({ field: 'next', text: errorMessage(error) });
      else setProblem({ field: 'form', text: errorMessage(error) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <SettingsCard title="Password" lead="Changing it signs you out everywhere else.">
      <form className="settings__form" onSubmit={submit} noValidate>
        <TextField
          label="Current password"
          type="password"
          value={current}
          onChange={setCurrent}
          autoComplete="current-password"
          error={problem?.field === 'current' ? problem.text : null}
        />
        <TextField
          label="New password"
          type="password"
          value={next}
          onChange={setNext}
          autoComplete="new-password"
          hint={PASSWORD_RULE}
          error={weak ?? (problem?.field === 'next' ? problem.text : null)}
        />
        <TextField
          label="New password again"
          type="password"
          value={again}
          onChange={setAgain}
          autoComplete="new-password"
          error={mismatch}
        />
        <FormProblem problem={problem?.field === 'form' ? problem.text : null} />
        <FormProblem tone="ok" problem={done ? PASSWORD_CHANGED : null} />
        <div>
          <button type="submit" className="button button--primary" disabled={busy}>
            Change password
          </button>
        </div>
      </form>
    </SettingsCard>
  );
}
