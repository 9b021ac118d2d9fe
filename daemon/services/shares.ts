import type { ChangeEvent, FileEntry } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { conflict, notFound } from '../errors.js';
import { newSecret } from '../keys/secrets.js';
import { sharePathKey } from '../store/store.js';
import type { StoredShare } from '../store/schema.js';
import { requireUser, toFileEntry } from './records.js';
import { withOptions, type ShareOptionParams } from './share-options.js';
import { graceQueue } from '../util/grace-queue.js';

/** Shares a file by a 256-bit token, with the options given (docs/sharing.md). */
export async function shareFile(
  nimbus: NimbusContext,
  username: string,
  folder: string | null,
  file: string,
  options: ShareOptionParams = {},
): Promise<FileEntry> {
  requireUser(nimbus, username);
  nimbus.storage.requireFile(username, folder, file);
  const key = sharePathKey(username, folder, file);
  if (nimbus.store.sharesByPath.has(key)) throw conflict('already_shared', 'File is already shared');
  const share = await withOptions({ token: newSecret(), username, folder, file, createdAt: new Date().toISOString() }, options);
  // A password's hash took a moment: the file may have been shared, moved or deleted meanwhile.
  const meta = nimbus.storage.requireFile(username, folder, file);
  if (nimbus.store.sharesByPath.has(key)) throw conflict('already_shared', 'File is already shared');
  nimbus.store.putShare(share);
  await nimbus.store.commit();
  return toFileEntry(nimbus, username, folder, file, meta);
}

export async function unshareFile(nimbus: NimbusContext, username: string, folder: string | null, file: string): Promise<FileEntry> {
  requireUser(nimbus, username);
  const meta = nimbus.storage.requireFile(username, folder, file);
  if (!revokeShare(nimbus, username, folder, file)) throw notFound('share_not_found', 'File is not shared');
  await nimbus.store.commit();
  return toFileEntry(nimbus, username, folder, file, meta);
}

/** Removes a file's share from the store (the caller commits). */
export function revokeShare(nimbus: NimbusContext, username: string, folder: string | null, file: string): boolean {
  const share = nimbus.store.sharesByPath.get(sharePathKey(username, folder, file));
  if (!share) return false;
  nimbus.store.deleteShare(share);
  return true;
}

/** Removes the shares of every file in a folder (the caller commits). */
export function revokeFolderShares(nimbus: NimbusContext, username: string, folder: string): number {
  // The files of its whole subtree, and the links of its folders: a deleted folder takes every depth below it along.
  const below = sharesBelow(nimbus, username, folder);
  for (const share of below) nimbus.store.deleteShare(share);
  return below.length;
}

/** Moves a share with its file (the caller commits); false when the file has none. */
export function moveShare(nimbus: NimbusContext, username: string, folder: string | null, from: string, to: string): boolean {
  const share = nimbus.store.sharesByPath.get(sharePathKey(username, folder, from));
  if (!share) return false;
  nimbus.store.putShare({ ...share, file: to }, share);
  return true;
}

/** Moves a file's share to another folder with the file, same token (the caller commits). */
export function moveShareToFolder(nimbus: NimbusContext, username: string, from: string | null, file: string, to: string | null): boolean {
  const share = nimbus.store.sharesByPath.get(sharePathKey(username, from, file));
  if (!share) return false;
  nimbus.store.putShare({ ...share, folder: to }, share);
  return true;
}

/** The shares of the files in a folder and in every folder below it (`a/b` holds `a/b/c`, never `a/bc`). */
export function sharesBelow(nimbus: NimbusContext, username: string, folder: string): StoredShare[] {
  const inside = (f: string | null) => f !== null && (f === folder || f.startsWith(`${folder}/`));
  return [...nimbus.store.sharesByToken.values()].filter((s) => s.username === username && inside(s.folder));
}

/**
 * Moves the shares of a renamed or moved folder's subtree to its new path, same tokens (the
 * caller commits); how many moved. `a/b/c/x` follows `a/b` → `a/y` to `a/y/c/x`.
 */
