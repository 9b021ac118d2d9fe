/**
 * WebDAV's write locks (RFC 4918 §6–7, docs/webdav.md "Locks and properties"): exclusive or
 * shared, depth 0 or infinity, with a timeout. They are records of the store (`davLocks`), so
 * they survive a restart and every daemon of a cluster honours them; the services refuse the
 * writes they forbid (lock-tokens.ts, `requireUnlocked`), whoever calls, the API included.
 * An expired lock is never honoured nor listed; it is removed at the user's next lock change
 * or by the hourly sweep (`sweepExpiredLocks`), never by a timer of its own.
 */
import { randomUUID } from 'node:crypto';
import type { NimbusContext } from '../context.js';
import { ApiError, databaseBusy, databaseUnavailable } from '../errors.js';
import type { StoredDavLock } from '../store/schema.js';
import { pathLock } from './name-locks.js';
import { requireUser } from './records.js';

export type DavLock = StoredDavLock;

/** What a LOCK asks for: the lock's own fields but its token and times, which the grant makes. */
export type LockRequest = Pick<DavLock, 'username' | 'path' | 'depth' | 'scope' | 'owner' | 'timeoutSeconds'>;

/** The longest a lock is granted (an hour; `Infinite` gets this), and the shortest (a second). */
export const MAX_LOCK_SECONDS = 3600;
const MIN_LOCK_SECONDS = 1;

/** Lock changes of one user run one at a time in this daemon: a conflict check and its write are one step. */
const lockChanges = (username: string) => `davlocks:${username}`;

/** Whether `path` is `folder` or below it ('' is the user's root, above everything). */
export const isWithin = (path: string, folder: string): boolean => folder === '' || path === folder || path.startsWith(`${folder}/`);

/** Whether the lock applies to `path`: it is the lock's own resource, or below it with depth infinity. */
export const lockCovers = (lock: DavLock, path: string): boolean =>
  lock.path === path || (lock.depth === 'infinity' && isWithin(path, lock.path));

/** The user's locks that have not expired (a Map lookup when they have none). */
export function liveLocksOf(nimbus: NimbusContext, username: string, now = Date.now()): DavLock[] {
  const mine = nimbus.store.dav.locksByUser.of(username);
  if (!mine) return [];
  return [...mine.values()].filter((lock) => lock.expiresAt > now);
}

/**
 * The live locks that cover `path`: its own and its ancestors' depth-infinity ones (for
 * lockdiscovery and the If header). `live`: the user's live locks, when the caller has them
 * already (a listing asks for every file of a folder).
 */
export function locksCovering(nimbus: NimbusContext, username: string, path: string, live = liveLocksOf(nimbus, username)): DavLock[] {
  return live.filter((lock) => lockCovers(lock, path));
}

/** Every live lock on `path` or anywhere below it (a folder's delete or move needs all of them submitted). */
export function locksWithin(nimbus: NimbusContext, username: string, path: string): DavLock[] {
  return liveLocksOf(nimbus, username).filter((lock) => isWithin(lock.path, path));
}

/** The 423 of a write or a lock that `lock` forbids. */
export const lockedBy = (lock: DavLock): ApiError =>
  new ApiError(
    'locked',
    `'${lock.path === '' ? '/' : lock.path}' is locked by a WebDAV client; try again once it is unlocked or its lock expired`,
  );

/** Whether a held lock and a requested one cannot both stand (RFC 4918 §6.1, §7: shared ones share; an exclusive one shares with none). */
function conflicts(held: DavLock, req: LockRequest): boolean {
  if (held.scope === 'shared' && req.scope === 'shared') return false;
  return lockCovers(held, req.path) || (req.depth === 'infinity' && isWithin(held.path, req.path));
}

/** The timeout granted for the one asked: whole seconds, 1 … 3,600 (`Infinite`, or anything not finite, is the cap). */
export const grantedSeconds = (asked: number): number =>
  Number.isFinite(asked) ? Math.min(MAX_LOCK_SECONDS, Math.max(MIN_LOCK_SECONDS, Math.floor(asked))) : MAX_LOCK_SECONDS;

/**
 * Takes a new lock: 423 `locked` when it conflicts with a lock held (an exclusive one anywhere
 * that covers or is covered by it, or a shared one against an exclusive request).
 */
export async function createLock(nimbus: NimbusContext, req: LockRequest): Promise<DavLock> {
  const { username, path, depth, scope, owner } = req;
  requireUser(nimbus, username);
  // With the resource's name lock too: a write of that very name checks its locks under it, so it runs wholly before or after.
  return nimbus.locks.run([lockChanges(username), pathLock(username, path)], () =>
    acrossDaemons(nimbus, username, async () => {
      dropExpiredOf(nimbus, username);
      const held = liveLocksOf(nimbus, username).find((lock) => conflicts(lock, req));
      if (held) throw lockedBy(held);
      const timeoutSeconds = grantedSeconds(req.timeoutSeconds);
      const token = `urn:uuid:${randomUUID()}`;
      const expiresAt = Date.now() + timeoutSeconds * 1000;
      const lock: DavLock = { token, username, path, depth, scope, owner, timeoutSeconds, expiresAt, lockRoot: path };
      nimbus.store.dav.putLock(lock);
      await nimbus.store.commit();
      return lock;
    }),
  );
}

