/**
 * `POST /s/{token}`: the password of a share link that asks for one (docs/sharing.md,
 * "Passwords"). Guesses count in the sign-in throttle, per link and per address, as sign-ins
 * do per username. A right password gets a cookie for this link's path only and a 303 back to
 * the link; a wrong one, a link without a password, an unknown, revoked, expired or used-up
 * link all get the same 401 and the password page again, after the same argon2id work, so the
 * form tells nobody whether a link exists. A right password against a hash in the old scrypt
 * format replaces it with an argon2id one (keys/password-hash-check.ts).
 */
import { ApiError } from '../errors.js';
import { upgradeLinkPassword } from '../keys/password-hash-check.js';
import { hashPresented } from '../keys/secrets.js';
import { dummyPasswordHash, verifyPassword } from '../keys/password-hash.js';
import { catchUpOnMiss } from '../services/records.js';
import { liveShare } from '../services/share-links.js';
import { unlockValue } from '../services/share-options.js';
import { shareUnlockCookie } from './cookies.js';
import type { HandlerInput } from './handler-support.js';
import { passwordRequired } from './share-access.js';

export async function unlockShare({ nimbus, params, ctx, logins }: HandlerInput<'share.unlock'>): Promise<void> {
  const address = ctx.socket.remoteAddress ?? 'unknown';
  // The same password sent at once (a link posted to several people) is one attempt, checked once.
  const outcome = await logins.attempt(`share link ${params.token}`, address, hashPresented(params.password), async () => {
    await catchUpOnMiss(nimbus, () => nimbus.store.sharesByToken.has(params.token));
    const share = await liveShare(nimbus, params.token).catch(() => null);
    const matches = await verifyPassword(params.password, share?.passwordHash ?? (await dummyPasswordHash()));
    // Read again after the check: a password changed meanwhile is checked against the new one next time.
    const now = nimbus.store.sharesByToken.get(params.token);
    if (!matches || share === null || now === undefined || now.passwordHash !== share.passwordHash) return null;
    return upgradeLinkPassword(nimbus, now, params.password);
  });
  if ('refusedFor' in outcome)
    throw new ApiError('too_many_attempts', 'Too many wrong passwords; try again later', { 'Retry-After': String(outcome.refusedFor) });
  if (outcome.value === null) throw passwordRequired(params.token, true);
  ctx.set('Set-Cookie', shareUnlockCookie(params.token, unlockValue(outcome.value), nimbus.config.publicUrl));
  ctx.status = 303;
  ctx.set('Location', `/s/${encodeURIComponent(params.token)}`);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = '';
}
