import type { User } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { conflict } from '../errors.js';
import { hashPassword } from '../keys/secrets.js';
import { foldName } from '../storage/file-index.js';
import type { StoredUser } from '../store/schema.js';
import { requireRole, requireUser, toUser } from './records.js';

// By the folded name: `Ana` and `ana` are one directory on a case-insensitive disk, so
// creating one and creating or renaming to the other must not run at once.
const userLock = (username: string) => `user:${foldName(username)}`;

/** Refuses `username` when another user (not `self`, who may change the case of their own name) differs from it only in case. */
function assertNoCaseTwin(ctx: NimbusContext, username: string, self?: string): void {
  const twin = ctx.index.caseFolds.twin(ctx.store.users, username, self);
  if (twin !== undefined) throw conflict('name_case_conflict', `A user named '${twin}' already exists; names may not differ only in case`);
}

export function getUser(ctx: NimbusContext, username: string): User {
  return toUser(ctx, requireUser(ctx, username));
}

export function listUsers(ctx: NimbusContext): User[] {
  return [...ctx.store.users.values()].map((u) => toUser(ctx, u));
}

export function createUser(ctx: NimbusContext, username: string, email: string, password: string): Promise<User> {
  return ctx.locks.run(userLock(username), async () => {
    if (ctx.store.users.has(username)) throw conflict('user_exists', 'User already exists');
    assertNoCaseTwin(ctx, username);
    const passwordHash = await hashPassword(password);
    await ctx.storage.ensureUserDir(username);
    if (ctx.store.users.has(username)) throw conflict('user_exists', 'User already exists');
    const user: StoredUser = { username, email, role: 'user', emailVerified: false, createdAt: new Date().toISOString(), passwordHash };
    ctx.store.users.set(username, user);
    ctx.index.caseFolds.added(ctx.store.users, username);
    ctx.orphans.delete(username);
    await ctx.store.commit();
    // A directory of that name that was already there (an orphan) now belongs to the user.
    await ctx.storage.rescanUser(username);
    return toUser(ctx, user);
  });
}

/** Deletes the user's record, shares and verification tokens, then their files. */
export function deleteUser(ctx: NimbusContext, username: string): Promise<void> {
  return ctx.locks.run(userLock(username), async () => {
    requireUser(ctx, username);
    ctx.store.users.delete(username);
    ctx.index.caseFolds.removed(ctx.store.users, username);
    dropSharesOf(ctx, username);
    for (const [hash, v] of ctx.store.verifications) if (v.username === username) ctx.store.verifications.delete(hash);
    await ctx.store.commit();
    await ctx.storage.deleteUser(username);
  });
}

/** Renames a user and sets their e-mail; the password changes only when a new one is given. */
export function editUser(ctx: NimbusContext, username: string, newUsername: string, newEmail: string, newPassword?: string): Promise<User> {
  return ctx.locks.run([userLock(username), userLock(newUsername)], async () => {
    requireUser(ctx, username);
    const renaming = newUsername !== username;
    if (renaming && ctx.store.users.has(newUsername)) throw conflict('user_exists', 'A user with that name already exists');
    if (renaming) assertNoCaseTwin(ctx, newUsername, username);
    const newHash = newPassword === undefined ? null : await hashPassword(newPassword);
    if (renaming) await ctx.storage.renameUser(username, newUsername);
    // Read the record again after the awaits: a role change may have landed meanwhile.
    const user = requireUser(ctx, username);
    const emailChanged = newEmail !== user.email;
    const updated: StoredUser = {
      ...user,
      username: newUsername,
      email: newEmail,
      emailVerified: emailChanged ? false : user.emailVerified,
      passwordHash: newHash ?? user.passwordHash,
    };
    ctx.store.users.delete(username);
    ctx.store.users.set(newUsername, updated);
    if (renaming) {
      ctx.index.caseFolds.removed(ctx.store.users, username);
      ctx.index.caseFolds.added(ctx.store.users, newUsername);
    }
    if (renaming) moveSharesOf(ctx, username, newUsername);
    for (const [hash, v] of ctx.store.verifications) {
      if (v.username !== username) continue;
      if (emailChanged) ctx.store.verifications.delete(hash);
      else ctx.store.verifications.set(hash, { ...v, username: newUsername });
    }
    await ctx.store.commit();
    return toUser(ctx, updated);
  });
}

export async function setUserRole(ctx: NimbusContext, username: string, roleName: string): Promise<User> {
  const user = requireUser(ctx, username);
  requireRole(ctx, roleName);
  const updated: StoredUser = { ...user, role: roleName };
  ctx.store.users.set(username, updated);
  await ctx.store.commit();
  return toUser(ctx, updated);
}

function dropSharesOf(ctx: NimbusContext, username: string): void {
  for (const share of [...ctx.store.sharesByToken.values()]) {
    if (share.username === username) ctx.store.deleteShare(share);
  }
}

function moveSharesOf(ctx: NimbusContext, from: string, to: string): void {
  for (const share of [...ctx.store.sharesByToken.values()]) {
    if (share.username === from) ctx.store.putShare({ ...share, username: to }, share);
  }
}
