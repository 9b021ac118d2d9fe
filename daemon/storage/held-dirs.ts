/**
 * Directories kept open across requests (Linux), each checked again before every use.
 *
 * safe-dir.ts walks a request's path one `openat(O_NOFOLLOW)` at a time: a link at any level
 * is refused, and the directory is then used through its descriptor. That walk was 2 × depth
 * system calls per request, done twice per upload (issue 30: 7.4 opens and closes a 4 KiB
 * upload). Here the walk's result is kept, and before each use one `readlink` of
 * `/proc/self/fd/<fd>` (a `readlinkat` in /proc/self/fd kept open, at-calls.ts) asks the kernel
 * where that directory is now: its path from the root through real directories (a dentry
 * path has no symlinks in it), or `… (deleted)`. The handle is used only if that is byte for
 * byte the path the walk opened, i.e. at this instant the same directory sits at
 * `<storage>/<user>/<folder…>` through real directories: what the walk proved, at one system
 * call. A directory renamed (even into another user's tree),
 * replaced, deleted, or with a component above it swapped for a link, reads as another path:
 * the handle is dropped and the walk runs again (and refuses the link). What stays open
 * beyond the check is the same as before: a directory checked at one instant, then used
 * through its descriptor.
 *
 * The storage root itself is the operator's choice, followed when first opened; a root path
 * that is a symlink repointed while the daemon runs keeps serving the directory it pointed to
 * until that directory moves or the handle goes idle.
 *
 * Handles are shared (a count of leases); one is closed only once unused: after IDLE_MS idle,
 * when more than MAX_HELD are kept (least recently used first), or when found stale.
 */
import { closeSync, readlinkSync } from 'node:fs';
import { atCalls } from './at-calls.js';

/** Enough for the folders in use at once on a busy daemon; each is one descriptor. */
const MAX_HELD = 256;
const IDLE_MS = 10_000;

export interface HeldDir {
  readonly fd: number;
  /** The kernel's path of the directory when it was walked to (raw bytes: names are compared exactly). */
  readonly kernelPath: Buffer;
  leases: number;
  lastUsed: number;
  /** Out of the map (stale, evicted or closing): closed when its last lease ends. */
  dropped: boolean;
  /** Its device and inode for the shared fsync (shared-fsync.ts), read once: a descriptor's directory never changes. */
  identity: string | null;
}

const held = new Map<string, HeldDir>();
let sweeper: NodeJS.Timeout | null = null;

/** Where the kernel says the open directory `fd` is now (raw bytes, the caller's own), or null when it cannot say. */
export function kernelPathOf(fd: number): Buffer | null {
  const now = pathNow(fd);
  return now === null ? null : Buffer.from(now);
}

/** Whether the kernel places the open directory `fd` at exactly `expected` now (no copy of its answer on the way). */
function isStillAt(fd: number, expected: Buffer): boolean {
  return pathNow(fd)?.equals(expected) ?? false;
}

/**
 * The kernel's path of `fd`, valid until the next call: `readlinkat` in /proc/self/fd
 * (at-calls.ts), else (no koffi, or it could not say) Node's readlink of the whole /proc path.
 */
function pathNow(fd: number): Buffer | null {
  const now = atCalls()?.pathOf(fd);
  if (now) return now;
  try {
    return readlinkSync(`/proc/self/fd/${fd}`, { encoding: 'buffer' });
  } catch {
    return null;
  }
}

/** The key of a walk: the root as given and the names below it (names never hold NUL). */
export const heldKey = (root: string, components: readonly string[]) => `${root}\0${components.join('\0')}`;

/** A lease on the held directory `key` if it is still where it was walked to; null to walk again. */
export function leaseHeld(key: string): HeldDir | null {
  const dir = held.get(key);
  if (dir === undefined) return null;
  if (!isStillAt(dir.fd, dir.kernelPath)) {
    drop(key, dir);
    return null;
  }
  dir.leases++;
  dir.lastUsed = performance.now();
  // Most recently used last: eviction takes from the front.
  held.delete(key);
  held.set(key, dir);
  return dir;
}

/**
 * Keeps the freshly walked directory `fd` under `key` and leases it, when the kernel places it
 * at `expected` (else null: the caller owns `fd` and closes it, as before).
 */
export function holdWalked(key: string, fd: number, expected: Buffer): HeldDir | null {
  const now = kernelPathOf(fd);
  if (now === null || !now.equals(expected)) return null;
  const previous = held.get(key);
  if (previous !== undefined) drop(key, previous);
  const dir: HeldDir = { fd, kernelPath: now, leases: 1, lastUsed: performance.now(), dropped: false, identity: null };
  held.set(key, dir);
  if (held.size > MAX_HELD) evictOldest();
  sweeper ??= setInterval(sweepIdle, IDLE_MS).unref();
  return dir;
}

/** Ends one lease; the descriptor is closed if the directory was dropped meanwhile and this was its last. */
export function releaseHeld(dir: HeldDir): void {
  dir.leases--;
  dir.lastUsed = performance.now();
  if (dir.dropped && dir.leases === 0) closeSync(dir.fd);
}

function drop(key: string, dir: HeldDir): void {
  if (held.get(key) === dir) held.delete(key);
  if (dir.dropped) return;
  dir.dropped = true;
  if (dir.leases === 0) closeSync(dir.fd);
}

function evictOldest(): void {
  for (const [key, dir] of held) {
    drop(key, dir);
    if (held.size <= MAX_HELD) return;
  }
}

function sweepIdle(): void {
  const before = performance.now() - IDLE_MS;
  for (const [key, dir] of held) if (dir.leases === 0 && dir.lastUsed < before) drop(key, dir);
  if (held.size === 0 && sweeper !== null) {
    clearInterval(sweeper);
    sweeper = null;
  }
}

/** Lets go of every held directory at or under the given directories (a daemon closing), or of all of them. */
export function releaseHeldUnder(...dirs: string[]): void {
  for (const [key, dir] of held) {
    const root = key.slice(0, key.indexOf('\0'));
    if (dirs.length === 0 || dirs.some((d) => root === d || root.startsWith(`${d}/`))) drop(key, dir);
  }
}

/** For tests: how many directories are held. */
export function heldCount(): number {
  return held.size;
}

/** For tests telling a leaked descriptor from a kept one: the descriptors of the held directories. */
export function heldDescriptors(): Set<number> {
  return new Set([...held.values()].map((dir) => dir.fd));
}
