/**
 * The trash (docs/explorer.md, "Trash"): deleted files and folders wait in the storage's
 * trash (`nimbus.storage.trash`; on disk `<data-dir>/trash/<username>/<id>/<name>`) with a
 * record in the store, count against the quota, and are restored, deleted for good, or purged after NIMBUS_TRASH_DAYS. Each item's
 * operations hold its lock (`trash:<id>`), so two restores, or a restore and a purge, of one
 * item run one after the other and the second finds it gone (404).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { checkFileName } from '../../shared/validation.js';
import type { TrashItem, TrashRestored } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { ApiError, conflict, notFound } from '../errors.js';
import type { StoredTrashItem } from '../store/schema.js';
import { NameTaken, trashTaken, type Placed } from '../storage/file-storage.js';
import { assertNoCaseTwin, fileLock } from './files.js';
import { requireUser } from './records.js';
import { revokeFolderShares, revokeShare } from './shares.js';

const DAY_MS = 86_400_000;
/** How many " (restored N)" names a restore with `rename` tries before it gives up (409). */
const MAX_RESTORED_SUFFIX = 100;

/** Where the disk's trash is (Storage's default): daemon/daemon.ts makes it at start. */
export const trashRoot = (nimbus: NimbusContext): string => path.join(nimbus.config.dataDir, 'trash');
const itemLock = (id: string) => `trash:${id}`;
const newTrashId = () => randomBytes(16).toString('hex');

/**
 * Announces that a user's trash changed. Rows that change only the trash declare
 * `trash.changed` themselves; a delete (whose rows declare nothing: the index announces the
 * file's removal) and a purge announce it here, through the index's change events, which is
 * what the event stream (daemon/http/events.ts) listens to.
 */
function announce(nimbus: NimbusContext, username: string): void {
  nimbus.index.emit('change', { type: 'trash.changed', username, folder: null, file: null });
}

/** A trash item as the API answers it. */
export function toTrashItem(nimbus: NimbusContext, item: StoredTrashItem): TrashItem {
  return {
    id: item.id,
    kind: item.kind,
    name: item.name,
    folder: item.folder,
    size: item.size,
    fileCount: item.fileCount,
    deletedAt: item.deletedAt,
    purgeAt: new Date(Date.parse(item.deletedAt) + nimbus.config.trashDays * DAY_MS).toISOString(),
  };
}

/** A user's trash, newest first (ties by id, so pages are stable). */
export function listTrash(nimbus: NimbusContext, username: string): TrashItem[] {
  requireUser(nimbus, username);
  return nimbus.store
    .trashOf(username)
    .sort((a, b) => (a.deletedAt < b.deletedAt ? 1 : a.deletedAt > b.deletedAt ? -1 : a.id < b.id ? -1 : 1))
    .map((item) => toTrashItem(nimbus, item));
}

function requireItem(nimbus: NimbusContext, username: string, id: string): StoredTrashItem {
  const item = nimbus.store.trash.get(id);
  // Another user's item is as one that does not exist.
  if (!item || item.username !== username) throw notFound('trash_item_not_found', 'Trash item not found');
  return item;
}

/** Moves a file to the user's trash; revokes its share. Answers the new item's id. */
export async function trashFile(nimbus: NimbusContext, username: string, folder: string | null, file: string): Promise<string> {
  const user = requireUser(nimbus, username);
  return nimbus.locks.run(fileLock(username, folder, file), async () => {
    nimbus.storage.requireFile(username, folder, file);
    const id = newTrashId();
    await nimbus.storage.trash.moveIn({ username, folder, name: file, kind: 'file', id }, () => {
      const size = nimbus.index.getFile(username, folder, file)?.size ?? 0;
      nimbus.index.removeFile(username, folder, file);
      revokeShare(nimbus, username, folder, file);
      // A user deleted meanwhile has no trash: the entry goes with their trash directory.
      if (nimbus.store.users.get(username)?.createdAt !== user.createdAt) return;
      nimbus.store.putTrash({ id, username, kind: 'file', name: file, folder, size, fileCount: 1, deletedAt: new Date().toISOString() });
    });
    await nimbus.store.commit();
    announce(nimbus, username);
    return id;
  });
}

