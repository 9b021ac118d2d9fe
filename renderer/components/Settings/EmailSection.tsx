import { useTranslation } from 'react-i18next';
import { useState, type FormEvent } from 'react';
import { Mail } from 'lucide-react';
import type { User } from '../../../shared/types';
import { checkEmail } from '../../../shared/validation';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError, errorMessage } from '../../api/client';
import { queryKeys } from '../../api/queryKeys';
import { useSendVerification } from '../../hooks/useSendVerification';
import { useClient } from '../Session/sessionContext';
import { TextField } from '../TextField/TextField';
import { CurrentPasswordField } from './CurrentPasswordField';
import { useToast } from '../Toasts/toastContext';
import { VerifiedTag } from '../VerifiedTag/VerifiedTag';
import { SettingsCard } from './SettingsCard';
import { ruleText } from '../../api/errorText';

/**
 * The address, whether it is verified (with the mail that verifies it), and changing it
 * (`user.edit`, `newemail` only). Password-reset links go to this address, so changing it asks
 * for the current password, as the daemon does (a stolen session alone cannot move it).
 */
export function EmailSection({ user }: { user: User }) {
  const { t } = useTranslation();
  const client = useClient();
  const queryClient = useQueryClient();
  const toast = useToast();
  const sendVerification = useSendVerification();
  const [email, setEmail] = useState('');
  const [current, setCurrent] = useState('');
  const [currentProblem, setCurrentProblem] = useState<string | null>(null);
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const check = checkEmail(email.trim());
  const error = tried && !check.ok ? t('settings:email.invalid', { rule: ruleText(check.message) }) : null;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setTried(true);
    setCurrentProblem(null);
    if (!check.ok) return;
    if (!current) {
      setCurrentProblem(t('settings:password.enterCurrent'));
      return;
    }
    setBusy(true);
    try {
      // A user may change only the address: the name goes along unchanged, as the row requires it.
      const result = await client.call('user.edit', {
        username: user.username,
        newusername: user.username,
        newemail: check.value,
        password: current,
      });
      setEmail('');
      setCurrent('');
      setTried(false);
      toast.success(t('settings:email.changed', { email: result.user.email }), t('settings:email.verifyIt'));
    } catch (failure) {
      // A wrong password is the person's typo, said under the field (the session goes on).
      if (failure instanceof ApiError && failure.code === 'invalid_credentials') setCurrentProblem(t('settings:password.wrongCurrent'));
      else toast.error(t('settings:email.failed'), errorMessage(failure));
    } finally {
      setBusy(false);
      void queryClient.invalidateQueries({ queryKey: queryKeys.users });
    }
  }

  return (
    <SettingsCard title={t('settings:email.title')} lead={t('settings:email.lead')}>
      <div className="settings__email">
        <Mail size={16} aria-hidden="true" />
        <span className="settings__email-text">{user.email}</span>
        <VerifiedTag verified={user.emailVerified} />
        {!user.emailVerified ? (
          <button type="button" className="button settings__push" onClick={() => void sendVerification(user)}>
            <Mail size={15} aria-hidden="true" />
            {t('settings:email.send')}
          </button>
        ) : null}
      </div>
      <form className="settings__inline-form" onSubmit={submit} noValidate>
        <TextField
          label={t('settings:email.new')}
          type="email"
          value={email}
          onChange={setEmail}
          autoComplete="email"
          hint={t('settings:email.hint')}
          error={error}
        />
        <CurrentPasswordField value={current} onChange={setCurrent} error={currentProblem} />
        <button type="submit" className="button" disabled={busy}>
          {t('settings:email.change')}
        </button>
      </form>
    </SettingsCard>
  );
}
