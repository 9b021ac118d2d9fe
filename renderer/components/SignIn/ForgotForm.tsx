import { useTranslation } from 'react-i18next';
import { useState, type FormEvent } from 'react';
import type { MailDelivery } from '../../../shared/types';
import { errorMessage, type NimbusClient } from '../../api/client';
import { TextField } from '../TextField/TextField';
import { FormProblem } from './FormProblem';
import { SubmitButton } from './SubmitButton';

/**
 * What the page says after any request (the daemon answers the same whether the account exists
 * or not): the English of `signin:forgotForm.sent`, for tests.
 */
export const RESET_SENT = 'If the account exists, a mail is on its way. Its link works for one hour.';

interface ForgotFormProps {
  client: NimbusClient;
  /**
   * How the daemon sends mail (`auth.options`); null until known or from an older daemon. With
   * `outbox` nothing is mailed: the link is a file on the server, and saying "a mail is on its
   * way" would leave the person waiting for nothing.
   */
  mailDelivery: MailDelivery | null;
}

/** Asks for a username or e-mail address and has `auth.reset` mail a reset link (or write it to the outbox). */
export function ForgotForm({ client, mailDelivery }: ForgotFormProps) {
  const { t } = useTranslation();
  const [who, setWho] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [sent, setSent] = useState(false);
  const [busy, setBusy] = useState(false);
  const outbox = mailDelivery === 'outbox';

  async function submit(event: FormEvent) {
    event.preventDefault();
    const value = who.trim();
    if (!value) {
      setProblem(t('signin:forgotForm.enter'));
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

  if (sent) return <FormProblem tone="ok" problem={t(outbox ? 'signin:forgotForm.sentOutbox' : 'signin:forgotForm.sent')} />;
  return (
    <form className="signin__form" onSubmit={submit} aria-labelledby="signin-title" noValidate>
      <p className="signin__lead">{t(outbox ? 'signin:forgotForm.leadOutbox' : 'signin:forgotForm.lead')}</p>
      <TextField label={t('signin:forgotForm.who')} value={who} onChange={setWho} autoComplete="username" autoFocus spellCheck={false} />
      <FormProblem problem={problem} />
      <SubmitButton label={t(outbox ? 'signin:forgotForm.sendOutbox' : 'signin:forgotForm.send')} busy={busy} />
    </form>
  );
}
