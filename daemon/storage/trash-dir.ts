/**
 * The trash on disk: `<data-dir>/trash/<username>/<id>/<name>` (a file, or a folder with its
 * files), outside the storage directory so the folder the user sees stays what they put
 * there. Entries move in and out through directories opened without following links
 * (safe-dir.ts), with one rename when both sides share a file system, else copied (links
 * skipped, never followed), fsynced, then removed. Nothing here ever replaces an entry.
 */
import { constants } from 'node:fs';
import { link, lstat, mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { fromFsError, notFound } from '../errors.js';
import { NameTaken, type Placed, type RestoreTarget, type TrashEntry, type TrashStorage, type TrashTarget } from './file-storage.js';
import { ignoreExists, ignoreMissing, isNoDir } from './fs-helpers.js';
import { OpenDir, withDir } from './safe-dir.js';
import { lstatIn, mkdirIn, removeTree } from './safe-ops.js';
import { errnoCode } from '../util/errno.js';
import { folderKey, keysOf, userKey, within, type StorageParts } from './storage-parts.js';
import type { FileMeta } from './index-tree.js';

/** A name a copy is written under before it takes its real one: never a half file under the real name. */
const STAGED = /^\.nimbus-staged-[0-9a-f]{24}$/;
const stagedName = () => `.nimbus-staged-${randomBytes(12).toString('hex')}`;

/** A trash item's directory name: 16 random bytes, hex (shared/endpoints.ts checks the same). */
export const TRASH_ID = /^[0-9a-f]{32}$/;

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

/** Copies the regular file `from` (opened without following a link) to a new file `to` ('wx': never over anything). */
async function copyFileNoFollow(from: string, to: string): Promise<void> {
  const source = await open(from, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!(await source.stat()).isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTFILE' });
    const target = await open(to, 'wx', 0o600);
    try {
      const buffer = Buffer.allocUnsafe(1 << 20);
      for (;;) {
        const { bytesRead } = await source.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        let written = 0;
        while (written < bytesRead) written += (await target.write(buffer, written, bytesRead - written)).bytesWritten;
      }
      await target.sync();
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

/** Copies the directory `name` of `from` into a new directory `toName` of `to`: regular files and directories, links skipped. */
async function copyTree(from: OpenDir, name: string, to: OpenDir, toName: string): Promise<void> {
  const source = await from.child(name);
  try {
    await mkdirIn(to, toName);
    const target = await to.child(toName);
    try {
      for (const entry of await readdir(source.at(), { withFileTypes: true })) {
        if (entry.isDirectory()) await copyTree(source, entry.name, target, entry.name);
        else if (entry.isFile()) await copyFileNoFollow(source.at(entry.name), target.at(entry.name));
      }
      await target.fsync();
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

/** What is at `name` in `dir`, for a 409's code. */
async function takenBy(dir: OpenDir, name: string): Promise<NameTaken> {
  const stat = await lstatIn(dir, name);
  return new NameTaken(stat?.isDirectory() ? 'folder' : stat?.isFile() ? 'file' : 'other');
}

/**
 * Moves the file or directory `name` of `from` to `toName` in `to`, never replacing anything
 * there (NameTaken). A file is linked then unlinked (link fails on any existing name); a
 * directory is renamed (which fails on a file or a non-empty directory) after checking the
 * name is free. Across file systems (EXDEV) the copy is written under a staged name,
 * fsynced, given its name the same way, and only then is the original removed.
 * `placed` runs synchronously once the entry is under its new name (before the original
 * of a copy is removed), so the callers' index and store change in one step with the disk.
 */
async function moveEntry(from: OpenDir, name: string, to: OpenDir, toName: string, placed: () => void): Promise<void> {
  const stat = await lstatIn(from, name);
  if (!stat || (!stat.isFile() && !stat.isDirectory())) throw Object.assign(new Error('gone'), { code: 'ENOENT' });
  if (stat.isFile()) {
    try {
      await link(from.at(name), to.at(toName));
    } catch (err) {
      if (errnoCode(err) === 'EEXIST') throw await takenBy(to, toName);
      if (errnoCode(err) !== 'EXDEV' && errnoCode(err) !== 'EPERM') throw err;
      const staged = stagedName();
      await copyFileNoFollow(from.at(name), to.at(staged));
      try {
        await link(to.at(staged), to.at(toName));
      } catch (linkErr) {
        await unlink(to.at(staged)).catch(ignoreMissing);
        if (errnoCode(linkErr) === 'EEXIST') throw await takenBy(to, toName);
        throw linkErr;
      }
      await unlink(to.at(staged));
    }
    await to.fsync();
    placed();
    await unlink(from.at(name)).catch(ignoreMissing);
    await from.fsync();
    return;
  }
  if (await lstatIn(to, toName)) throw await takenBy(to, toName);
  try {
    await rename(from.at(name), to.at(toName));
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR') throw await takenBy(to, toName);
    if (code !== 'EXDEV') throw err;
    const staged = stagedName();
    await copyTree(from, name, to, staged);
    try {
      if (await lstatIn(to, toName)) throw await takenBy(to, toName);
      await rename(to.at(staged), to.at(toName));
    } catch (renameErr) {
      await removeTree(to, staged);
      const renameCode = errnoCode(renameErr);
      if (renameCode === 'ENOTEMPTY' || renameCode === 'EEXIST' || renameCode === 'ENOTDIR') throw await takenBy(to, toName);
      throw renameErr;
    }
    await to.fsync();
    placed();
    await removeTree(from, name);
    await from.fsync();
    return;
  }
  await to.fsync();
  await from.fsync();
  placed();
}

/**
 * Moves a user's file or folder into `<trash>/<username>/<id>/<name>`. A file's directory is
 * held shared; a folder exclusively, and its uploads in flight are voided (they end in 404),
 * as a delete does. `moved` runs synchronously once the entry is in the trash.
 */
export async function moveToTrash(s: StorageParts, trashRoot: string, target: TrashTarget, moved: () => void): Promise<void> {
  const { username, folder, name, kind, id } = target;
  s.assertWritable();
  s.path(username, folder, name);
  const missing = kind === 'file' ? 'file_not_found' : 'folder_not_found';
  const work = () =>
    within(s.storageDir, username, kind === 'file' ? folder : null, missing, async (dir) => {
      const stat = await lstatIn(dir, name);
      if (!(kind === 'file' ? stat?.isFile() : stat?.isDirectory()))
        throw notFound(missing, kind === 'file' ? 'File not found' : 'Folder not found');
      if (kind === 'folder') s.tickets.voidAll(username, name);
      const itemDir = await openNewItemDir(trashRoot, username, id);
      let inTrash = false;
      try {
        await moveEntry(dir, name, itemDir, name, () => {
          inTrash = true;
          moved();
        });
      } catch (err) {
        await itemDir.close();
        // In the trash already (a later fsync or removal failed): the entry stays where it is, with its record.
        if (inTrash) throw fromFsError(err) ?? err;
        // The entry did not move: its empty item directory goes too.
        await withDir(trashRoot, [username], (mine) => removeTree(mine, id)).catch(() => undefined);
        if (errnoCode(err) === 'ENOENT') throw notFound(missing, kind === 'file' ? 'File not found' : 'Folder not found');
        throw fromFsError(err) ?? err;
      }
      await itemDir.close();
    });
  if (kind === 'file') await s.live.run(keysOf(username, folder), false, work);
  else await s.live.run([userKey(username)], false, () => s.live.run([folderKey(username, name)], true, work));
}

/** Reads the regular files directly in `dir` (what the index counts), with their metas. */
async function filesIn(dir: OpenDir): Promise<Map<string, FileMeta>> {
  const files = new Map<string, FileMeta>();
  for (const entry of await readdir(dir.at(), { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const stat = await lstatIn(dir, entry.name);
    if (stat?.isFile()) files.set(entry.name, { size: stat.size, mtimeMs: stat.mtimeMs });
  }
  return files;
}

/**
 * Moves a trash item back into storage under `target.as`, never replacing anything
 * (NameTaken). A file's folder that no longer exists is made again (a file of that name at
 * the root is NameTaken 'file'). `placed` runs synchronously once the entry is in storage,
 * with what the index should learn. The item's directory is removed afterwards.
 */
export async function restoreFromTrash(
  s: StorageParts,
  trashRoot: string,
  target: RestoreTarget,
  placed: (what: Placed) => void,
): Promise<void> {
  const { username, folder, name, kind, id, as } = target;
  s.assertWritable();
  s.path(username, folder, as);
  const fromTrash = async (fn: (itemDir: OpenDir) => Promise<void>) => {
    try {
      await withDir(trashRoot, [username, id], fn);
    } catch (err) {
      if (isNoDir(err)) throw notFound('trash_item_not_found', 'Trash item not found');
      throw err;
    }
  };
  if (kind === 'folder') {
    await s.live.run([userKey(username)], false, () =>
      s.live.run([folderKey(username, as)], true, () =>
        within(s.storageDir, username, null, 'user_not_found', (userDir) =>
          fromTrash(async (itemDir) => {
            await moveOrMissing(
              itemDir,
              name,
              userDir,
              as,
              async () => {
                const restored = await userDir.child(as);
                try {
                  const [files, stat] = await Promise.all([filesIn(restored), restored.stat()]);
                  return { files, folderMtimeMs: stat.mtimeMs };
                } finally {
                  await restored.close();
                }
              },
              placed,
            );
          }),
        ),
      ),
    );
  } else {
    let folderMtimeMs: number | null = null;
    if (folder !== null) folderMtimeMs = await ensureFolder(s, username, folder);
    await s.live.run(keysOf(username, folder), false, () =>
      within(s.storageDir, username, folder, folder === null ? 'user_not_found' : 'folder_not_found', (dir) =>
        fromTrash(async (itemDir) => {
          await moveOrMissing(
            itemDir,
            name,
            dir,
            as,
            async () => {
              const stat = await lstat(dir.at(as));
              return { files: new Map([[as, { size: stat.size, mtimeMs: stat.mtimeMs }]]), folderMtimeMs };
            },
            placed,
          );
        }),
      ),
    );
  }
  await removeTrashItem(trashRoot, username, id);
}

/**
 * moveEntry with what the index learns read right after the entry lands (before `placed`
 * runs, so the index and store change in one synchronous step), and a missing trash entry
 * as a 404.
 */
async function moveOrMissing(
  from: OpenDir,
  name: string,
  to: OpenDir,
  as: string,
  read: () => Promise<Placed>,
  placed: (what: Placed) => void,
): Promise<void> {
  let landed = false;
  try {
    await moveEntry(from, name, to, as, () => {
      landed = true;
    });
  } catch (err) {
    // In storage already (a later fsync or removal failed): the index and the store learn it all the same.
    if (landed) placed(await read());
    if (err instanceof NameTaken) throw err;
    if (errnoCode(err) === 'ENOENT') throw notFound('trash_item_not_found', 'Trash item not found');
    throw fromFsError(err) ?? err;
  }
  if (landed) placed(await read());
}

/** Makes a user's folder again for a restored file (or finds it); its mtime. A file or link of that name is NameTaken. */
async function ensureFolder(s: StorageParts, username: string, folder: string): Promise<number> {
  return s.live.run([userKey(username)], false, () =>
    within(s.storageDir, username, null, 'user_not_found', async (dir) => {
      let stat = await lstatIn(dir, folder);
      if (!stat) {
        await mkdirIn(dir, folder).catch(ignoreExists);
        await dir.fsync();
        stat = await lstatIn(dir, folder);
      }
      if (!stat?.isDirectory()) throw new NameTaken(stat?.isFile() ? 'file' : 'other');
      s.index.addFolder(username, folder, stat.mtimeMs);
      return stat.mtimeMs;
    }),
  );
}

/** Removes one item's directory from a user's trash (nothing there is fine). */
export async function removeTrashItem(trashRoot: string, username: string, id: string): Promise<void> {
  try {
    await withDir(trashRoot, [username], (mine) => removeTree(mine, id));
  } catch (err) {
    if (!isNoDir(err)) throw err;
  }
}

/** Removes a user's whole trash directory (a deleted user). */
export async function removeUserTrash(trashRoot: string, username: string): Promise<void> {
  try {
    await withDir(trashRoot, [], (root) => removeTree(root, username));
  } catch (err) {
    if (!isNoDir(err)) throw err;
  }
}

/**
 * Renames a user's trash directory with the user. What is already at the new name belongs
 * to no user (a user of that name does not exist, or the rename would have been refused):
 * it is a leftover of a crash, and is removed first.
 */
export async function renameUserTrash(trashRoot: string, from: string, to: string): Promise<void> {
  try {
    await withDir(trashRoot, [], async (root) => {
      if (!(await lstatIn(root, from))?.isDirectory()) return;
      const there = await lstatIn(root, to);
      const source = await lstatIn(root, from);
      // A case-only rename on a case-insensitive disk finds the directory itself.
      if (there && !(there.ino === source?.ino && there.dev === source.dev)) await removeTree(root, to);
      await rename(root.at(from), root.at(to));
      await root.fsync();
    });
  } catch (err) {
    if (!isNoDir(err)) throw err;
  }
}

/**
 * Reads the trash at start: each user's items as they are on disk, after removing what a
 * crash left half done (staged copies, item directories holding no entry, names that are not
 * items). Users not in `keep` (deleted while their trash was being removed) lose their trash.
 */
export async function readTrash(trashRoot: string, keep: (username: string) => boolean): Promise<Map<string, TrashEntry[]>> {
  const found = new Map<string, TrashEntry[]>();
  let root: OpenDir;
  try {
    root = await OpenDir.open(trashRoot, []);
  } catch (err) {
    if (isNoDir(err)) return found;
    throw err;
  }
  try {
    for (const user of await readdir(root.at(), { withFileTypes: true })) {
      if (!user.isDirectory() || !keep(user.name)) {
        await removeTree(root, user.name);
        continue;
      }
      const mine = await root.child(user.name);
      try {
        found.set(user.name, await readUserTrash(mine));
      } finally {
        await mine.close();
      }
    }
  } finally {
    await root.close();
  }
  return found;
}

async function readUserTrash(mine: OpenDir): Promise<TrashEntry[]> {
  const entries: TrashEntry[] = [];
  for (const item of await readdir(mine.at(), { withFileTypes: true })) {
    if (!item.isDirectory() || !TRASH_ID.test(item.name)) {
      await removeTree(mine, item.name);
      continue;
    }
    const itemDir = await mine.child(item.name);
    let entry: TrashEntry | null = null;
    try {
      const mtimeMs = (await itemDir.stat()).mtimeMs;
      for (const inner of await readdir(itemDir.at(), { withFileTypes: true })) {
        if (STAGED.test(inner.name) || entry !== null) {
          await removeTree(itemDir, inner.name);
          continue;
        }
        if (inner.isFile()) {
          const stat = await lstatIn(itemDir, inner.name);
          entry = { id: item.name, kind: 'file', name: inner.name, size: stat?.size ?? 0, fileCount: 1, mtimeMs };
        } else if (inner.isDirectory()) {
          const folder = await itemDir.child(inner.name);
          try {
            const files = await filesIn(folder);
            let size = 0;
            for (const meta of files.values()) size += meta.size;
            entry = { id: item.name, kind: 'folder', name: inner.name, size, fileCount: files.size, mtimeMs };
          } finally {
            await folder.close();
          }
        } else await removeTree(itemDir, inner.name);
      }
    } finally {
      await itemDir.close();
    }
    if (entry) entries.push(entry);
    else await removeTree(mine, item.name);
  }
  return entries;
}

/**
 * The disk's trash (FileStorage.trash): `<trashDir>/<username>/<id>/<name>`, moved in and
 * out of the storage directory of `s` with the functions above.
 */
export class DiskTrash implements TrashStorage {
  constructor(
    private readonly s: StorageParts,
    readonly trashDir: string,
  ) {}

  moveIn(target: TrashTarget, moved: () => void): Promise<void> {
    return moveToTrash(this.s, this.trashDir, target, moved);
  }

  restore(target: RestoreTarget, placed: (what: Placed) => void): Promise<void> {
    return restoreFromTrash(this.s, this.trashDir, target, placed);
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
