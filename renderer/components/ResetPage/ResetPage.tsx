import { useEffect, useState, type FormEvent } from 'react';
import { LoaderCircle } from 'lucide-react';
import { errorMessage, type NimbusClient } from '../../api/client';
import { FormProblem } from '../SignIn/FormProblem';
import { PASSWORD_RULE, passwordProblem } from '../SignIn/passwordRules';
import { TextField } from '../TextField/TextField';
import '../SignIn/SignIn.css';

/** Where a reset mail's link opens the UI: `<base URL>/reset?token=…`. */
export const RESET_PATH = '/reset';

interface ResetPageProps {
  /** A client without a key (the call is public). */
  client: NimbusClient;
  /** From the link; empty when the link lost it. */
  token: string;
  /** To the sign-in page: `changed` when the new password is set. */
  onDone: (changed: boolean) => void;
}

/** The page of a password-reset link: the new password twice, then `auth.reset.confirm`. */
export function ResetPage({ client, token, onDone }: ResetPageProps) {
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [tried, setTried] = useState(false);
  const [problem, setProblem] = useState<string | null>(token ? null : 'This link is incomplete. Copy the whole link from the mail.');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    document.title = 'Choose a new password — Nimbus';
  }, []);

  const weak = tried ? passwordProblem(password, '') : null;
  const mismatch = tried && !weak && again !== password ? 'The two passwords differ.' : null;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setTried(true);
    if (passwordProblem(password, '') || again !== password) return;
    setBusy(true);
    setProblem(null);
    try {
      await client.call('auth.reset.confirm', { token, newpassword: password });
      onDone(true);
    } catch (error) {
      setProblem(errorMessage(error));
      setBusy(false);
    }
  }

  return (
    <main className="signin">
      <div className="signin__card">
        <img className="signin__logo" src="./nimbus.svg" alt="" width={56} height={56} />
        <h1 id="reset-title">Choose a new password</h1>
        <form className="signin__form" onSubmit={submit} aria-labelledby="reset-title" noValidate>
          <p className="signin__lead">Setting it signs your account out on every device.</p>
          <TextField
            label="New password"
            type="password"
            value={password}
            onChange={setPassword}
            autoComplete="new-password"
            autoFocus
            hint={PASSWORD_RULE}
            error={weak}
            disabled={!token}
          />
          <TextField
            label="New password again"
            type="password"
            value={again}
            onChange={setAgain}
            autoComplete="new-password"
            error={mismatch}
            disabled={!token}
          />
          <FormProblem problem={problem} />
          <button type="submit" className="button button--primary signin__submit" disabled={busy || !token}>
            {busy ? <LoaderCircle size={16} className="spin" aria-hidden="true" /> : null}
            Set the new password
          </button>
        </form>
        <nav className="signin__links" aria-label="Other ways in">
          <button type="button" className="link-button" onClick={() => onDone(false)}>
            Back to sign in
          </button>
        </nav>
      </div>
    </main>
  );
}
