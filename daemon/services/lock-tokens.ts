/**
 * Which WebDAV lock tokens the current request submitted (docs/webdav.md, "Locks and
 * properties"). The dav layer verifies its If header, then runs the service call inside
 * `withLockTokens`; every write a lock forbids calls `requireUnlocked` under the same name
 * locks as the write, and finds the tokens here. An AsyncLocalStorage, so no service signature
 * changes, and the API, which never runs inside one, submits no token.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { NimbusContext } from '../context.js';
import { isWithin, lockCovers, lockedBy } from './dav-locks.js';

const submitted = new AsyncLocalStorage<ReadonlySet<string>>();
const NO_TOKENS: ReadonlySet<string> = new Set();

/**
 * Runs `fn` with these lock tokens submitted (the If header's state tokens that the dav layer
 * verified): every write inside it that needs a lock's token finds them here.
 */
export function withLockTokens<T>(tokens: ReadonlySet<string>, fn: () => Promise<T>): Promise<T> {
  // No token: no scope, which reads as none. Node 22's first `run()` turns on promise hooks for
  // the whole process, a cost on every promise of every request after it (issue 26's MOVE
  // profile: promiseInitHook 0.6 % of the daemon), so a client that never locks never pays it.
  if (tokens.size === 0) return fn();
  return submitted.run(tokens, fn);
}

/** The tokens submitted in the current scope (none outside one). */
export const submittedTokens = (): ReadonlySet<string> => submitted.getStore() ?? NO_TOKENS;

/**
 * Throws 423 `locked` unless every live lock covering each of `paths` (and, for `within`
 * paths, every lock below them) has its token submitted in the current withLockTokens scope
 * (none outside one: the API never holds a token). A user without locks costs one Map lookup.
 */
export function requireUnlocked(nimbus: NimbusContext, username: string, paths: readonly string[], within: readonly string[] = []): void {
  const mine = nimbus.store.dav.locksByUser.of(username);
  if (!mine) return;
  const tokens = submittedTokens();
  const now = Date.now();
  for (const lock of mine.values()) {
    if (lock.expiresAt <= now || tokens.has(lock.token)) continue;
    const forbids =
      paths.some((path) => lockCovers(lock, path)) || within.some((folder) => lockCovers(lock, folder) || isWithin(lock.path, folder));
    if (forbids) throw lockedBy(lock);
  }
}
