/**
 * The trash on disk: `<data-dir>/trash/<username>/<id>/<name>` (a file, or a folder with its
 * files), outside the storage directory so the folder the user sees stays what they put
 * there. Entries move in and out with trash-moves.ts; the directory's upkeep (start-up,
 * removals, a renamed user) is trash-upkeep.ts. Each move changes the index itself
 * (trash-index.ts) in the step the entry lands, so the watcher's echo of it changes nothing,
 * and runs the service's `record` hook in that same step.
 */
import { lstat, mkdir } from 'node:fs/promises';
import { fromFsError, notFound } from '../errors.js';
import { NameTaken } from './file-storage.js';
import type { Placed, RestoreTarget, Trashed, TrashEntry, TrashStorage, TrashTarget } from './file-storage.js';
import { ignoreExists, isNoDir } from './fs-helpers.js';
import { OpenDir, withDir } from './safe-dir.js';
import { ensureFolder } from './restore-folder.js';
import { lstatIn, mkdirIn, removeTree } from './safe-ops.js';
import { folderKey, keysOf, within, type StorageParts } from './storage-parts.js';
import { showRestored, takeOutOfIndex } from './trash-index.js';
import { moveEntry } from './trash-moves.js';
import { errnoCode } from '../util/errno.js';
import { filesIn, foldersBelow, readTrash, removeTrashItem, removeUserTrash, renameUserTrash } from './trash-upkeep.js';

/** Opens `<trash>/<username>/<id>`, making what is missing; a link anywhere on the way is refused. */
async function openNewItemDir(trashRoot: string, username: string, id: string): Promise<OpenDir> {
  return withDir(trashRoot, [], async (root) => {
    await mkdirIn(root, username).catch(ignoreExists);
    const mine = await root.child(username);
    try {
      await mkdirIn(mine, id);
      await mine.fsync();
      return await mine.child(id);
    } finally {
      await mine.close();
    }
  });
}

/**
 * Moves a user's file or folder into `<trash>/<username>/<id>/<name>` and out of the index. A
 * file's directory is held shared; a folder exclusively, and its uploads in flight are voided
 * (they end in 404), as a delete does.
 */
async function moveToTrash(s: StorageParts, trashRoot: string, target: TrashTarget, record: (trashed: Trashed) => void): Promise<Trashed> {
  const { username, folder, name, kind, id } = target;
  s.assertWritable();
  s.path(username, folder, name);
  // A folder is one name in its parent (any depth): it moves whole, with its subtree.
  const at = folder === null ? name : `${folder}/${name}`;
  const missing = kind === 'file' ? 'file_not_found' : 'folder_not_found';
  const gone = () => notFound(missing, kind === 'file' ? 'File not found' : 'Folder not found');
  let trashed = null as Trashed | null;
  const work = () =>
    within(s.storageDir, username, folder, missing, async (dir) => {
      const stat = await lstatIn(dir, name);
      if (!(kind === 'file' ? stat?.isFile() : stat?.isDirectory())) throw gone();
      if (kind === 'folder') s.tickets.voidAll(username, at);
      const itemDir = await openNewItemDir(trashRoot, username, id);
      let inTrash = false;
      try {
        await moveEntry(dir, name, itemDir, name, () => {
          inTrash = true;
          trashed = takeOutOfIndex(s.index, target);
          record(trashed);
        });
      } catch (err) {
        await itemDir.close();
        // In the trash already (a later fsync or removal failed): the entry stays where it is, with its record.
        if (inTrash) throw fromFsError(err) ?? err;
        // The entry did not move: its empty item directory goes too.
        await withDir(trashRoot, [username], (mine) => removeTree(mine, id)).catch(() => undefined);
        if (errnoCode(err) === 'ENOENT') throw gone();
        throw fromFsError(err) ?? err;
      }
      await itemDir.close();
    });
  if (kind === 'file') await s.live.run(keysOf(username, folder), false, work);
  // Its parent's keys shared, its own exclusive: work anywhere in the subtree (which holds it shared) runs before or after.
  else await s.live.run(keysOf(username, folder), false, () => s.live.run([folderKey(username, at)], true, work));
  return trashed!;
}

/**
 * Moves a trash item back into storage under `target.as` and into the index, never replacing
 * anything (NameTaken). A file's folder that no longer exists is made again (a file of that
 * name at the root is NameTaken 'file'). The item's directory is removed afterwards.
 */
