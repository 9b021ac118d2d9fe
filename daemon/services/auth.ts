/**
 * The auth API's services (docs/accounts.md, "The auth API"): sign-in, password change,
 * password reset, registration, and one's own sessions. The HTTP layer (handlers.ts) sets
 * and clears the cookie; everything here works on the store, sessions and mail.
 */
import type { Me, SessionInfo, User } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { ApiError, badRequest, notFound } from '../errors.js';
import { assertStrongPassword } from '../accounts/password-policy.js';
import type { LoginThrottle } from '../http/login-throttle.js';
import { hashPassword, hashSecret, newSecret, verifyPassword } from '../keys/secrets.js';
import type { StoredSession, StoredUser } from '../store/schema.js';
import { assertMayMailVerification, takeRegistration } from './caps.js';
import { isAdminUser, type Caller } from './keys.js';
import { catchUpOnMiss, requireUser, toUser } from './records.js';
import { createUser, dropResetsOf, userLock } from './users.js';
import { escapeHtml, sendVerification } from './verification.js';

/** Where a sign-in comes from: the client's address and a short name of its browser. */
export interface Client {
  address: string;
  device: string;
}

let dummyHash: Promise<string> | null = null;
/**
 * A fixed scrypt hash of a random password, made once: an unknown user's sign-in is verified
 * against it, so it takes as long as a wrong password and answers the same.
 */
export const dummyPasswordHash = (): Promise<string> => (dummyHash ??= hashPassword(newSecret()));

const invalidCredentials = () => new ApiError('invalid_credentials', 'Wrong username or password');

/**
 * One password attempt under the guessing limits: refused (429) while the username or the
 * address is blocked, else pending while `check` runs (so guesses sent at once count), then
 * settled as a failure or a success by its answer, or released when it throws.
 */
async function passwordAttempt(logins: LoginThrottle, username: string, address: string, check: () => Promise<boolean>): Promise<boolean> {
  const wait = logins.begin(username, address);
  if (wait > 0)
    throw new ApiError('too_many_attempts', 'Too many failed sign-ins; try again later', {
      'Retry-After': String(wait),
    });
  let passed: boolean;
  try {
    passed = await check();
  } catch (err) {
    logins.release(username, address);
    throw err;
  }
  if (passed) logins.succeed(username, address);
  else logins.fail(username, address);
  return passed;
}

/** Signs in: the new session and its cookie value. One 401 for an unknown user and a wrong password. */
export async function login(
  nimbus: NimbusContext,
  logins: LoginThrottle,
  username: string,
  password: string,
  client: Client,
): Promise<{ token: string; session: StoredSession; me: { user: User; admin: boolean } }> {
  let user: StoredUser | undefined;
  const passed = await passwordAttempt(logins, username, client.address, async () => {
    // With several daemons the account may have been made through another one a moment ago.
    // Caught up on every sign-in, not only on a miss, so an unknown name takes the same work
    // and time as a wrong password: one database round trip, next to scrypt's tens of ms.
    await nimbus.store.catchUp();
    const found = nimbus.store.users.get(username);
    // The same scrypt work whether or not the user exists.
    const matches = await verifyPassword(password, found?.passwordHash ?? (await dummyPasswordHash()));
    // Read again after the await: the user may have been deleted meanwhile.
    user = nimbus.store.users.get(username);
    return found !== undefined && matches && user?.passwordHash === found.passwordHash;
  });
  if (!passed || !user) throw invalidCredentials();
  const { token, session } = await nimbus.sessions.create(user.username, client.device, client.address);
  return { token, session, me: { user: toUser(nimbus, user), admin: isAdminUser(user) } };
}

/** Ends the caller's session (nothing to end for a key). */
export async function logout(nimbus: NimbusContext, caller: Caller): Promise<void> {
  if (caller.sessionId === null || caller.username === null) return;
  if (nimbus.sessions.endOne(caller.username, caller.sessionId)) await nimbus.store.commit();
}

export function me(nimbus: NimbusContext, caller: Caller): Me {
  const user = caller.username === null ? undefined : nimbus.store.users.get(caller.username);
  return { user: user ? toUser(nimbus, user) : null, admin: caller.admin };
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
    // A reset link asked for before is void: the password it would replace is no longer the one.
    dropResetsOf(nimbus, username);
    await nimbus.store.commit();
  });
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
  const matches = await passwordAttempt(logins, username, address, () =>
    verifyPassword(password, requireUser(nimbus, username).passwordHash),
  );
  if (!matches) throw new ApiError('invalid_credentials', 'The current password is wrong');
}

const RESET_VALID_MS = 60 * 60 * 1000;
const RESET_MAILS_PER_HOUR = 5;
/** Reset mails sent per user in the last hour (in memory: a restart forgets, which only allows more mail). */
const resetMails = new WeakMap<NimbusContext, Map<string, number[]>>();

