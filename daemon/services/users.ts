import type { User } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { conflict } from '../errors.js';
import { hashPassword } from '../keys/secrets.js';
import { foldName } from '../storage/file-index.js';
import type { StoredUser } from '../store/schema.js';
import { releaseLocksWithin } from './dav-locks.js';
import { dropDeadProps, moveUserDeadProps } from './dav-props.js';
import { dropKeysOf, moveKeysOf } from './keys.js';
import { requireRole, requireUser, toUser } from './records.js';
import { dropTrashOf, moveTrashOf, removeTrashDirOf } from './trash.js';
import { passwordCredential } from './standing.js';
import { followUser } from './version-follow.js';

// By the folded name: `Ana` and `ana` are one directory on a case-insensitive disk, so
// creating one and creating or renaming to the other must not run at once.
export const userLock = (username: string) => `user:${foldName(username)}`;

/** Refuses `username` when another user (not `self`, who may change the case of their own name) differs from it only in case. */
function assertNoCaseTwin(nimbus: NimbusContext, username: string, self?: string): void {
  const twin = nimbus.index.caseFolds.twin(nimbus.store.users, username, self);
  if (twin !== undefined) throw conflict('name_case_conflict', `A user named '${twin}' already exists; names may not differ only in case`);
}

export function getUser(nimbus: NimbusContext, username: string): User {
  return toUser(nimbus, requireUser(nimbus, username));
}

export function listUsers(nimbus: NimbusContext): User[] {
  return [...nimbus.store.users.values()].map((u) => toUser(nimbus, u));
}

/**
 * Creates a user. An admin's creation adopts a directory already in storage under the name (a
 * restored backup: README, "Accounts"); a self-registration (`adopt` false) must start empty
 * and is refused (409 name_unavailable) otherwise.
 */
export function createUser(nimbus: NimbusContext, username: string, email: string, password: string, adopt = true): Promise<User> {
  return nimbus.locks.run(userLock(username), async () => {
    if (nimbus.store.users.has(username)) throw conflict('user_exists', 'User already exists');
    assertNoCaseTwin(nimbus, username);
    const passwordHash = await hashPassword(password);
    await (adopt ? nimbus.storage.ensureUserDir(username) : nimbus.storage.claimUserDir(username));
    let user: StoredUser;
    try {
      // Another daemon may have given the name (or a case twin) away a moment ago: a 409 that
      // says so, rather than the database's refusal of a second row (a bare `conflict`).
      await nimbus.store.catchUp();
      if (nimbus.store.users.has(username)) throw conflict('user_exists', 'User already exists');
      assertNoCaseTwin(nimbus, username);
      user = { username, email, role: 'user', emailVerified: false, createdAt: new Date().toISOString(), passwordHash };
      nimbus.store.users.set(username, user);
      nimbus.index.caseFolds.added(nimbus.store.users, username);
      nimbus.orphans.delete(username);
      await nimbus.store.commit();
    } catch (err) {
      // A registration's empty directory would keep the name taken (409 name_unavailable) for
      // ever; an admin's creation adopted what was there and leaves it as it was.
      if (!adopt && !nimbus.store.users.has(username)) await nimbus.storage.unclaimUserDir(username).catch(() => undefined);
      throw err;
    }
    // A directory of that name that was already there (an orphan) now belongs to the user.
    await nimbus.storage.rescanUser(username);
    return toUser(nimbus, user);
  });
}

/**
 * Deletes the user's record, shares, verification and reset tokens, sessions, personal
 * keys (the last two revoked at once) and trash records, then their files and trash. The
 * storage takes the files away from the user's name before the records' commit and deletes
 * them after it, so a crash at any step leaves nothing a new account of that name could claim.
 */
export function deleteUser(nimbus: NimbusContext, username: string): Promise<void> {
  return nimbus.locks.run(userLock(username), async () => {
    const instance = requireUser(nimbus, username).createdAt;
    await nimbus.storage.deleteUser(username, {
      instance,
      commit: async () => {
        nimbus.store.users.delete(username);
        nimbus.index.caseFolds.removed(nimbus.store.users, username);
        dropSharesOf(nimbus, username);
        for (const [hash, v] of nimbus.store.verifications) if (v.username === username) nimbus.store.verifications.delete(hash);
        dropResetsOf(nimbus, username);
        nimbus.sessions.endAllOf(username);
        dropKeysOf(nimbus, username);
        // After the files left: a delete to the trash that was running has its record by now.
        dropTrashOf(nimbus, username);
        // WebDAV's state of every path of theirs ('' is their root, above all of it).
        releaseLocksWithin(nimbus, username, '');
        dropDeadProps(nimbus, username, '');
        await followUser(nimbus, username, null);
        await nimbus.store.commit();
      },
    });
    // After the files: a delete to the trash still running holds the user's directory until then.
    await removeTrashDirOf(nimbus, username);
  });
}

