/**
 * The trash (docs/explorer.md, "Trash"): deleted files and folders wait in the storage's
 * trash (`nimbus.storage.trash`; on disk `<data-dir>/trash/<username>/<id>/<name>`) with a
 * record in the store, count against the quota, and are restored, deleted for good, or purged
 * after NIMBUS_TRASH_DAYS. Each item's operations hold its lock (`trash:<id>`), so two
 * restores, or a restore and a purge, of one item run one after the other and the second finds
 * it gone (404). The storage moves the bytes and keeps the index in step; this service decides
 * (names, locks, what is due), writes the records and announces. Restores are
 * trash-restore.ts; the records' listing and upkeep trash-records.ts.
 */
import { randomBytes } from 'node:crypto';
import type { NimbusContext } from '../context.js';
import { notFound } from '../errors.js';
import type { StoredTrashItem, StoredUser } from '../store/schema.js';
import type { TrashTarget } from '../storage/file-storage.js';
import { splitFolder } from '../storage/paths.js';
import { joinFolder } from '../storage/index-tree.js';
import { forgetResource } from './dav-follow.js';
import { requireUnlocked } from './lock-tokens.js';
import { fileLock } from './name-locks.js';
import { requireUser } from './records.js';
import { revokeFolderShares, revokeShare } from './shares.js';
import { DAY_MS, itemLock, requireItem } from './trash-records.js';

export { adoptTrash, dropTrashOf, listTrash, moveTrashOf, removeTrashDirOf, trashRoot } from './trash-records.js';
export { restoreItem } from './trash-restore.js';

const newTrashId = () => randomBytes(16).toString('hex');

/**
 * Announces that a user's trash changed. Rows that change only the trash declare
 * `trash.changed` themselves; a delete (whose rows declare nothing: the index announces the
 * file's removal) and a purge announce it here, into the daemon's change feed.
 */
function announce(nimbus: NimbusContext, username: string): void {
  nimbus.changes.publish({ type: 'trash.changed', username, folder: null, file: null });
}

/**
 * Moves `target` into the trash as a new item; `revoke` drops the shares it takes along. The
 * records are written in the storage's `record` hook, not after it returns: the hook runs in
 * the step that makes the move real (on disk as the entry lands in the trash, in object mode
 * just before the rows' commit, which then holds the records too), so the record and the
 * revoked share never lag the move, and a user's deletion that waits for the move finds the
 * record to drop (services/users.ts).
 */
async function moveIn(nimbus: NimbusContext, user: StoredUser, target: Omit<TrashTarget, 'id'>, revoke: () => void): Promise<string> {
  const { username, kind, name, folder } = target;
  const id = newTrashId();
  await nimbus.storage.trash.moveIn({ ...target, id }, ({ size, fileCount }) => {
    revoke();
    // A user deleted meanwhile has no trash: the entry goes with their trash directory.
    if (nimbus.store.users.get(username)?.createdAt !== user.createdAt) return;
    nimbus.store.putTrash({ id, username, kind, name, folder, size, fileCount, deletedAt: new Date().toISOString() });
  });
  await nimbus.store.commit();
  announce(nimbus, username);
  return id;
}

/** Moves a file to the user's trash; revokes its share. Answers the new item's id. */
export async function trashFile(nimbus: NimbusContext, username: string, folder: string | null, file: string): Promise<string> {
  const user = requireUser(nimbus, username);
  return nimbus.locks.run(fileLock(username, folder, file), async () => {
    nimbus.storage.requireFile(username, folder, file);
    // A member of its folder and a resource of its own: the locks of both (docs/webdav.md).
    requireUnlocked(nimbus, username, [folder ?? '', joinFolder(folder, file)]);
    return moveIn(nimbus, user, { username, folder, name: file, kind: 'file' }, () => {
      revokeShare(nimbus, username, folder, file);
      forgetResource(nimbus, username, joinFolder(folder, file));
    });
  });
}

/**
 * Moves a folder (a path, any depth) with its whole subtree to the user's trash as one item
 * whose record keeps the parent path; revokes the shares of its files at every depth. Answers
 * the new item's id.
 */
export async function trashFolder(nimbus: NimbusContext, username: string, folder: string): Promise<string> {
  const user = requireUser(nimbus, username);
  const { parent, name } = splitFolder(folder);
  // A folder is a name in its parent, like a file there: the same lock.
  return nimbus.locks.run(fileLock(username, parent, name), async () => {
    nimbus.storage.requireFolder(username, folder);
    // Its parent's members change, and every lock anywhere in the subtree goes with it.
    requireUnlocked(nimbus, username, [parent ?? ''], [folder]);
    return moveIn(nimbus, user, { username, folder: parent, name, kind: 'folder' }, () => {
      revokeFolderShares(nimbus, username, folder);
      forgetResource(nimbus, username, folder);
    });
  });
}

/** Deletes one item for good (its bytes first: a crash in between leaves a record without an entry, dropped at start). */
async function removeItem(nimbus: NimbusContext, item: StoredTrashItem): Promise<boolean> {
  return nimbus.locks.run(itemLock(item.id), async () => {
    if (nimbus.store.trash.get(item.id) !== item) return false;
    await nimbus.storage.trash.removeItem(item.username, item.id);
    nimbus.store.deleteTrash(item);
    await nimbus.store.commit();
    return true;
  });
}

/** trash.delete: one item of the user's, for good. */
export async function deleteItem(nimbus: NimbusContext, username: string, id: string): Promise<void> {
  requireUser(nimbus, username);
  if (!(await removeItem(nimbus, requireItem(nimbus, username, id)))) throw notFound('trash_item_not_found', 'Trash item not found');
}

/** trash.empty: everything in the user's trash, for good; how many items went. */
export async function emptyTrash(nimbus: NimbusContext, username: string): Promise<number> {
  requireUser(nimbus, username);
  let removed = 0;
  for (const item of nimbus.store.trashOf(username)) if (await removeItem(nimbus, item)) removed++;
  return removed;
}

/** Deletes for good every item deleted more than NIMBUS_TRASH_DAYS before `now`; how many went. */
export async function purgeTrash(nimbus: NimbusContext, now = Date.now()): Promise<number> {
  const limit = now - nimbus.config.trashDays * DAY_MS;
  const due = [...nimbus.store.trash.values()].filter((item) => Date.parse(item.deletedAt) <= limit);
  const users = new Set<string>();
  let removed = 0;
  for (const item of due) {
    // A restore or a delete that got there first has taken it already.
    if (!(await removeItem(nimbus, item))) continue;
    removed++;
    users.add(item.username);
  }
  for (const username of users) announce(nimbus, username);
  return removed;
}