/** Moves a folder with its files to the user's trash; revokes the shares of its files. Answers the new item's id. */
export async function trashFolder(nimbus: NimbusContext, username: string, folder: string): Promise<string> {
  const user = requireUser(nimbus, username);
  // A folder is a name in the user's root, like a file there: the same lock.
  return nimbus.locks.run(fileLock(username, null, folder), async () => {
    nimbus.storage.requireFolder(username, folder);
    const id = newTrashId();
    await nimbus.storage.trash.moveIn({ username, folder: null, name: folder, kind: 'folder', id }, () => {
      const node = nimbus.index.user(username)?.folders.get(folder);
      const size = node?.sizeBytes ?? 0;
      const fileCount = node?.files.size ?? 0;
      nimbus.index.removeFolder(username, folder);
      revokeFolderShares(nimbus, username, folder);
      if (nimbus.store.users.get(username)?.createdAt !== user.createdAt) return;
      nimbus.store.putTrash({
        id,
        username,
        kind: 'folder',
        name: folder,
        folder: null,
        size,
        fileCount,
        deletedAt: new Date().toISOString(),
      });
    });
    await nimbus.store.commit();
    announce(nimbus, username);
    return id;
  });
}

/** `report.pdf` → `report (restored).pdf`, then `report (restored 2).pdf`…; a folder's name has no extension. */
export function restoredName(name: string, n: number, kind: 'file' | 'folder'): string {
  const suffix = n === 1 ? ' (restored)' : ` (restored ${n})`;
  const dot = kind === 'file' ? name.lastIndexOf('.') : -1;
  // A leading dot (".env") is a name, not an extension.
  if (dot <= 0) return `${name}${suffix}`;
  return `${name.slice(0, dot)}${suffix}${name.slice(dot)}`;
}

/** What the index holds at `name` in the folder (or root) a restore goes to, as a NameTaken; null when free. */
function takenInIndex(nimbus: NimbusContext, username: string, folder: string | null, name: string): NameTaken | null {
  if (nimbus.index.getFile(username, folder, name)) return new NameTaken('file');
  if (folder === null && nimbus.index.user(username)?.folders.has(name)) return new NameTaken('folder');
  return null;
}

/**
 * Puts a trash item back where it was (a file's folder that is gone is made again). When the
 * name is taken again: 409 (`file_exists`, `folder_exists`, `name_case_conflict`) and nothing
 * changes, or with `rename` the item comes back beside it as "name (restored).ext".
 */
export async function restoreItem(nimbus: NimbusContext, username: string, id: string, rename: boolean): Promise<TrashRestored> {
  requireUser(nimbus, username);
  return nimbus.locks.run(itemLock(id), async () => {
    const item = requireItem(nimbus, username, id);
    const folder = item.kind === 'file' ? item.folder : null;
    for (let n = 0; ; n++) {
      const as = n === 0 ? item.name : restoredName(item.name, n, item.kind);
      const checked = checkFileName(as);
      if (!checked.ok || checked.value !== as)
        throw conflict(item.kind === 'file' ? 'file_exists' : 'folder_exists', 'No free name to restore to');
      try {
        await restoreAs(nimbus, item, as);
        return { kind: item.kind, name: as, folder };
      } catch (err) {
        const taken = err instanceof NameTaken || (err instanceof ApiError && err.code === 'name_case_conflict');
        if (!taken || !rename || n >= MAX_RESTORED_SUFFIX) throw err instanceof NameTaken ? trashTaken(err) : err;
      }
    }
  });
}