/**
 * Renames a user and sets their e-mail; the password changes only when a new one is given.
 * A rename or a new password ends every session of the user; those and a new e-mail void any
 * pending password reset; a renamed user's personal keys follow the new name.
 */
export function editUser(
  nimbus: NimbusContext,
  username: string,
  newUsername: string,
  newEmail: string,
  newPassword?: string,
): Promise<User> {
  return nimbus.locks.run([userLock(username), userLock(newUsername)], async () => {
    requireUser(nimbus, username);
    const renaming = newUsername !== username;
    if (renaming && nimbus.store.users.has(newUsername)) throw conflict('user_exists', 'A user with that name already exists');
    if (renaming) assertNoCaseTwin(nimbus, newUsername, username);
    const newHash = newPassword === undefined ? null : await hashPassword(newPassword);
    if (renaming) await nimbus.storage.renameUser(username, newUsername);
    // The trash goes with them (its directory now, its records with this commit).
    if (renaming) await moveTrashOf(nimbus, username, newUsername);
    // Read the record again after the awaits: a role change may have landed meanwhile.
    const user = requireUser(nimbus, username);
    const emailChanged = newEmail !== user.email;
    const updated: StoredUser = {
      ...user,
      username: newUsername,
      email: newEmail,
      emailVerified: emailChanged ? false : user.emailVerified,
      passwordHash: newHash ?? user.passwordHash,
    };
    nimbus.store.users.delete(username);
    nimbus.store.users.set(newUsername, updated);
    if (renaming) {
      nimbus.index.caseFolds.removed(nimbus.store.users, username);
      nimbus.index.caseFolds.added(nimbus.store.users, newUsername);
    }
    if (renaming) moveSharesOf(nimbus, username, newUsername);
    if (renaming || newHash !== null) nimbus.sessions.endAllOf(username);
    // What a WebDAV client signed in with the old password (or name) has open closes too.
    if (renaming || newHash !== null) nimbus.revocations.revoke(passwordCredential(user));
    // A reset link mailed to the old address must not outlive it, nor one asked for before a new password.
    if (renaming || newHash !== null || emailChanged) dropResetsOf(nimbus, username);
    if (renaming) moveKeysOf(nimbus, username, newUsername);
    // Every resource moved: its dead properties follow, its WebDAV locks do not (RFC 4918 §7.4, as for a folder's move).
    if (renaming) releaseLocksWithin(nimbus, username, '');
    if (renaming) moveUserDeadProps(nimbus, username, newUsername);
    if (renaming) await followUser(nimbus, username, newUsername);
    for (const [hash, v] of nimbus.store.verifications) {
      if (v.username !== username) continue;
      if (emailChanged) nimbus.store.verifications.delete(hash);
      else nimbus.store.verifications.set(hash, { ...v, username: newUsername });
    }
    await nimbus.store.commit();
    return toUser(nimbus, updated);
  });
}

export async function setUserRole(nimbus: NimbusContext, username: string, roleName: string): Promise<User> {
  const user = requireUser(nimbus, username);
  requireRole(nimbus, roleName);
  const updated: StoredUser = { ...user, role: roleName };
  nimbus.store.users.set(username, updated);
  await nimbus.store.commit();
  return toUser(nimbus, updated);
}

/** Voids every pending password-reset link of the user; the caller commits. */
export function dropResetsOf(nimbus: NimbusContext, username: string): void {
  for (const [hash, reset] of nimbus.store.resets) if (reset.username === username) nimbus.store.resets.delete(hash);
}

function dropSharesOf(nimbus: NimbusContext, username: string): void {
  for (const share of [...nimbus.store.sharesByToken.values()]) {
    if (share.username === username) nimbus.store.deleteShare(share);
  }
}

function moveSharesOf(nimbus: NimbusContext, from: string, to: string): void {
  for (const share of [...nimbus.store.sharesByToken.values()]) {
    if (share.username === from) nimbus.store.putShare({ ...share, username: to }, share);
  }
}
