/**
 * Password reset by e-mail (docs/accounts.md, "The auth API"): a link asked for by name or
 * address, mailed without telling whether the account exists, and the new password it sets.
 */
import type { UiLanguage } from '../../shared/languages.js';
import type { NimbusContext } from '../context.js';
import { badRequest, invalidToken } from '../errors.js';
import { assertStrongPassword } from '../accounts/password-policy.js';
import { hashPassword, hashSecret, newSecret } from '../keys/secrets.js';
import type { StoredUser } from '../store/schema.js';
import { catchUpOnMiss, requireUser } from './records.js';
import { userLock } from './users.js';
import { mailWords } from './mail-words.js';
import { escapeHtml } from './verification.js';
import { WindowCap } from '../util/window-cap.js';
import { passwordCredential } from './standing.js';

const RESET_VALID_MS = 60 * 60 * 1000;
const RESET_MAILS_PER_HOUR = 5;
/** Reset mails sent per user in the last hour, per daemon (in memory: a restart forgets, which only allows more mail). */
const resetMails = new WeakMap<NimbusContext, WindowCap>();

function mayMailReset(nimbus: NimbusContext, username: string, now: number): boolean {
  let cap = resetMails.get(nimbus);
  if (!cap) resetMails.set(nimbus, (cap = new WindowCap(RESET_MAILS_PER_HOUR, RESET_VALID_MS)));
  return cap.take(username, now) === 0;
}

/**
 * Mails a reset link to the account named by `username` or `email`, if there is one with an
 * address; answers nothing either way, so nobody learns who has an account. A new link
 * replaces the user's earlier one; at most 5 mails per user per hour. The mail is in `lang`,
 * the language of the request (the person who forgot is the one asking).
 */
export async function requestReset(
  nimbus: NimbusContext,
  username: string | undefined,
  email: string | undefined,
  lang: UiLanguage = 'en',
): Promise<void> {
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
      .then(() => mailReset(nimbus, user, token, lang))
      .catch((err: Error) => nimbus.log(`Nimbus: the password reset mail could not be sent: ${err.message}`));
  }
}

function mailReset(nimbus: NimbusContext, user: StoredUser, token: string, lang: UiLanguage) {
  const link = `${nimbus.baseUrl}/reset?token=${token}`;
  const w = mailWords(lang);
  return nimbus.mailer.send({
    to: user.email,
    language: lang,
    subject: w.resetSubject,
    text: `${w.hello(user.username)}\n\n${w.resetLead} ${w.resetOpen}\n\n${link}\n\n${w.resetValid} ${w.resetIgnore}\n`,
    html:
      `<p>${escapeHtml(w.hello(user.username))}</p><p>${escapeHtml(w.resetLead)}</p>` +
      `<p><a href="${link}">${escapeHtml(w.resetButton)}</a></p><p>${escapeHtml(w.resetValid)} ${escapeHtml(w.resetIgnore)}</p>`,
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
    throw invalidToken('This reset link is unknown, already used or expired; ask for a new one');
  }
  // A weak choice leaves the link usable for a better one.
  assertStrongPassword(next, user.username);
  const passwordHash = await hashPassword(next);
  await nimbus.locks.run(userLock(user.username), async () => {
    // Used once: a second request with the same token (even one racing this) finds nothing.
    if (!nimbus.store.resets.delete(hash)) throw invalidToken('This reset link was already used');
    const now = requireUser(nimbus, user.username);
    nimbus.store.users.set(now.username, { ...now, passwordHash });
    nimbus.sessions.endAllOf(now.username);
    nimbus.revocations.revoke(passwordCredential(now));
    await nimbus.store.commit();
  });
}