export function moveFolderShares(nimbus: NimbusContext, username: string, folder: string, renamed: string): number {
  const below = sharesBelow(nimbus, username, folder);
  // Each by itself, not looked up by its file's path: a folder's own links have no file.
  for (const share of below) nimbus.store.putShare({ ...share, folder: renamed + share.folder!.slice(folder.length) }, share);
  return below.length;
}

/** A folder another program moved, seen by the watcher as one rename: its shares follow it, as the API's move does. */
export function followMovedFolder(nimbus: NimbusContext, username: string, from: string, to: string): void {
  if (moveFolderShares(nimbus, username, from, to) === 0) return;
  nimbus.store.commit().catch((err: Error) => nimbus.log(`Nimbus: could not save the shares of a moved folder: ${err.message}`));
}

/**
 * How long a file may be gone before its share is revoked. An editor that saves by deleting
 * and writing anew, or a file moved out and back, keeps its link; the link answers 404 while
 * the file is absent either way.
 */
export const VANISHED_SHARE_GRACE_MS = 2000;

/**
 * Revokes shares whose file left the disk by any route (another program, a reconcile) and
 * is still absent after the grace period. The daemon's own delete and rename revoke or move
 * the share themselves, so this finds nothing to do for them. While the storage directory is
 * unavailable nothing is revoked. It reads the removals from the daemon's change feed.
 */
export function watchForVanishedShares(nimbus: NimbusContext, graceMs = VANISHED_SHARE_GRACE_MS): void {
  // One pass over the shares for everything that came due at once (an `rm -r` of a large folder).
  const later = graceQueue<ChangeEvent>(graceMs, (events) => {
    if (nimbus.index.state !== 'unavailable') revokeAbsent(nimbus, events);
  });
  nimbus.changes.subscribe((event) => {
    if (event.username === null) return;
    if (event.type !== 'file.removed' && event.type !== 'folder.removed' && event.type !== 'user.removed') return;
    later(event);
  });
}

/** Whether `folder` (a path) or one of its ancestors is among the removed `user/path` keys: removing `a` removes `a/b`. */
function underRemovedFolder(removed: Set<string>, username: string, folder: string): boolean {
  for (let end = folder.indexOf('/'); end !== -1; end = folder.indexOf('/', end + 1)) {
    if (removed.has(`${username}/${folder.slice(0, end)}`)) return true;
  }
  return removed.has(`${username}/${folder}`);
}

/** Whether a share's file (or, for a folder or upload link, its folder) is in the index. */
function targetExists(nimbus: NimbusContext, share: StoredShare): boolean {
  if (share.kind) return nimbus.index.folder(share.username, share.folder!) !== undefined;
  return nimbus.index.getFile(share.username, share.folder, share.file) !== undefined;
}

/** Revokes the shares the removal events cover whose file is (still) not in the index. */
function revokeAbsent(nimbus: NimbusContext, events: ChangeEvent[]): void {
  const users = new Set<string>();
  const folders = new Set<string>();
  const files = new Set<string>();
  for (const { type, username, folder, file } of events) {
    if (type === 'user.removed') users.add(username!);
    else if (type === 'folder.removed') folders.add(`${username}/${folder}`);
    else files.add(sharePathKey(username!, folder, file!));
  }
  let revoked = 0;
  for (const share of [...nimbus.store.sharesByToken.values()]) {
    const covered =
      (users.has(share.username) && !nimbus.store.users.has(share.username)) ||
      (share.folder !== null && underRemovedFolder(folders, share.username, share.folder)) ||
      files.has(sharePathKey(share.username, share.folder, share.file));
    if (!covered || targetExists(nimbus, share)) continue;
    nimbus.store.deleteShare(share);
    revoked++;
  }
  if (revoked > 0) nimbus.store.commit().catch((err: Error) => nimbus.log(`Nimbus: could not save revoked shares: ${err.message}`));
}
