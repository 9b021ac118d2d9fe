import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { User } from '../../../shared/types';
import { checkAccountName, checkEmail, checkPassword, type Checked } from '../../../shared/validation';
import { useSaveThenClose } from '../Dialog/DialogButtons';
import { FormDialog } from '../Dialog/FormDialog';
import { CurrentPasswordField } from '../Settings/CurrentPasswordField';
import { TextField } from '../TextField/TextField';
import { checkText } from './checkText';

export interface UserFormValues {
  username: string;
  email: string;
  password: string;
}

interface UserDialogProps {
  /** The user being edited; absent to create one. */
  user?: User;
  /**
   * The signed-in user's own account: a new e-mail or password needs their current password,
   * as the daemon asks (a stolen session alone must not move the recovery address).
   */
  ownAccount?: boolean;
  /** Resolves true when saved (the dialog closes); `currentPassword` only when the edit needs it. */
  onSubmit: (values: UserFormValues, currentPassword?: string) => Promise<boolean>;
  onClose: () => void;
}

type Field = keyof UserFormValues;
const CHECKS: Record<Field, (raw: string) => Checked<unknown>> = {
  username: checkAccountName,
  email: checkEmail,
  password: checkPassword,
};
/** Editing: an empty password keeps the current one (the edit is sent without `newpassword`). */
const keepPassword = (raw: string): Checked<unknown> => (raw === '' ? { ok: true, value: raw } : checkPassword(raw));

/**
 * Create or edit a user. The rules come from shared/validation and show before
 * submit. Editing changes the password only when a new one is typed.
 */
export function UserDialog({ user, ownAccount = false, onSubmit, onClose }: UserDialogProps) {
  const { t } = useTranslation();
  const editing = user !== undefined;
  const checks = editing ? { ...CHECKS, password: keepPassword } : CHECKS;
  const [values, setValues] = useState<UserFormValues>({ username: user?.username ?? '', email: user?.email ?? '', password: '' });
  const [touched, setTouched] = useState<Record<Field, boolean>>({ username: false, email: false, password: false });
  const [current, setCurrent] = useState('');
  const [currentProblem, setCurrentProblem] = useState<string | null>(null);
  const { busy, save } = useSaveThenClose(onClose);

  const problem = (field: Field): string | null => checkText(t, field, checks[field](values[field]));
  const shown = (field: Field) => (touched[field] ? problem(field) : null);
  const set = (field: Field) => (value: string) => setValues((old) => ({ ...old, [field]: value }));
  const touch = (field: Field) => () => setTouched((old) => ({ ...old, [field]: true }));
  /** What each field of the form takes from it: its value, how it changes, and its problem once left. */
  const bind = (field: Field) => ({ value: values[field], onChange: set(field), onBlur: touch(field), error: shown(field) });

  async function submit(event: FormEvent) {
    event.preventDefault();
    setTouched({ username: true, email: true, password: true });
    if ((['username', 'email', 'password'] as const).some((field) => problem(field))) return;
    const needsCurrent = ownAccount && (values.email !== user?.email || values.password !== '');
    setCurrentProblem(needsCurrent && !current ? t('settings:password.enterCurrent') : null);
    if (needsCurrent && !current) return;
    await save(() => onSubmit(values, needsCurrent ? current : undefined));
  }

  return (
    <FormDialog
      title={editing ? t('admin:userDialog.editTitle', { user: user.username }) : t('admin:userDialog.newTitle')}
      submitLabel={editing ? t('admin:userDialog.save') : t('admin:userDialog.create')}
      busy={busy}
      onSubmit={submit}
      onClose={onClose}
    >
      <TextField
        label={t('admin:userDialog.username')}
        {...bind('username')}
        hint={t('admin:check.nameRule')}
        autoComplete="off"
        spellCheck={false}
      />
      <TextField
        label={t('admin:userDialog.email')}
        type="email"
        {...bind('email')}
        hint={t('admin:userDialog.emailHint')}
        autoComplete="off"
      />
      <TextField
        label={editing ? t('admin:userDialog.newPassword') : t('admin:userDialog.password')}
        type="password"
        {...bind('password')}
        hint={editing ? t('admin:userDialog.passwordHintEdit') : t('admin:userDialog.passwordHintNew')}
        autoComplete="new-password"
      />
      {ownAccount ? (
        <CurrentPasswordField value={current} onChange={setCurrent} error={currentProblem} hint={t('admin:userDialog.currentHint')} />
      ) : null}
    </FormDialog>
  );
}
