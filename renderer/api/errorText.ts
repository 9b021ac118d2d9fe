/**
 * What a person reads for a failed call. The daemon's messages are written for API clients
 * (DaneeCloud's clients pass them through), so some name parameters or flags — "pass
 * overwrite=true", "Parameter newname must be…". Those are reworded here, by error code, in
 * the UI's language (namespace `errors`). In English a daemon message already written for
 * people is kept as it is; in the other languages the common codes are translated, since
 * the daemon always answers in English.
 */
import i18next from 'i18next';
import { currentLanguage } from '../i18n/index.js';

/** Codes whose daemon message is reworded in every language. */
const REWORDED = new Set([
  'file_exists',
  'folder_exists',
  'user_exists',
  'role_exists',
  'key_exists',
  'already_shared',
  'unauthorized',
  'insufficient_scope',
  'too_many_requests',
  'payload_too_large',
  'invalid_credentials',
  'registration_closed',
  'email_not_verified',
  'admin_only',
  'invalid_token',
  'cross_site_request',
  'session_not_found',
  // A WebDAV client's lock: the daemon's message speaks of lock tokens, which a person never sees.
  'locked',
]);

/** Codes whose daemon message is fine in English but needs a translation elsewhere. */
const TRANSLATED = new Set([
  'file_not_found',
  'folder_not_found',
  'user_not_found',
  'role_not_found',
  'key_not_found',
  'trash_item_not_found',
  'name_case_conflict',
  'quota_exceeded',
  'role_in_use',
  'weak_password',
  'name_unavailable',
  'cannot_preview',
  'internal',
  'unreachable',
]);

/** The parameters of the endpoint table, by the words a person knows them by. */
const FIELD: Readonly<Record<string, string>> = {
  username: 'username',
  newusername: 'username',
  email: 'email',
  newemail: 'email',
  password: 'password',
  newpassword: 'password',
  file: 'file',
  newname: 'newname',
  folder: 'folder',
  name: 'name',
  badge: 'badge',
  maxStorage: 'maxStorage',
  label: 'label',
  scope: 'scope',
  token: 'token',
};

const field = (parameter: string) => i18next.t(`errors:field.${FIELD[parameter] ?? 'value'}`);

/** "5 minutes", "1 minute", "40 seconds": how long to wait, rounded up to what a person counts. */
export function waitText(seconds: number): string {
  if (seconds < 60) return i18next.t('errors:seconds', { count: seconds });
  return i18next.t('errors:minutes', { count: Math.ceil(seconds / 60) });
}

/** The message for an error code and the daemon's message (and a 429's Retry-After, in seconds). */
export function userMessage(code: string, message: string, retryAfter: number | null = null): string {
  if (code === 'too_many_attempts') {
    const wait = retryAfter ? i18next.t('errors:tryAgainIn', { wait: waitText(retryAfter) }) : i18next.t('errors:waitAWhile');
    return `${i18next.t('errors:tooManySignIns')} ${wait}`;
  }
  if (REWORDED.has(code)) return i18next.t(`errors:code.${code}`);
  if (code === 'missing_parameter' || code === 'invalid_parameter' || code === 'duplicate_parameter') {
    const missing = /^Missing parameter: (\w+)$/.exec(message);
    if (missing) return i18next.t('errors:missing', { field: field(missing[1]) });
    const twice = /^Parameter (\w+) is given twice/.exec(message);
    if (twice) return i18next.t('errors:twice', { field: field(twice[1]) });
    // The rule itself comes from the daemon (shared/validation.ts), in English.
    const invalid = /^Parameter (\w+) (.+)$/.exec(message);
    if (invalid) return i18next.t('errors:invalid', { field: field(invalid[1]), rule: invalid[2] });
  }
  if (currentLanguage() !== 'en' && TRANSLATED.has(code)) return i18next.t(`errors:daemon.${code}`);
  return message;
}