async function restoreFromTrash(
  s: StorageParts,
  trashRoot: string,
  target: RestoreTarget,
  record: (placed: Placed) => void,
): Promise<Placed> {
  const { username, folder, name, kind, id, as } = target;
  s.assertWritable();
  s.path(username, folder, as);
  const land = (placed: Placed) => {
    showRestored(s.index, target, placed);
    record(placed);
  };
  /** Moves the entry from the item's directory into `to`; `read` says what landed. */
  const moveInto = (to: OpenDir, read: () => Promise<Placed>) =>
    withDir(trashRoot, [username, id], (itemDir) => moveOrMissing(itemDir, name, to, as, read, land)).catch((err: unknown) => {
      throw isNoDir(err) ? notFound('trash_item_not_found', 'Trash item not found') : err;
    });
  let placed: Placed;
  if (kind === 'folder') {
    // Its old parent path, made again level by level where it is gone; the subtree comes back whole.
    if (folder !== null) await ensureFolder(s, username, folder);
    const at = folder === null ? as : `${folder}/${as}`;
    placed = await s.live.run(keysOf(username, folder), false, () =>
      s.live.run([folderKey(username, at)], true, () =>
        within(s.storageDir, username, folder, folder === null ? 'user_not_found' : 'folder_not_found', (parentDir) =>
          moveInto(parentDir, async () => {
            const restored = await parentDir.child(as);
            try {
              const [files, stat, below] = await Promise.all([filesIn(restored), restored.stat(), foldersBelow(restored)]);
              return { files, folderMtimeMs: stat.mtimeMs, below };
            } finally {
              await restored.close();
            }
          }),
        ),
      ),
    );
  } else {
    const folderMtimeMs = folder === null ? null : await ensureFolder(s, username, folder);
    placed = await s.live.run(keysOf(username, folder), false, () =>
      within(s.storageDir, username, folder, folder === null ? 'user_not_found' : 'folder_not_found', (dir) =>
        moveInto(dir, async () => {
          const stat = await lstat(dir.at(as));
          return { files: new Map([[as, { size: stat.size, mtimeMs: stat.mtimeMs }]]), folderMtimeMs };
        }),
      ),
    );
  }
  await removeTrashItem(trashRoot, username, id);
  return placed;
}

/**
 * moveEntry with what landed read right after the entry lands, then given to `land` (the
 * index and the record change in one synchronous step), and a missing trash entry as a 404.
 */
async function moveOrMissing(
  from: OpenDir,
  name: string,
  to: OpenDir,
  as: string,
  read: () => Promise<Placed>,
  land: (placed: Placed) => void,
): Promise<Placed> {
  let landed = false;
  try {
    await moveEntry(from, name, to, as, () => {
      landed = true;
    });
  } catch (err) {
    // In storage already (a later fsync or removal failed): the index and the store learn it all the same.
    if (landed) land(await read());
    if (err instanceof NameTaken) throw err;
    if (errnoCode(err) === 'ENOENT') throw notFound('trash_item_not_found', 'Trash item not found');
    throw fromFsError(err) ?? err;
  }
  const placed = await read();
  land(placed);
  return placed;
}

/** The disk's trash (FileStorage.trash): `<trashDir>/<username>/<id>/<name>`, beside the storage directory of `s`. */
export class DiskTrash implements TrashStorage {
  constructor(
    private readonly s: StorageParts,
    readonly trashDir: string,
  ) {}

  moveIn(target: TrashTarget, record: (trashed: Trashed) => void): Promise<Trashed> {
    return moveToTrash(this.s, this.trashDir, target, record);
  }

  restore(target: RestoreTarget, record: (placed: Placed) => void): Promise<Placed> {
    return restoreFromTrash(this.s, this.trashDir, target, record);
  }

  removeItem(username: string, id: string): Promise<void> {
    return removeTrashItem(this.trashDir, username, id);
  }

  removeUser(username: string): Promise<void> {
    return removeUserTrash(this.trashDir, username);
  }

  renameUser(from: string, to: string): Promise<void> {
    return renameUserTrash(this.trashDir, from, to);
  }

  /** Makes the trash directory (private to the daemon's user) if it is missing, then reads it. */
  async survey(keep: (username: string) => boolean): Promise<Map<string, TrashEntry[]>> {
    await mkdir(this.trashDir, { recursive: true, mode: 0o700 });
    return readTrash(this.trashDir, keep);
  }
}