/**
 * Refreshes the lock `token` on `path` (the lock itself or one inherited from an ancestor with
 * depth infinity): 412 `lock_token_mismatch` when no such lock covers the path.
 */
export async function refreshLock(
  nimbus: NimbusContext,
  username: string,
  path: string,
  token: string,
  timeoutSeconds: number,
): Promise<DavLock> {
  requireUser(nimbus, username);
  return nimbus.locks.run(lockChanges(username), async () => {
    const lock = requireCovering(nimbus, username, path, token, 412);
    const granted = grantedSeconds(timeoutSeconds);
    const refreshed: DavLock = { ...lock, timeoutSeconds: granted, expiresAt: Date.now() + granted * 1000 };
    dropExpiredOf(nimbus, username);
    nimbus.store.dav.putLock(refreshed);
    await nimbus.store.commit();
    return refreshed;
  });
}

/** Removes the lock `token` that covers `path`: 409 `lock_token_mismatch` when it does not cover it. */
export async function removeLock(nimbus: NimbusContext, username: string, path: string, token: string): Promise<void> {
  requireUser(nimbus, username);
  return nimbus.locks.run(lockChanges(username), async () => {
    const lock = requireCovering(nimbus, username, path, token, 409);
    dropExpiredOf(nimbus, username);
    nimbus.store.dav.deleteLock(lock);
    await nimbus.store.commit();
  });
}

/** The first key of the cluster-wide lock that new locks take (a constant no other Nimbus lock uses); the second is the user's name hashed. */
const NEW_LOCKS_KEY = 0x6e696d6c; // "niml"

/**
 * Runs a lock's conflict check and its commit as one step on every daemon sharing a database:
 * under the user's advisory lock (transaction-scoped, on a connection of its own), after
 * catching up with every commit made before it, so of two conflicting LOCKs sent to two daemons
 * at once the second sees the first. db.json has one daemon: `fn` runs at once.
 */
async function acrossDaemons<T>(nimbus: NimbusContext, username: string, fn: () => Promise<T>): Promise<T> {
  const database = nimbus.store.database;
  if (database === null) return fn();
  try {
    // One at a time per daemon: each holds a pooled connection while its commit needs another.
    return await nimbus.locks.run('davlocks:database', () =>
      database.transaction(async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [NEW_LOCKS_KEY, username]);
        await nimbus.store.catchUp(true);
        return fn();
      }),
    );
  } catch (err) {
    // Imported here: pg costs an embedded daemon's start (store.ts), and this is a database's error.
    const { Database } = await import('../store/postgres/database.js');
    if (Database.isConnectionError(err)) throw databaseUnavailable();
    if (Database.isPoolBusy(err)) throw databaseBusy();
    throw err;
  }
}

/** The live lock `token` covering `path`, else `lock_token_mismatch` with the status the method answers it (UNLOCK 409, a refresh 412). */
function requireCovering(nimbus: NimbusContext, username: string, path: string, token: string, status: 409 | 412): DavLock {
  const lock = locksCovering(nimbus, username, path).find((held) => held.token === token);
  if (lock) return lock;
  throw new ApiError('lock_token_mismatch', 'No lock with that token covers this resource', {}, null, status);
}

/** Removes the user's expired locks (the caller commits); how many went. */
function dropExpiredOf(nimbus: NimbusContext, username: string, now = Date.now()): number {
  let dropped = 0;
  for (const lock of [...(nimbus.store.dav.locksByUser.of(username)?.values() ?? [])]) {
    if (lock.expiresAt > now) continue;
    nimbus.store.dav.deleteLock(lock);
    dropped++;
  }
  return dropped;
}

/** Removes every expired lock of every user (the daemon's hourly sweep); how many went. */
export async function sweepExpiredLocks(nimbus: NimbusContext, now = Date.now()): Promise<number> {
  const users = new Set([...nimbus.store.dav.locks.values()].filter((lock) => lock.expiresAt <= now).map((lock) => lock.username));
  let dropped = 0;
  for (const username of users) dropped += await nimbus.locks.run(lockChanges(username), async () => dropExpiredOf(nimbus, username, now));
  if (dropped > 0) await nimbus.store.commit();
  return dropped;
}

/**
 * Releases the locks of a resource that was deleted or moved away, and of everything below it
 * (RFC 4918 §7.4: a lock does not move with its resource); the caller commits. How many went.
 */
export function releaseLocksWithin(nimbus: NimbusContext, username: string, path: string): number {
  let released = 0;
  for (const lock of [...(nimbus.store.dav.locksByUser.of(username)?.values() ?? [])]) {
    if (!isWithin(lock.path, path)) continue;
    nimbus.store.dav.deleteLock(lock);
    released++;
  }
  return released;
}
