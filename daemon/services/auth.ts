/**
 * The auth API's services (docs/accounts.md, "The auth API"): sign-in, password change,
 * registration, and one's own sessions (password reset: password-reset.ts). The HTTP layer (handlers.ts) sets
 * and clears the cookie; everything here works on the store, sessions and mail.
 */
import type { UiLanguage } from '../../shared/languages.js';
import type { Me, SessionInfo, User } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { ApiError, notFound } from '../errors.js';
import { assertStrongPassword } from '../accounts/password-policy.js';
import type { LoginThrottle } from './login-throttle.js';
import { checkUserPassword } from '../keys/password-hash-check.js';
import { hashPassword, hashPresented, verifyPassword } from '../keys/secrets.js';
import type { StoredSession } from '../store/schema.js';
import { assertMayMailVerification, takeRegistration } from './caps.js';
import { isAdminUser, type Caller } from './keys.js';
import { requireUser, toUser } from './records.js';
import { createUser, dropResetsOf, userLock } from './users.js';
import { sendVerification } from './verification.js';
import { passwordCredential } from './standing.js';

/** Where a sign-in comes from: the client's address and a short name of its browser. */
export interface Client {
  address: string;
  device: string;
}

/** Made at start-up by http/app.ts (so the first unknown name costs no more than the next); kept in keys/password-hash.ts. */
export { dummyPasswordHash } from '../keys/password-hash.js';

const invalidCredentials = () => new ApiError('invalid_credentials', 'Wrong username or password');
const tooManyAttempts = (wait: number) =>
  new ApiError('too_many_attempts', 'Too many failed sign-ins; try again later', { 'Retry-After': String(wait) });

/**
 * One password attempt under the guessing limits (LoginThrottle.attempt): 429 while the
 * username or the address is blocked; the same password sent at once is one attempt, checked
 * once. Resolves to what `check` found, null for a wrong password.
 */
export async function passwordAttempt<T>(
  logins: LoginThrottle,
  username: string,
  address: string,
  password: string,
  check: () => Promise<T | null>,
): Promise<T | null> {
  const outcome = await logins.attempt(username, address, hashPresented(password), check);
  if ('refusedFor' in outcome) throw tooManyAttempts(outcome.refusedFor);
  return outcome.value;
}

/** Signs in: the new session and its cookie value. One 401 for an unknown user and a wrong password. */
export async function login(
  nimbus: NimbusContext,
  logins: LoginThrottle,
  username: string,
  password: string,
  client: Client,
): Promise<{ token: string; session: StoredSession; me: { user: User; admin: boolean } }> {
  const user = await passwordAttempt(logins, username, client.address, password, async () => {
    // With several daemons the account may have been made through another one a moment ago.
    // Caught up on every sign-in, not only on a miss, so an unknown name takes the same work
    // and time as a wrong password: one database round trip, next to argon2id's milliseconds.
    await nimbus.store.catchUp();
    // The same argon2id work whether or not the user exists; an old scrypt hash that passes is
    // replaced by an argon2id one before the answer (keys/password-hash-check.ts).
    return (await checkUserPassword(nimbus, username, password)) ?? null;
  });
  if (!user) throw invalidCredentials();
  const { token, session } = await nimbus.sessions.create(user.username, client.device, client.address);
  return { token, session, me: { user: toUser(nimbus, user), admin: isAdminUser(user) } };
}

/** Ends the caller's session (nothing to end for a key). */
export async function logout(nimbus: NimbusContext, caller: Caller): Promise<void> {
  if (caller.sessionId === null || caller.username === null) return;
  if (nimbus.sessions.endOne(caller.username, caller.sessionId)) await nimbus.store.commit();
}

/** Who is calling; `canWrite` lets the explorer hide what a `read` key would be refused. */
export function me(nimbus: NimbusContext, caller: Caller): Me {
  const user = caller.username === null ? undefined : nimbus.store.users.get(caller.username);
  return { user: user ? toUser(nimbus, user) : null, admin: caller.admin, canWrite: caller.canWrite };
}

function requireCallerUser(caller: Caller): string {
  if (caller.username === null)
    throw new ApiError('forbidden', 'The admin key and machine keys act as no user: there is no password of theirs to change');
  return caller.username;
}

/**
 * Changes the caller's own password, given the current one (a wrong one counts as a failed
 * sign-in); every other session of the user ends.
 */
