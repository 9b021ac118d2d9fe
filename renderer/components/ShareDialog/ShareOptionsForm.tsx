import { useState, type FormEvent } from 'react';
import { Lock, LockOpen } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import type { ShareInfo } from '../../../shared/types';
import { editOf, firstExpiryDay, formOf, type OptionsForm, type OptionsProblem } from '../../lib/shareLinks';
import { FormProblem } from '../SignIn/FormProblem';
import { TextField } from '../TextField/TextField';
import { useShareEdit } from './useShareEdit';
import '../SignIn/SignIn.css';

interface ShareOptionsFormProps {
  username: string;
  share: ShareInfo;
}

/**
 * A link's expiry (a day; empty: never), download limit (empty or 0: none) and password (set,
 * changed or removed; never shown: the daemon keeps only its hash), saved by `shares.edit`.
 */
export function ShareOptionsForm({ username, share }: ShareOptionsFormProps) {
  const { t } = useTranslation();
  const [form, setForm] = useState<OptionsForm>(() => formOf(share));
  const [invalid, setInvalid] = useState<OptionsProblem | null>(null);
  const edit = useShareEdit(username, share);
  const planned = editOf(share, form);
  const changed = 'problem' in planned || Object.keys(planned.edit).length > 0;
  // An upload link's limit counts uploads (the daemon keeps them as its `maxDownloads`).
  const uploads = share.kind === 'upload';

  function change(next: Partial<OptionsForm>) {
    setForm((current) => ({ ...current, ...next }));
    setInvalid(null);
    edit.clear();
  }

  async function save(event: FormEvent) {
    event.preventDefault();
    if ('problem' in planned) {
      setInvalid(planned.problem);
      return;
    }
    const saved = await edit.send(planned.edit, t('share:options.saved'));
    if (saved) setForm(formOf(saved));
  }

  async function removePassword() {
    if (await edit.send({ removePassword: true }, t('share:options.passwordRemoved'))) setForm((current) => ({ ...current, password: '' }));
  }

  return (
    <form className="share-options__form" onSubmit={save} noValidate aria-label={t('share:options.title')}>
      <div className="share-options__pair">
        <TextField
          label={t('share:options.expires')}
          type="date"
          value={form.day}
          min={firstExpiryDay()}
          onChange={(day) => change({ day })}
          hint={t('share:options.expiresHint')}
          error={invalid === 'expiryPast' ? t('share:options.expiryPast') : null}
        >
          {form.day !== '' ? (
            <button type="button" className="link-button link-button--small share-options__never" onClick={() => change({ day: '' })}>
              {t('share:options.noExpiry')}
            </button>
          ) : null}
        </TextField>
        <TextField
          label={uploads ? t('share:options.uploadLimit') : t('share:options.limit')}
          inputMode="numeric"
          autoComplete="off"
          value={form.limit}
          onChange={(limit) => change({ limit })}
          hint={t('share:options.limitHint')}
          error={invalid === 'limitInvalid' ? t('share:options.limitInvalid') : null}
        />
      </div>
      <div className="share-options__password">
        <p className="share-options__lock">
          {share.hasPassword ? <Lock size={15} aria-hidden="true" /> : <LockOpen size={15} aria-hidden="true" />}
          <span>{share.hasPassword ? t('share:options.hasPassword') : t('share:options.noPassword')}</span>
          {share.hasPassword ? (
            <button type="button" className="button button--ghost share-options__remove" disabled={edit.busy} onClick={removePassword}>
              {t('share:options.removePassword')}
            </button>
          ) : null}
        </p>
        <TextField
          label={share.hasPassword ? t('share:options.changePassword') : t('share:options.setPassword')}
          type="password"
          autoComplete="new-password"
          maxLength={1024}
          value={form.password}
          onChange={(password) => change({ password })}
          hint={share.hasPassword ? t('share:options.changePasswordHint') : t('share:options.setPasswordHint')}
        />
      </div>
      <FormProblem problem={edit.problem} />
      <FormProblem tone="ok" problem={edit.done} />
      <div className="share-options__actions">
        <button type="submit" className="button button--primary" disabled={edit.busy || !changed}>
          {t('share:options.save')}
        </button>
      </div>
    </form>
  );
}
