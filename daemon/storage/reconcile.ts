import { readdir } from 'node:fs/promises';
import { adoptStorageDir } from './availability.js';
import { isTombstone } from './tombstones.js';
import type { FileIndex } from './file-index.js';
import type { Storage } from './storage.js';
import { rescanUserTree } from './index-sync.js';
import { LeftoverSweep } from './leftovers.js';

/** A share as the reconcile sees it: which file it points at. */
export interface ShareRef {
  /** Set for a folder or upload link, whose `folder` is what it shares. */
  kind?: string;
  username: string;
  folder: string | null;
  file: string;
}

/**
 * Users read at once. The reading itself is synchronous in slices (scan.ts); what the pool
 * overlaps is the rest: a user directory restored, the re-read of directories touched
 * during a user's scan. Each user is still read and swapped in whole (rescanUserTree), so
 * the pool changes only how many are in flight. (With promise-based reads, 8 at once
 * against 1 cut the CPU to index ready at scale 1 by ~10 %; the sliced reads did the rest.)
 */
const SCAN_POOL = 8;

/**
 * Runs `fn` over `items`, `size` at a time (each worker takes the next item when it is
 * done). The first failure stops the taking; it is thrown once every call in flight has
 * ended, so nothing of this reconcile still runs when it returns.
 */
export async function eachInPool<T>(items: T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      try {
        await fn(items[next++]);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const ends = await Promise.allSettled(Array.from({ length: Math.max(1, Math.min(size, items.length)) }, worker));
  const failure = ends.find((end) => end.status === 'rejected');
  if (failure) throw failure.reason;
}

/** What a reconcile reads and changes: the index, the users and shares, the orphan list, the log. */
export interface ReconcileTarget {
  config: { storageDir: string };
  store: {
    users: ReadonlyMap<string, unknown>;
    sharesByToken: ReadonlyMap<string, ShareRef>;
    deleteShare(share: ShareRef): void;
    commit(): Promise<void>;
  };
  index: FileIndex;
  storage: Storage;
  orphans: Set<string>;
  log(line: string): void;
}

/**
 * Makes the index equal to the disk: every user's directory is read afresh and the
 * differences applied (each emits its change event). Top-level directories that are not
 * users are orphans: reported, never touched. A storage directory that has vanished (an
 * unmounted disk) changes nothing: the index turns `unavailable` and every record stays.
 * Returns whether the storage directory was available.
 */
export async function reconcileAll(n: ReconcileTarget): Promise<boolean> {
  const firstScan = !n.index.everReady;
  const status = await adoptStorageDir(n.config.storageDir, n.store.users.size > 0);
  if (!status.ok) {
    markUnavailable(n, status.reason);
    return false;
  }
  const entries = await readdir(n.config.storageDir, { withFileTypes: true });
  const orphans = new Set<string>();
  const onDisk = new Set<string>();
  for (const entry of entries) {
    if (!entry.isDirectory() || isTombstone(entry.name)) continue;
    if (n.store.users.has(entry.name)) onDisk.add(entry.name);
    else orphans.add(entry.name);
  }
  n.orphans.clear();
  for (const o of orphans) n.orphans.add(o);
  const isUser = (name: string) => n.store.users.has(name);
  // Only the start-up's scan (the index still `scanning`: no user's request has touched the
  // disk yet) removes what a crash left; later a copy or a move may be in flight (leftovers.ts).
  const sweep = n.index.state === 'scanning' ? new LeftoverSweep(n.config.storageDir, n.log) : undefined;
  await eachInPool([...n.store.users.keys()], SCAN_POOL, async (username) => {
    if (!onDisk.has(username)) await n.storage.restoreUserDir(username);
    await rescanUserTree(n.storage, username, isUser, sweep);
  });
  sweep?.report();
  for (const username of [...n.index.users.keys()]) if (!n.store.users.has(username)) n.index.forgetUser(username);
  // Shares of files deleted while the daemon was down; later removals are seen as events
  // and revoked after a grace period (see watchForVanishedShares).
  if (firstScan) revokeVanishedShares(n);
  n.index.setState('ready');
  return true;
}

/** Says once that the storage directory is unavailable, and freezes the index as it is. */
export function markUnavailable(n: Pick<ReconcileTarget, 'config' | 'index' | 'log'>, reason: string): void {
  if (n.index.state !== 'unavailable') {
    n.log(
      `Nimbus: the storage directory ${n.config.storageDir} is not available: ${reason}. Keeping every file record and share until it is back; nothing is deleted.`,
    );
  }
  n.index.setState('unavailable');
}

/** Shares whose file (or folder, for a folder or upload link) is not on disk (deleted while the daemon was down) are revoked. */
function revokeVanishedShares(n: ReconcileTarget): void {
  let revoked = 0;
  for (const share of [...n.store.sharesByToken.values()]) {
    const there = share.kind ? n.index.folder(share.username, share.folder!) : n.index.getFile(share.username, share.folder, share.file);
    if (there) continue;
    n.store.deleteShare(share);
    revoked++;
  }
  if (revoked > 0) n.store.commit().catch((err: Error) => n.log(`Nimbus: could not save revoked shares: ${err.message}`));
}
