/**
 * What a person reads for a failed call. The daemon's messages are written for API clients
 * (DaneeCloud's clients pass them through), so some name parameters or flags — "pass
 * overwrite=true", "Parameter newname must be…". Those are reworded here, by error code, in
 * the UI's language (namespace `errors`). In English a daemon message already written for
 * people is kept as it is; in the other languages every code is said in the language (its own
 * words, or general ones for its status), since the daemon always answers in English.
 */
import i18next from 'i18next';
import { ERROR_STATUS } from '../../shared/errors.js';
import { FILE_NAME_REFUSED_CHARACTERS } from '../../shared/validation.js';
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

// shared/validation's rules (file and account names, e-mail addresses, passwords) are English (they are the daemon's 400s too); found by
// their wording, they are said in the UI's language. In English the words are the same.
const NAME_RULES: readonly [RegExp, string][] = [
  [/^must be 1–255 bytes long$/, 'length'],
  [/^must not be "\." or "\.\."$/, 'dots'],
  [/^must not contain /, 'characters'],
  [/^must not end with a dot or a space$/, 'trailing'],
  [/reserved device name/, 'device'],
  [/^must not be a reserved name/, 'reserved'],
  [/^must be 1–64 characters: letters, digits/, 'accountName'],
  [/^must not end with a dot$/, 'trailingDot'],
  [/^must be an e-mail address/, 'email'],
  [/^must be at least 8 characters$/, 'passwordShort'],
  [/^must be at most 1024 characters$/, 'passwordLong'],
];

/** A name rule ("must not end with a dot or a space") in the UI's language; one it does not know, in general words. */
export function ruleText(rule: string): string {
  const key = NAME_RULES.find(([pattern]) => pattern.test(rule))?.[1];
  if (key) return i18next.t(`errors:rule.${key}`, { characters: FILE_NAME_REFUSED_CHARACTERS });
  return currentLanguage() === 'en' ? rule : i18next.t('errors:rule.other');
}

/** The general words for a code with none of its own, by the status it answers (a 4xx, a 5xx). */
function statusText(code: string): string {
  const status: number = (ERROR_STATUS as Record<string, number>)[code] ?? Number(/^http_(\d+)$/.exec(code)?.[1] ?? 0);
  const group = [400, 403, 404, 409].includes(status) ? String(status) : status === 401 ? '403' : status >= 500 ? '5xx' : 'other';
  return i18next.t(`errors:status.${group}`);
}

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
    if (invalid) return i18next.t('errors:invalid', { field: field(invalid[1]), rule: ruleText(invalid[2]) });
  }
  if (currentLanguage() === 'en') return message;
  // The daemon answers in English: another language never shows its words, only ours.
  if (TRANSLATED.has(code) || i18next.exists(`errors:daemon.${code}`)) return i18next.t(`errors:daemon.${code}`);
  return statusText(code);
}
