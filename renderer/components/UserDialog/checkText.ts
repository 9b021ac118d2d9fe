import type { TFunction } from 'i18next';
import type { Checked } from '../../../shared/validation';

export type CheckedField = 'username' | 'roleName' | 'email' | 'password' | 'quota' | 'badge';

// shared/validation answers in English (its words are the daemon's 400s too); the dialogs say
// the same in the UI's language, found by the message's wording. A message this list does not
// know yet is shown in English rather than not at all.
const REASONS: readonly [RegExp, string][] = [
  [/^must be 1–64 characters/, 'nameRule'],
  [/^must not end with a dot$/, 'endsWithDot'],
  [/reserved device name/, 'deviceName'],
  [/^must not be a reserved name/, 'reservedName'],
  [/e-mail address/, 'email'],
  [/^must be at least 8 characters/, 'passwordShort'],
  [/^must be at most 1024 characters/, 'passwordLong'],
  [/^must be at most 2048 characters/, 'urlLong'],
  [/http\(s\) URL/, 'url'],
  [/whole number of MB/, 'quota'],
];

/** What is wrong with a field, as a sentence in the UI's language; null when the value is fine. */
export function checkText(t: TFunction, field: CheckedField, checked: Checked<unknown>): string | null {
  if (checked.ok) return null;
  const reason = REASONS.find(([pattern]) => pattern.test(checked.message))?.[1];
  const key = `admin:check.${field}.${reason ?? ''}`;
  if (reason && t(key, { defaultValue: '' }) !== '') return t(key);
  return t('admin:check.fallback', { field: t(`admin:check.subject.${field}`), message: checked.message });
}
