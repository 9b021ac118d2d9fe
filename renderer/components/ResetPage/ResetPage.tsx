import { useTranslation } from 'react-i18next';
import { useEffect, useState, type FormEvent } from 'react';
import { errorMessage, type NimbusClient } from '../../api/client';
import { FormProblem } from '../SignIn/FormProblem';
import { NO_PASSWORDS, NewPasswordFields, newPasswordsReady } from '../SignIn/NewPasswordFields';
import { SubmitButton } from '../SignIn/SubmitButton';
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
  const { t } = useTranslation();
  const [passwords, setPasswords] = useState(NO_PASSWORDS);
  const [tried, setTried] = useState(false);
  const [problem, setProblem] = useState<string | null>(token ? null : t('signin:reset.incomplete'));
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    document.title = t('signin:windowTitle', { title: t('signin:reset.title') });
  }, [t]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setTried(true);
    if (!newPasswordsReady(passwords, '', t)) return;
    setBusy(true);
    setProblem(null);
    try {
      await client.call('auth.reset.confirm', { token, newpassword: passwords.next });
      onDone(true);
    } catch (error) {
      setProblem(errorMessage(error));
      setBusy(false);
    }
  }

  return (
    <main className="signin">
      <div className="signin__card">
        <img className="signin__logo" src="/nimbus.svg" alt="" width={56} height={56} />
        <h1 id="reset-title">{t('signin:reset.title')}</h1>
        <form className="signin__form" onSubmit={submit} aria-labelledby="reset-title" noValidate>
          <p className="signin__lead">{t('signin:reset.lead')}</p>
          <NewPasswordFields
            texts="signin:reset"
            username=""
            value={passwords}
            onChange={setPasswords}
            tried={tried}
            autoFocus
            disabled={!token}
          />
          <FormProblem problem={problem} />
          <SubmitButton label={t('signin:reset.submit')} busy={busy} disabled={!token} />
        </form>
        <nav className="signin__links" aria-label={t('signin:links.label')}>
          <button type="button" className="link-button" onClick={() => onDone(false)}>
            {t('signin:links.back')}
          </button>
        </nav>
      </div>
    </main>
  );
}