export async function changePassword(
  nimbus: NimbusContext,
  logins: LoginThrottle,
  caller: Caller,
  current: string,
  next: string,
  address: string,
): Promise<void> {
  const username = requireCallerUser(caller);
  await confirmCurrentPassword(nimbus, logins, username, current, address);
  assertStrongPassword(next, username);
  const passwordHash = await hashPassword(next);
  await nimbus.locks.run(userLock(username), async () => {
    const now = requireUser(nimbus, username);
    nimbus.store.users.set(username, { ...now, passwordHash });
    nimbus.sessions.endAllOf(username, caller.sessionId);
    nimbus.revocations.revoke(passwordCredential(now));
    // A reset link asked for before is void: the password it would replace is no longer the one.
    dropResetsOf(nimbus, username);
    await nimbus.store.commit();
  });
}

/**
 * A signed-in session proving it is the person at the keyboard, with the current password:
 * `purpose` completes the refusal's sentence. Without one 403 `password_required`; a wrong one
 * 401 `invalid_credentials`, counted as a failed sign-in. Any other caller is not asked here.
 *
 * keys.create asks it of a session: a password change ends every session but not the keys, so
 * a session stolen for a moment (a cookie from a shared computer) could otherwise leave behind
 * a key that works for good. A key making a key (its holder has a key already) is not asked.
 */
export async function confirmSessionPassword(
  nimbus: NimbusContext,
  logins: LoginThrottle,
  caller: Caller,
  password: string | undefined,
  address: string,
  purpose: string,
): Promise<void> {
  if (caller.kind !== 'session' || caller.username === null) return;
  if (password === undefined) throw new ApiError('password_required', `Give your current password (\`password\`, in the body) ${purpose}`);
  await confirmCurrentPassword(nimbus, logins, caller.username, password, address);
}

/**
 * Checks `username`'s current password as auth.password does: a wrong one is 401
 * `invalid_credentials` and counts as a failed sign-in (429 `too_many_attempts` while blocked).
 */
export async function confirmCurrentPassword(
  nimbus: NimbusContext,
  logins: LoginThrottle,
  username: string,
  password: string,
  address: string,
): Promise<void> {
  const matches = await passwordAttempt(logins, username, address, password, async () =>
    (await verifyPassword(password, requireUser(nimbus, username).passwordHash)) ? true : null,
  );
  if (!matches) throw new ApiError('invalid_credentials', 'The current password is wrong');
}

/** Creates one's own account (role `user`), mails the verification link (in `lang`, the request's) and signs in. */
export async function register(
  nimbus: NimbusContext,
  username: string,
  email: string,
  password: string,
  client: Client,
  lang: UiLanguage = 'en',
): Promise<{ token: string; session: StoredSession; user: User }> {
  if (nimbus.config.registration !== 'open') throw registrationClosed();
  const giveBack = takeRegistration(nimbus, client.address);
  let user: User;
  try {
    assertStrongPassword(password, username);
    assertMayMailVerification(nimbus, email, null);
    // Never adopting what storage holds under the name: a stranger's files are not theirs (409 name_unavailable).
    user = await createUser(nimbus, username, email, password, false);
  } catch (err) {
    giveBack();
    throw err;
  }
  await sendVerification(nimbus, username, null, lang).catch((err: Error) =>
    nimbus.log(`Nimbus: the verification mail for a new account could not be sent: ${err.message}`),
  );
  const { token, session } = await nimbus.sessions.create(username, client.device, client.address);
  return { token, session, user: toUser(nimbus, requireUser(nimbus, user.username)) };
}

export const registrationClosed = () => new ApiError('registration_closed', 'Registration is closed: ask an administrator for an account');

/** The caller's own sessions (none for the admin key and machine keys). */
export function listSessions(nimbus: NimbusContext, caller: Caller): SessionInfo[] {
  if (caller.username === null) return [];
  return nimbus.sessions.listOf(caller.username).map((s) => ({
    id: s.id,
    device: s.device,
    address: s.address,
    createdAt: s.createdAt,
    lastUsedAt: s.lastUsedAt,
    current: s.id === caller.sessionId,
  }));
}

/** Ends one of the caller's own sessions; another's id is 404, as one that does not exist. */
export async function endSession(nimbus: NimbusContext, caller: Caller, id: string): Promise<void> {
  if (caller.username === null || !nimbus.sessions.endOne(caller.username, id)) throw notFound('session_not_found', 'Session not found');
  await nimbus.store.commit();
}
