import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { Role } from '../../../shared/types';
import { checkAccountName, checkMaxStorage } from '../../../shared/validation';
import { checkText } from '../UserDialog/checkText';
import { useSaveThenClose } from '../Dialog/DialogButtons';
import { FormDialog } from '../Dialog/FormDialog';
import { useClient } from '../Session/sessionContext';
import { TextField } from '../TextField/TextField';
import { BadgePicker } from './BadgePicker';
import { badgeOf, checkDraft, draftOf, type BadgeDraft } from './badgeChoice';
import './RoleDialog.css';

export interface RoleFormValues {
  name: string;
  /** MiB, -1 for unlimited. */
  maxStorage: number;
  /** A path of the daemon's badges, an http(s) URL, or undefined: no badge. */
  badge: string | undefined;
}

interface RoleDialogProps {
  role?: Role;
  onSubmit: (values: RoleFormValues) => Promise<boolean>;
  onClose: () => void;
}

type Unit = 'MB' | 'GB';

function initialQuota(role: Role | undefined): { amount: string; unit: Unit; unlimited: boolean } {
  if (!role) return { amount: '1', unit: 'GB', unlimited: false };
  if (role.maxStorage < 0) return { amount: '1', unit: 'GB', unlimited: true };
  if (role.maxStorage >= 1024 && role.maxStorage % 1024 === 0)
    return { amount: String(role.maxStorage / 1024), unit: 'GB', unlimited: false };
  return { amount: String(role.maxStorage), unit: 'MB', unlimited: false };
}

/** Create or edit a role: name (fixed for built-in roles), quota in MiB or GiB, and a badge (BadgePicker). */
export function RoleDialog({ role, onSubmit, onClose }: RoleDialogProps) {
  const { t } = useTranslation();
  const quota0 = initialQuota(role);
  const [name, setName] = useState(role?.name ?? '');
  const [amount, setAmount] = useState(quota0.amount);
  const [unit, setUnit] = useState<Unit>(quota0.unit);
  const [unlimited, setUnlimited] = useState(quota0.unlimited);
  const client = useClient();
  // The daemon answers its own badges on its address: the page's, or the desktop shell's daemon.
  const [draft, setDraft] = useState<BadgeDraft>(() =>
    draftOf(role?.badge, [new URL(client.connection.baseUrl || '/', window.location.href).origin, window.location.origin]),
  );
  const [submitted, setSubmitted] = useState(false);
  const { busy, save } = useSaveThenClose(onClose);
  const unitId = useId();

  const megabytes = unlimited ? -1 : unit === 'GB' ? Number(amount) * 1024 : Number(amount);
  const nameCheck = checkAccountName(name);
  const quotaCheck = unlimited
    ? checkMaxStorage('-1')
    : /^\d+(\.\d+)?$/.test(amount.trim())
      ? checkMaxStorage(String(Math.round(megabytes)))
      : checkMaxStorage(amount);
  const badgeCheck = checkDraft(draft);
  const errors = {
    name: checkText(t, 'roleName', nameCheck),
    quota: checkText(t, 'quota', quotaCheck),
    badge: badgeCheck.ok
      ? null
      : badgeCheck.message === 'no picture'
        ? t('admin:badgePicker.needPicture')
        : checkText(t, 'badge', badgeCheck),
  };

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (errors.name || errors.quota || errors.badge || !quotaCheck.ok) return;
    const maxStorage = quotaCheck.value;
    await save(() => onSubmit({ name, maxStorage, badge: badgeOf(draft) }));
  }

  return (
    <FormDialog
      title={role ? t('admin:roleDialog.editTitle', { role: role.name }) : t('admin:roleDialog.newTitle')}
      submitLabel={role ? t('admin:roleDialog.save') : t('admin:roleDialog.create')}
      busy={busy}
      onSubmit={submit}
      onClose={onClose}
    >
      <TextField
        label={t('admin:roleDialog.name')}
        value={name}
        onChange={setName}
        disabled={role?.builtIn}
        hint={role?.builtIn ? t('admin:roleDialog.builtInName') : t('admin:check.nameRule')}
        error={submitted || name ? errors.name : null}
        autoComplete="off"
        spellCheck={false}
      />
      <div className="field">
        <span className="field__label" id={`${unitId}-label`}>
          {t('admin:roleDialog.quota')}
        </span>
        <div className="role-quota">
          <input
            className="input role-quota__amount"
            aria-label={t('admin:roleDialog.quotaAmount')}
            inputMode="numeric"
            value={unlimited ? '' : amount}
            disabled={unlimited}
            onChange={(event) => setAmount(event.target.value)}
            aria-invalid={errors.quota ? true : undefined}
          />
          <select
            className="select"
            aria-label={t('admin:roleDialog.quotaUnit')}
            value={unit}
            disabled={unlimited}
            onChange={(event) => setUnit(event.target.value as Unit)}
          >
            {/* The values stay MB and GB (what the form has always sent); a role's quota is in binary units. */}
            <option value="MB">MiB</option>
            <option value="GB">GiB</option>
          </select>
          <label className="role-quota__unlimited">
            <input type="checkbox" checked={unlimited} onChange={(event) => setUnlimited(event.target.checked)} />
            {t('admin:roleDialog.unlimited')}
          </label>
        </div>
        {errors.quota ? <p className="field__error">{errors.quota}</p> : <p className="field__hint">{t('admin:roleDialog.quotaHint')}</p>}
      </div>
      <BadgePicker draft={draft} onChange={setDraft} error={submitted || (draft.kind === 'url' && draft.url) ? errors.badge : null} />
    </FormDialog>
  );
}
