import { Trans, useTranslation } from 'react-i18next';
import { useId, useState, type FormEvent } from 'react';
import { KeyRound } from 'lucide-react';
import type { Me } from '../Session/sessionContext';
import { SubmitButton } from './SubmitButton';

interface KeyFormProps {
  message: string | null;
  /** Who the key signs in as, or an error message. */
  verify: (key: string) => Promise<Me | string>;
  onSignedIn: (key: string, me: Me) => void;
}

/** The admin's way in: the daemon's API key (or any key made for a person), kept for this tab only. */
export function KeyForm({ message, verify, onSignedIn }: KeyFormProps) {
  const { t } = useTranslation();
  const [key, setKey] = useState('');
  const [problem, setProblem] = useState<string | null>(message);
  const [busy, setBusy] = useState(false);
  const fieldId = useId();
  const problemId = useId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const candidate = key.trim();
    if (!candidate) {
      setProblem(t('signin:key.enter'));
      return;
    }
    setBusy(true);
    const result = await verify(candidate);
    setBusy(false);
    if (typeof result === 'string') setProblem(result);
    else onSignedIn(candidate, result);
  }

  return (
    <form className="signin__form" onSubmit={submit} aria-labelledby="signin-title" noValidate>
      <p className="signin__lead">
        <Trans i18nKey="signin:key.lead" components={{ code: <code /> }} />
      </p>
      <label htmlFor={fieldId} className="field__label">
        {t('signin:key.field')}
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
      <SubmitButton label={t('signin:signIn')} busy={busy} />
    </form>
  );
}
