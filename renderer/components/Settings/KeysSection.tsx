import { useTranslation } from 'react-i18next';
import { useId, useState, type FormEvent } from 'react';
import { KeyRound, Trash2 } from 'lucide-react';
import type { ApiKeyInfo } from '../../../shared/types';
import { checkAccountName } from '../../../shared/validation';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError, errorMessage } from '../../api/client';
import { queryKeys } from '../../api/queryKeys';
import { useKeys } from '../../hooks/queries';
import { useApiAction } from '../../hooks/useApiAction';
import { formatFullDate, formatModified } from '../../lib/format';
import { ConfirmDialog } from '../ConfirmDialog/ConfirmDialog';
import { useClient } from '../Session/sessionContext';
import { TextField } from '../TextField/TextField';
import { CurrentPasswordField } from './CurrentPasswordField';
import { useToast } from '../Toasts/toastContext';
import { NewKeyDialog } from './NewKeyDialog';
import { SettingsCard } from './SettingsCard';
import { ruleText } from '../../api/errorText';

/**
 * Personal API keys (`keys.*`): for scripts and tools acting as this user, each shown once when
 * made, after the current password (the daemon asks a session for it: a key outlives a password
 * change, so a session left open somewhere must not be enough to make one).
 */
export function KeysSection({ username }: { username: string }) {
  const { t } = useTranslation();
  const client = useClient();
  const toast = useToast();
  const run = useApiAction();
  const queryClient = useQueryClient();
  const keys = useKeys();
  // An admin lists every key; here are only this user's own.
  const mine = (keys.data ?? []).filter((key) => key.username === username);
  const scopeId = useId();
  const [label, setLabel] = useState('');
  const [scope, setScope] = useState<'write' | 'read'>('write');
  const [current, setCurrent] = useState('');
  const [currentProblem, setCurrentProblem] = useState<string | null>(null);
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<{ label: string; key: string } | null>(null);
  const [deleting, setDeleting] = useState<ApiKeyInfo | null>(null);
  const check = checkAccountName(label.trim());
  const labelError = tried && !check.ok ? t('settings:keys.invalid', { rule: ruleText(check.message) }) : null;
  const scopeText: Record<string, string> = {
    write: t('settings:keys.write'),
    read: t('settings:keys.read'),
    admin: t('settings:keys.admin'),
  };

  async function create(event: FormEvent) {
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
      const result = await client.call('keys.create', { label: check.value, scope, password: current });
      setLabel('');
      setCurrent('');
      setTried(false);
      setCreated({ label: result.label, key: result.key });
    } catch (failure) {
      // A wrong password is the person's typo, said under the field (the session goes on).
      if (failure instanceof ApiError && failure.code === 'invalid_credentials') setCurrentProblem(t('settings:password.wrongCurrent'));
      else toast.error(t('settings:keys.createFailed'), errorMessage(failure));
    } finally {
      setBusy(false);
      void queryClient.invalidateQueries({ queryKey: queryKeys.keys });
    }
  }

  return (
    <SettingsCard title={t('settings:keys.title')} lead={t('settings:keys.lead')}>
      {keys.isError ? (
        <p className="field__error" role="alert">
          {errorMessage(keys.error)}
        </p>
      ) : null}
      {keys.isSuccess && mine.length === 0 ? <p className="settings__muted">{t('settings:keys.none')}</p> : null}
      {mine.length > 0 ? (
        <ul className="settings__list" aria-label={t('settings:keys.list')}>
          {mine.map((key) => (
            <li key={key.label} className="settings__item">
              <KeyRound size={18} aria-hidden="true" className="settings__item-icon" />
              <div className="settings__item-main">
                <div className="settings__item-title">
                  {key.label}
                  <span className="tag">{scopeText[key.scope] ?? key.scope}</span>
                </div>
                <div className="settings__item-meta" title={formatFullDate(key.createdAt)}>
                  {t('settings:keys.created', { when: formatModified(key.createdAt) })}
                </div>
              </div>
              <button
                type="button"
                className="icon-button icon-button--danger"
                aria-label={t('settings:keys.deleteLabel', { label: key.label })}
                title={t('settings:keys.deleteTitle')}
                onClick={() => setDeleting(key)}
              >
                <Trash2 size={16} aria-hidden="true" />
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <form className="settings__inline-form" onSubmit={create} noValidate>
        <TextField
          label={t('settings:keys.label')}
          value={label}
          onChange={setLabel}
          placeholder={t('settings:keys.placeholder')}
          spellCheck={false}
          error={labelError}
        />
        <div className="field">
          <label className="field__label" htmlFor={scopeId}>
            {t('settings:keys.access')}
          </label>
          <select id={scopeId} className="select" value={scope} onChange={(event) => setScope(event.target.value as 'write' | 'read')}>
            <option value="write">{t('settings:keys.write')}</option>
            <option value="read">{t('settings:keys.read')}</option>
          </select>
        </div>
        <CurrentPasswordField value={current} onChange={setCurrent} error={currentProblem} />
        <button type="submit" className="button" disabled={busy}>
          {t('settings:keys.create')}
        </button>
      </form>
      {created ? <NewKeyDialog label={created.label} apiKey={created.key} onClose={() => setCreated(null)} /> : null}
      {deleting ? (
        <ConfirmDialog
          title={t('settings:keys.confirmTitle', { label: deleting.label })}
          confirmLabel={t('settings:keys.confirm')}
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            const done = await run(
              t('settings:keys.deleteFailed', { label: deleting.label }),
              () => client.call('keys.delete', { label: deleting.label }),
              [queryKeys.keys],
            );
            if (done) toast.success(t('settings:keys.deleted', { label: deleting.label }));
          }}
        >
          <p>{t('settings:keys.confirmText')}</p>
        </ConfirmDialog>
      ) : null}
    </SettingsCard>
  );
}
