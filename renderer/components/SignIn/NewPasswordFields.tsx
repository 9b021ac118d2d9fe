import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { TextField } from '../TextField/TextField';
import { passwordProblem, passwordRule } from './passwordRules';

/** What the two fields hold: the new password, and the same typed again. */
export interface NewPasswords {
  next: string;
  again: string;
}

export const NO_PASSWORDS: NewPasswords = { next: '', again: '' };

/** Whether the two may be sent: the rules here pass the first, and the second is the same. */
export function newPasswordsReady({ next, again }: NewPasswords, username: string, t: TFunction): boolean {
  return passwordProblem(next, username, t) === null && again === next;
}

interface NewPasswordFieldsProps {
  /** Where the fields' words are: each of these has `new`, `again` and `mismatch`. */
  texts: 'signin:reset' | 'settings:password';
  /** The account's name, which the password may not be ('' where it is not known). */
  username: string;
  value: NewPasswords;
  onChange: (value: NewPasswords) => void;
  /** The person has tried to submit: the rules speak only from then on. */
  tried: boolean;
  /** The daemon's own word on the new password, when the rules here passed it. */
  refused?: string | null;
  autoFocus?: boolean;
  disabled?: boolean;
}

/** A new password, then the same again: the rule under the first, a mismatch under the second. */
export function NewPasswordFields({ texts, username, value, onChange, tried, refused, autoFocus, disabled }: NewPasswordFieldsProps) {
  const { t } = useTranslation();
  const { next, again } = value;
  const weak = tried ? passwordProblem(next, username, t) : null;
  const mismatch = tried && !weak && again !== next ? t(`${texts}.mismatch`) : null;
  // Both are new passwords, so a password manager offers to generate and save the first.
  const input = { type: 'password', autoComplete: 'new-password', disabled } as const;
  return (
    <>
      <TextField
        label={t(`${texts}.new`)}
        value={next}
        onChange={(typed) => onChange({ next: typed, again })}
        autoFocus={autoFocus}
        hint={passwordRule(t)}
        error={weak ?? refused ?? null}
        {...input}
      />
      <TextField
        label={t(`${texts}.again`)}
        value={again}
        onChange={(typed) => onChange({ next, again: typed })}
        error={mismatch}
        {...input}
      />
    </>
  );
}
