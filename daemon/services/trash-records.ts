/**
 * The trash's records in the store (one per item, services/trash.ts): how the API shows them,
 * how they are found, and how they are kept in agreement with the storage's trash at start
 * and with their user through a rename or a delete.
 */
import path from 'node:path';
import type { TrashItem } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { ApiError, notFound } from '../errors.js';
import type { StoredTrashItem } from '../store/schema.js';
import { requireUser } from './records.js';

export const DAY_MS = 86_400_000;

/** Where the disk's trash is (Storage's default): daemon/daemon.ts makes it at start. */
export const trashRoot = (nimbus: NimbusContext): string => path.join(nimbus.config.dataDir, 'trash');

/** An item's lock: two restores, or a restore and a purge, of one item run one after the other. */
export const itemLock = (id: string) => `trash:${id}`;

/** A trash item as the API answers it. */
function toTrashItem(nimbus: NimbusContext, item: StoredTrashItem): TrashItem {
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

export function requireItem(nimbus: NimbusContext, username: string, id: string): StoredTrashItem {
  const item = nimbus.store.trash.get(id);
  // Another user's item is as one that does not exist.
  if (!item || item.username !== username) throw notFound('trash_item_not_found', 'Trash item not found');
  return item;
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