/** One attempt to restore `item` under the name `as`: NameTaken (or a case conflict) when it is not free. */
async function restoreAs(nimbus: NimbusContext, item: StoredTrashItem, as: string): Promise<void> {
  const { username, kind } = item;
  const folder = kind === 'file' ? item.folder : null;
  // The name's lock (as an upload's), and for a file in a folder the folder's (as its delete's).
  const locks = [fileLock(username, folder, as), ...(folder === null ? [] : [fileLock(username, null, folder)])];
  await nimbus.locks.run(locks, async () => {
    const taken = takenInIndex(nimbus, username, folder, as);
    if (taken) throw taken;
    assertNoCaseTwin(nimbus, username, folder, as);
    await nimbus.storage.trash.restore({ username, folder, name: item.name, kind, id: item.id, as }, (placed: Placed) => {
      if (kind === 'folder') nimbus.index.addFolder(username, as, placed.folderMtimeMs ?? Date.now());
      for (const [name, meta] of placed.files) nimbus.index.setFile(username, kind === 'folder' ? as : folder, name, meta);
      nimbus.store.deleteTrash(item);
    });
    await nimbus.store.commit();
  });
}

/** Deletes one item for good (its directory first: a crash in between leaves a record without an entry, dropped at start). */
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

/**
 * At start, makes the store and the storage's trash agree after a crash (docs/explorer.md):
 * an entry without a record is adopted (named by its directory entry, as deleted from the
 * root, when its item directory was made); a record without an entry is dropped; sizes are
 * read again from the disk. The trash of users that no longer exist is removed.
 */
export async function adoptTrash(nimbus: NimbusContext): Promise<{ adopted: number; dropped: number }> {
  // In a cluster another daemon's commit arrives one notification at a time, and a row an earlier
  // one names is read as it is now: a trashed file can be here a moment before its trash record.
  // Catch up first, so that the survey compares whole commits.
  await nimbus.store.catchUp();
  const found = await nimbus.storage.trash.survey((username) => nimbus.store.users.has(username));
  let adopted = 0;
  let dropped = 0;
  let changed = false;
  for (const item of [...nimbus.store.trash.values()]) {
    const entry = found.get(item.username)?.find((e) => e.id === item.id);
    if (!entry) {
      nimbus.store.deleteTrash(item);
      dropped++;
    } else if (entry.kind !== item.kind || entry.name !== item.name || entry.size !== item.size || entry.fileCount !== item.fileCount) {
      // A restore of a folder cut short left some of its files in the trash.
      nimbus.store.putTrash({ ...item, kind: entry.kind, name: entry.name, size: entry.size, fileCount: entry.fileCount });
      changed = true;
    }
  }
  for (const [username, entries] of found) {
    for (const entry of entries) {
      if (nimbus.store.trash.has(entry.id)) continue;
      nimbus.store.putTrash({
        id: entry.id,
        username,
        kind: entry.kind,
        name: entry.name,
        folder: null,
        size: entry.size,
        fileCount: entry.fileCount,
        deletedAt: new Date(entry.mtimeMs).toISOString(),
      });
      adopted++;
    }
  }
  try {
    if (adopted > 0 || dropped > 0 || changed) await nimbus.store.commit();
  } catch (err) {
    // Another daemon wrote those records meanwhile (the store has read them again): its are right.
    if (!(err instanceof ApiError && err.code === 'conflict')) throw err;
    nimbus.log('Nimbus: the trash changed on another daemon while this one checked it at start; kept as it is there.');
    return { adopted: 0, dropped: 0 };
  }
  if (adopted > 0 || dropped > 0)
    nimbus.log(`Nimbus: the trash after an interrupted stop: ${adopted} entries adopted, ${dropped} records without an entry dropped.`);
  return { adopted, dropped };
}

/** A renamed user's trash follows them (its directory and records); the caller commits. */
export async function moveTrashOf(nimbus: NimbusContext, from: string, to: string): Promise<void> {
  await nimbus.storage.trash.renameUser(from, to);
  for (const item of nimbus.store.trashOf(from)) nimbus.store.putTrash({ ...item, username: to });
}

/** A deleted user's trash records (the caller commits, then calls removeTrashDirOf). */
export function dropTrashOf(nimbus: NimbusContext, username: string): void {
  for (const item of nimbus.store.trashOf(username)) nimbus.store.deleteTrash(item);
}

/** Removes a deleted user's trash (its bytes). */
export function removeTrashDirOf(nimbus: NimbusContext, username: string): Promise<void> {
  return nimbus.storage.trash.removeUser(username);
}
