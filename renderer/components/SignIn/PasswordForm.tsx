import { useTranslation } from 'react-i18next';
import { useState, type FormEvent } from 'react';
import { errorMessage, type NimbusClient } from '../../api/client';
import type { Me } from '../Session/sessionContext';
import { TextField } from '../TextField/TextField';
import { FormProblem } from './FormProblem';
import { SubmitButton } from './SubmitButton';
import { UsernameField } from './UsernameField';

interface PasswordFormProps {
  client: NimbusClient;
  message: string | null;
  /** Shown until the first attempt (e.g. "Your password is changed"). */
  goodNews: string | null;
  onSignedIn: (me: Me) => void;
  onForgot: () => void;
}

/** Username and password: `auth.login`, whose answer sets the session cookie. */
export function PasswordForm({ client, message, goodNews, onSignedIn, onForgot }: PasswordFormProps) {
  const { t } = useTranslation();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(message);
  const [busy, setBusy] = useState(false);
  const [tried, setTried] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setTried(true);
    if (!username.trim() || !password) {
      setProblem(t('signin:enterBoth'));
      return;
    }
    setBusy(true);
    try {
      const me = await client.call('auth.login', { username: username.trim(), password });
      // A password session may always write; only a `read` key may not.
      onSignedIn({ ...me, canWrite: true });
    } catch (error) {
      setProblem(errorMessage(error));
      setBusy(false);
    }
  }

  return (
    <form className="signin__form" onSubmit={submit} aria-labelledby="signin-title" noValidate>
      <FormProblem tone="ok" problem={tried || problem ? null : goodNews} />
      <UsernameField value={username} onChange={setUsername} />
      <TextField label={t('signin:password')} type="password" value={password} onChange={setPassword} autoComplete="current-password">
        <button type="button" className="link-button signin__forgot" onClick={onForgot}>
          {t('signin:forgot')}
        </button>
      </TextField>
      <FormProblem problem={problem} />
      <SubmitButton label={t('signin:signIn')} busy={busy} />
    </form>
  );
}