function mayMailReset(nimbus: NimbusContext, username: string, now: number): boolean {
  let byUser = resetMails.get(nimbus);
  if (!byUser) resetMails.set(nimbus, (byUser = new Map()));
  const recent = (byUser.get(username) ?? []).filter((t) => now - t < RESET_VALID_MS);
  if (recent.length >= RESET_MAILS_PER_HOUR) {
    byUser.set(username, recent);
    return false;
  }
  recent.push(now);
  byUser.set(username, recent);
  if (byUser.size > 10_000) for (const [name, times] of byUser) if (times.every((t) => now - t >= RESET_VALID_MS)) byUser.delete(name);
  return true;
}

/**
 * Mails a reset link to the account named by `username` or `email`, if there is one with an
 * address; answers nothing either way, so nobody learns who has an account. A new link
 * replaces the user's earlier one; at most 5 mails per user per hour.
 */
export async function requestReset(nimbus: NimbusContext, username: string | undefined, email: string | undefined): Promise<void> {
  if (username === undefined && email === undefined) throw badRequest('Give a username or an e-mail address', 'missing_parameter');
  // An account made through another daemon a moment ago gets its mail too. Caught up whether or
  // not the name is known here, as a sign-in is: the answer's time must not tell who exists.
  await nimbus.store.catchUp();
  const now = Date.now();
  const wanted = email?.toLowerCase();
  const users = [...nimbus.store.users.values()].filter((u) =>
    username !== undefined
      ? u.username === username && (wanted === undefined || u.email.toLowerCase() === wanted)
      : u.email.toLowerCase() === wanted,
  );
  for (const user of users) {
    if (!user.email || !mayMailReset(nimbus, user.username, now)) continue;
    const token = newSecret(32);
    for (const [hash, reset] of nimbus.store.resets) if (reset.username === user.username) nimbus.store.resets.delete(hash);
    const hash = hashSecret(token);
    nimbus.store.resets.set(hash, { hash, username: user.username, expiresAt: new Date(now + RESET_VALID_MS).toISOString() });
    // Written and mailed after the answer: an account that exists must not take longer to
    // answer than one that does not (the token works at once: it is in memory). The log
    // says why a mail did not go out; the answer never does.
    void nimbus.store
      .commit()
      .then(() => mailReset(nimbus, user, token))
      .catch((err: Error) => nimbus.log(`Nimbus: the password reset mail could not be sent: ${err.message}`));
  }
}

function mailReset(nimbus: NimbusContext, user: StoredUser, token: string) {
  const link = `${nimbus.baseUrl}/reset?token=${token}`;
  return nimbus.mailer.send({
    to: user.email,
    subject: 'Reset your Nimbus password',
    text:
      `Hello ${user.username},\n\nsomeone (hopefully you) asked to reset your Nimbus password. Open this link to choose a new one:\n\n${link}\n\n` +
      'The link is valid for 1 hour and works once. If you did not ask for it, ignore this mail: your password stays as it is.\n',
    html:
      `<p>Hello ${escapeHtml(user.username)},</p><p>someone (hopefully you) asked to reset your Nimbus password.</p>` +
      `<p><a href="${link}">Choose a new password</a></p><p>The link is valid for 1 hour and works once. If you did not ask for it, ignore this mail.</p>`,
  });
}

/** Sets a new password from a reset token (used up here); every session of the user ends. */
export async function confirmReset(nimbus: NimbusContext, token: string, next: string): Promise<void> {
  const hash = hashSecret(token);
  // A link mailed by another daemon a moment ago: its reset (or its user) may not be here yet.
  await catchUpOnMiss(nimbus, () => {
    const made = nimbus.store.resets.get(hash);
    return made !== undefined && nimbus.store.users.has(made.username);
  });
  const entry = nimbus.store.resets.get(hash);
  const user = entry ? nimbus.store.users.get(entry.username) : undefined;
  if (!entry || !user || Date.parse(entry.expiresAt) <= Date.now()) {
    if (entry) {
      nimbus.store.resets.delete(hash);
      await nimbus.store.commit();
    }
    throw badRequest('This reset link is unknown, already used or expired; ask for a new one', 'invalid_token');
  }
  // A weak choice leaves the link usable for a better one.
  assertStrongPassword(next, user.username);
  const passwordHash = await hashPassword(next);
  await nimbus.locks.run(userLock(user.username), async () => {
    // Used once: a second request with the same token (even one racing this) finds nothing.
    if (!nimbus.store.resets.delete(hash)) throw badRequest('This reset link was already used', 'invalid_token');
    const now = requireUser(nimbus, user.username);
    nimbus.store.users.set(now.username, { ...now, passwordHash });
    nimbus.sessions.endAllOf(now.username);
    await nimbus.store.commit();
  });
}

/** Creates one's own account (role `user`), mails the verification link and signs in. */
export async function register(
  nimbus: NimbusContext,
  username: string,
  email: string,
  password: string,
  client: Client,
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
  await sendVerification(nimbus, username).catch((err: Error) =>
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
