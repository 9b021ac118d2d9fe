/**
 * What a person reads for a failed call. The daemon's messages are written for API clients
 * (DaneeCloud's clients pass them through), so some name parameters or flags — "pass
 * overwrite=true", "Parameter newname must be…". Those are reworded here, by error code.
 */

const BY_CODE: Readonly<Record<string, string>> = {
  file_exists: 'A file with that name already exists.',
  folder_exists: 'A folder with that name already exists.',
  user_exists: 'A user with that name already exists.',
  role_exists: 'A role with that name already exists.',
  key_exists: 'A key with that label already exists.',
  already_shared: 'This file is already shared.',
  unauthorized: 'The daemon did not accept this API key.',
  insufficient_scope: 'This API key may only read. Sign in with an admin key to make changes.',
  too_many_requests: 'Too many attempts. Wait a moment and try again.',
  payload_too_large: 'The request is too large.',
  invalid_credentials: 'The username or password is wrong.',
  registration_closed: 'This Nimbus does not take new accounts. Ask its administrator for one.',
  email_not_verified: 'Verify your e-mail address first: Settings sends the mail.',
  admin_only: 'Only an administrator can do that.',
  invalid_token: 'This link is no longer valid: it was used already, or it is more than an hour old. Ask for a new one.',
  cross_site_request: 'The request did not come from this Nimbus page. Reload the page and try again.',
  session_not_found: 'That session has already ended.',
};

/** "5 minutes", "1 minute", "40 seconds": how long to wait, rounded up to what a person counts. */
export function waitText(seconds: number): string {
  if (seconds < 60) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

/** The words for each parameter of the endpoint table, as a person knows them. */
const FIELD: Readonly<Record<string, string>> = {
  username: 'username',
  newusername: 'username',
  email: 'e-mail address',
  newemail: 'e-mail address',
  password: 'password',
  newpassword: 'password',
  file: 'file name',
  newname: 'new name',
  folder: 'folder name',
  name: 'name',
  badge: 'badge URL',
  maxStorage: 'quota',
  label: 'label',
  scope: 'scope',
  token: 'link',
};

const field = (parameter: string) => FIELD[parameter] ?? 'value';

/** The message for an error code and the daemon's message (and a 429's Retry-After, in seconds). */
export function userMessage(code: string, message: string, retryAfter: number | null = null): string {
  if (code === 'too_many_attempts') {
    const wait = retryAfter ? ` Try again in ${waitText(retryAfter)}.` : ' Wait a while and try again.';
    return `Too many failed sign-ins.${wait}`;
  }
  const known = BY_CODE[code];
  if (known) return known;
  if (code === 'missing_parameter' || code === 'invalid_parameter' || code === 'duplicate_parameter') {
    const missing = /^Missing parameter: (\w+)$/.exec(message);
    if (missing) return `The ${field(missing[1])} is missing.`;
    const twice = /^Parameter (\w+) is given twice/.exec(message);
    if (twice) return `The ${field(twice[1])} was sent twice with different values.`;
    const invalid = /^Parameter (\w+) (.+)$/.exec(message);
    if (invalid) return `The ${field(invalid[1])} ${invalid[2]}`;
  }
  return message;
}
