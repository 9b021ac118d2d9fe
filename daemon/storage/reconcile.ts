import { readdir } from 'node:fs/promises';
import { adoptStorageDir } from './availability.js';
import type { FileIndex } from './file-index.js';
import type { Storage } from './storage.js';
import { rescanUserTree } from './index-sync.js';

/** A share as the reconcile sees it: which file it points at. */
export interface ShareRef {
  username: string;
  folder: string | null;
  file: string;
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
    if (!entry.isDirectory()) continue;
    if (n.store.users.has(entry.name)) onDisk.add(entry.name);
    else orphans.add(entry.name);
  }
  n.orphans.clear();
  for (const o of orphans) n.orphans.add(o);
  const isUser = (name: string) => n.store.users.has(name);
  for (const username of [...n.store.users.keys()]) {
    if (!onDisk.has(username)) await n.storage.restoreUserDir(username);
    await rescanUserTree(n.storage, username, isUser);
  }
  for (const username of [...n.index.users.keys()]) if (!n.store.users.has(username)) n.index.users.delete(username);
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

/** Shares whose file is not on disk (deleted while the daemon was down) are revoked. */
function revokeVanishedShares(n: ReconcileTarget): void {
  let revoked = 0;
  for (const share of [...n.store.sharesByToken.values()]) {
    if (n.index.getFile(share.username, share.folder, share.file)) continue;
    n.store.deleteShare(share);
    revoked++;
  }
  if (revoked > 0) n.store.commit().catch((err: Error) => n.log(`Nimbus: could not save revoked shares: ${err.message}`));
}
