/**
 * A password checked where people sign in with one (docs/accounts.md, "Passwords"):
 * /api/auth/login, WebDAV's Basic and a share link's password page. The same work whether or
 * not the account exists (a dummy hash), and a hash in the old scrypt format, or an argon2id one
 * weaker than today's, that just verified is replaced by today's from the same password: the
 * store moves to argon2id as people sign in, through the store like any other edit (in a
 * cluster, PostgreSQL's row). Failing to store it never fails the sign-in.
 */
import type { NimbusContext } from '../context.js';
import { userLock } from '../services/users.js';
import type { StoredShare, StoredUser } from '../store/schema.js';
import { dummyPasswordHash, hashPassword, needsRehash, verifyPassword } from './password-hash.js';

/**
 * `username`'s record when `password` is theirs, else undefined (an unknown name after the
 * same work as a wrong password). Read again after the check: a password changed meanwhile
 * fails, and a hash that another sign-in replaced meanwhile (the same password rehashed, or a
 * new one) is checked again rather than trusted or refused unseen.
 */
export async function checkUserPassword(nimbus: NimbusContext, username: string, password: string): Promise<StoredUser | undefined> {
  const found = nimbus.store.users.get(username);
  const matches = await verifyPassword(password, found?.passwordHash ?? (await dummyPasswordHash()));
  if (!found || !matches) return undefined;
  const now = nimbus.store.users.get(username);
  if (!now) return undefined;
  if (now.passwordHash !== found.passwordHash) {
    const still = (await verifyPassword(password, now.passwordHash)) && nimbus.store.users.get(username)?.passwordHash === now.passwordHash;
    return still ? now : undefined;
  }
  if (!needsRehash(now.passwordHash)) return now;
  return (await rehashUser(nimbus, username, password, now.passwordHash)) ?? now;
}

/** Stores today's hash of a password that just verified against `verified`; the record written, or undefined when it was not. */
async function rehashUser(nimbus: NimbusContext, username: string, password: string, verified: string): Promise<StoredUser | undefined> {
  try {
    // Hashed outside the lock: edits of this user do not wait for it.
    const passwordHash = await hashPassword(password);
    return await nimbus.locks.run(userLock(username), async () => {
      // With several daemons: another may have changed the record (a role, an e-mail) a moment
      // ago, and writing over a stale copy would undo that.
      await nimbus.store.catchUp();
      const now = nimbus.store.users.get(username);
      // Changed meanwhile (a new password, or another sign-in's rehash): left as it is.
      if (now?.passwordHash !== verified) return undefined;
      const upgraded: StoredUser = { ...now, passwordHash };
      nimbus.store.users.set(username, upgraded);
      await nimbus.store.commit();
      return upgraded;
    });
  } catch (err) {
    nimbus.log(`Nimbus: ${username}'s password hash was not brought to argon2id (${(err as Error).message}); the next sign-in tries again`);
    return undefined;
  }
}

/**
 * The link as stored once its password was given right (`share`, read after the check): an
 * outdated hash replaced by today's from the same password. The link's unlock cookies are keyed
 * by its hash (share-options.ts, `unlockValue`), so other browsers that had given the password
 * are asked for it once more; this browser's cookie is made from the new one.
 */
export async function upgradeLinkPassword(nimbus: NimbusContext, share: StoredShare, password: string): Promise<StoredShare> {
  const verified = share.passwordHash;
  if (verified === undefined || !needsRehash(verified)) return share;
  try {
    const passwordHash = await hashPassword(password);
    await nimbus.store.catchUp();
    // No await from this read to the write: the link as it is now, unless its password changed meanwhile.
    const current = nimbus.store.sharesByToken.get(share.token);
    if (current?.passwordHash !== verified) return share;
    const upgraded: StoredShare = { ...current, passwordHash };
    nimbus.store.putShare(upgraded, current);
    await nimbus.store.commit();
    return upgraded;
  } catch (err) {
    nimbus.log(`Nimbus: a share link's password hash was not brought to argon2id (${(err as Error).message}); the next unlock tries again`);
    return nimbus.store.sharesByToken.get(share.token) ?? share;
  }
}
