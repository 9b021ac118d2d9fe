/**
 * The rules of a password a person chooses (docs/accounts.md, "Passwords"), checked before
 * sending where the page can: the length and the username. Whether it is one of the 10,000
 * most common is the daemon's to say (400 `weak_password`, its message naming the rule).
 */
import type { TFunction } from 'i18next';

/** The rule, shown under the field before anything is typed. */
export const passwordRule = (t: TFunction): string => t('signin:rules.password');

export function passwordProblem(password: string, username: string, t: TFunction): string | null {
  if (password.length < 8) return t('signin:rules.tooShort');
  if (username && password.toLowerCase() === username.toLowerCase()) return t('signin:rules.notUsername');
  return null;
}
