import { useId, useState, type FormEvent } from 'react';
import { KeyRound, LoaderCircle } from 'lucide-react';
import './SignIn.css';

interface SignInProps {
  /** Why the form is shown (a rejected or expired key), if not a first visit. */
  message: string | null;
  /** Resolves to an error message, or null when the key works. */
  verify: (key: string) => Promise<string | null>;
  onSignedIn: (key: string) => void;
}

/** Browser-mode sign-in: the admin key, kept for this tab only. */
export function SignIn({ message, verify, onSignedIn }: SignInProps) {
  const [key, setKey] = useState('');
  const [problem, setProblem] = useState<string | null>(message);
  const [busy, setBusy] = useState(false);
  const fieldId = useId();
  const problemId = useId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const candidate = key.trim();
    if (!candidate) {
      setProblem('Enter the API key.');
      return;
    }
    setBusy(true);
    const result = await verify(candidate);
    setBusy(false);
    if (result) setProblem(result);
    else onSignedIn(candidate);
  }

  return (
    <main className="signin">
      <form className="signin__card" onSubmit={submit} aria-labelledby="signin-title" noValidate>
        <img className="signin__logo" src="./nimbus.svg" alt="" width={56} height={56} />
        <h1 id="signin-title">Sign in to Nimbus</h1>
        <p className="signin__lead">
          Paste the daemon&rsquo;s API key. Run <code>nimbus key show</code> on this machine to see it. The key is kept only for this tab.
        </p>
        <label htmlFor={fieldId} className="field__label">
          API key
        </label>
        <div className="signin__row">
          <KeyRound size={16} aria-hidden="true" className="signin__key-icon" />
          <input
            id={fieldId}
            className="input signin__input"
            type="password"
            autoComplete="off"
            spellCheck={false}
            autoFocus
            value={key}
            onChange={(event) => setKey(event.target.value)}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? problemId : undefined}
          />
        </div>
        {problem ? (
          <p id={problemId} className="field__error" role="alert">
            {problem}
          </p>
        ) : null}
        <button type="submit" className="button button--primary signin__submit" disabled={busy}>
          {busy ? <LoaderCircle size={16} className="spin" aria-hidden="true" /> : null}
          Sign in
        </button>
      </form>
    </main>
  );
}
