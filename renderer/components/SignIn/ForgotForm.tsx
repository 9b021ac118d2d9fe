import { useState, type FormEvent } from 'react';
import { LoaderCircle } from 'lucide-react';
import { errorMessage, type NimbusClient } from '../../api/client';
import { TextField } from '../TextField/TextField';
import { FormProblem } from './FormProblem';

/** What the page says after any request: the daemon answers the same whether the account exists or not. */
export const RESET_SENT = 'If the account exists, a mail is on its way. Its link works for one hour.';

/** Asks for a username or e-mail address and has `auth.reset` mail a reset link. */
export function ForgotForm({ client }: { client: NimbusClient }) {
  const [who, setWho] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [sent, setSent] = useState(false);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const value = who.trim();
    if (!value) {
      setProblem('Enter your username or e-mail address.');
      return;
    }
    setBusy(true);
    setProblem(null);
    try {
      await client.call('auth.reset', value.includes('@') ? { email: value } : { username: value });
      setSent(true);
    } catch (error) {
      setProblem(errorMessage(error));
    } finally {
      setBusy(false);
    }
  }

  if (sent) return <FormProblem tone="ok" problem={RESET_SENT} />;
  return (
    <form className="signin__form" onSubmit={submit} aria-labelledby="signin-title" noValidate>
      <p className="signin__lead">We will mail you a link to choose a new password.</p>
      <TextField label="Username or e-mail" value={who} onChange={setWho} autoComplete="username" autoFocus spellCheck={false} />
      <FormProblem problem={problem} />
      <button type="submit" className="button button--primary signin__submit" disabled={busy}>
        {busy ? <LoaderCircle size={16} className="spin" aria-hidden="true" /> : null}
        Send the link
      </button>
    </form>
  );
}
