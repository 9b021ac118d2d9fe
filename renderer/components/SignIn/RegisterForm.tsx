import { useTranslation } from 'react-i18next';
import { useState, type FormEvent } from 'react';
import { checkAccountName, checkEmail } from '../../../shared/validation';
import { ApiError, errorMessage, type NimbusClient } from '../../api/client';
import type { Me } from '../Session/sessionContext';
import { TextField } from '../TextField/TextField';
import { FormProblem } from './FormProblem';
import { passwordProblem, passwordRule } from './passwordRules';
import { SubmitButton } from './SubmitButton';
import { UsernameField } from './UsernameField';
import { ruleText } from '../../api/errorText';

interface RegisterFormProps {
  client: NimbusClient;
  /** Registered and signed in (the daemon set the session cookie). */
  onRegistered: (me: Me) => void;
  /** The daemon takes no new accounts: why, in words. */
  onClosed: (why: string) => void;
}

/** `auth.register`: a new account with role `user`, signed in at once, its address sent a verification mail. */
export function RegisterForm({ client, onRegistered, onClosed }: RegisterFormProps) {
  const { t } = useTranslation();
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [tried, setTried] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const nameCheck = checkAccountName(username.trim());
  const emailCheck = checkEmail(email.trim());
  const errors = {
    username: tried && !nameCheck.ok ? t('signin:register.badUsername', { rule: ruleText(nameCheck.message) }) : null,
    email: tried && !emailCheck.ok ? t('signin:register.badEmail', { rule: ruleText(emailCheck.message) }) : null,
    password: tried ? passwordProblem(password, username.trim(), t) : null,
  };

  async function submit(event: FormEvent) {
    event.preventDefault();
    setTried(true);
    if (!nameCheck.ok || !emailCheck.ok || passwordProblem(password, username.trim(), t)) return;
    setBusy(true);
    setProblem(null);
    try {
      const created = await client.call('auth.register', { username: nameCheck.value, email: emailCheck.value, password });
      onRegistered({ user: created.user, admin: false, canWrite: true });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'registration_closed') {
        onClosed(errorMessage(error));
        return;
      }
      setProblem(errorMessage(error));
      setBusy(false);
    }
  }

  return (
    <form className="signin__form" onSubmit={submit} aria-labelledby="signin-title" noValidate>
      <UsernameField value={username} onChange={setUsername} error={errors.username} />
      <TextField label={t('signin:email')} type="email" value={email} onChange={setEmail} autoComplete="email" error={errors.email} />
      <TextField
        label={t('signin:password')}
        type="password"
        value={password}
        onChange={setPassword}
        autoComplete="new-password"
        hint={passwordRule(t)}
        error={errors.password}
      />
      <FormProblem problem={problem} />
      <SubmitButton label={t('signin:register.submit')} busy={busy} />
    </form>
  );
}
