/**
 * The rules for a password a user chooses (`auth.register`, `auth.password`,
 * `auth.reset.confirm`; docs/accounts.md, "Passwords"): at least 8 characters, not the
 * username (ignoring case), not one of the 10,000 most common passwords (zxcvbn's list,
 * common-passwords.txt beside this module; `npm run build` copies it next to the compiled
 * one). A password an admin sets keeps the API's old rule (shared/validation.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { badRequest } from '../errors.js';

export const COMMON_PASSWORDS_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'common-passwords.txt');

let common: Set<string> | null = null;

/** The list, read once, on first use (lowercase, one a line). */
function commonPasswords(): Set<string> {
  common ??= new Set(
    readFileSync(COMMON_PASSWORDS_FILE, 'utf8')
      .split('\n')
      .map((line) => line.trim().toLowerCase())
      .filter(Boolean),
  );
  return common;
}

/** Why `password` may not be chosen by `username`, or null when it may. */
export function weakPasswordReason(password: string, username: string): string | null {
  if ([...password].length < 8) return 'The password must have at least 8 characters';
  if (password.length > 1024) return 'The password must have at most 1024 characters';
  if (password.toLowerCase() === username.toLowerCase()) return 'The password must not be the username';
  if (commonPasswords().has(password.toLowerCase())) return 'The password is one of the 10,000 most common passwords; choose another';
  return null;
}

/** Throws 400 `weak_password`, saying which rule, unless `username` may choose `password`. */
export function assertStrongPassword(password: string, username: string): void {
  const reason = weakPasswordReason(password, username);
  if (reason) throw badRequest(reason, 'weak_password');
}
