import { useId, useState, type FormEvent } from 'react';
import type { User } from '../../../shared/types';
import { NAME_RULE, PASSWORD_RULE, checkAccountName, checkEmail, checkPassword, type Checked } from '../../../shared/validation';
import { Dialog } from '../Dialog/Dialog';
import { TextField } from '../TextField/TextField';

export interface UserFormValues {
  username: string;
  email: string;
  password: string;
}

interface UserDialogProps {
  /** The user being edited; absent to create one. */
  user?: User;
  /** Resolves true when saved (the dialog closes). */
  onSubmit: (values: UserFormValues) => Promise<boolean>;
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
export function UserDialog({ user, onSubmit, onClose }: UserDialogProps) {
  const editing = user !== undefined;
  const checks = editing ? { ...CHECKS, password: keepPassword } : CHECKS;
  const [values, setValues] = useState<UserFormValues>({ username: user?.username ?? '', email: user?.email ?? '', password: '' });
  const [touched, setTouched] = useState<Record<Field, boolean>>({ username: false, email: false, password: false });
  const [busy, setBusy] = useState(false);
  const formId = useId();

  const problem = (field: Field): string | null => {
    const checked = checks[field](values[field]);
    return checked.ok
      ? null
      : `${field === 'email' ? 'The e-mail' : field === 'password' ? 'The password' : 'The username'} ${checked.message}`;
  };
  const shown = (field: Field) => (touched[field] ? problem(field) : null);
  const set = (field: Field) => (value: string) => setValues((old) => ({ ...old, [field]: value }));
  const touch = (field: Field) => () => setTouched((old) => ({ ...old, [field]: true }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    setTouched({ username: true, email: true, password: true });
    if ((['username', 'email', 'password'] as const).some((field) => problem(field))) return;
    setBusy(true);
    const saved = await onSubmit(values);
    setBusy(false);
    if (saved) onClose();
  }

  return (
    <Dialog
      title={editing ? `Edit ${user.username}` : 'New user'}
      onClose={onClose}
      footer={
        <>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" form={formId} className="button button--primary" disabled={busy}>
            {editing ? 'Save changes' : 'Create user'}
          </button>
        </>
      }
    >
      <form id={formId} onSubmit={submit} noValidate>
        <TextField
          label="Username"
          value={values.username}
          onChange={set('username')}
          onBlur={touch('username')}
          hint={NAME_RULE}
          error={shown('username')}
          autoComplete="off"
          spellCheck={false}
        />
        <TextField
          label="E-mail"
          type="email"
          value={values.email}
          onChange={set('email')}
          onBlur={touch('email')}
          hint="Where the verification e-mail goes."
          error={shown('email')}
          autoComplete="off"
        />
        <TextField
          label={editing ? 'New password' : 'Password'}
          type="password"
          value={values.password}
          onChange={set('password')}
          onBlur={touch('password')}
          hint={
            editing ? `Optional: leave it empty to keep the current password (a new one needs ${PASSWORD_RULE}).` : `At least 8 characters.`
          }
          error={shown('password')}
          autoComplete="new-password"
        />
      </form>
    </Dialog>
  );
}
