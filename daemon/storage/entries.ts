/** Folders and files inside a user's directory: made, deleted, renamed, always through directories opened without following links. */
import { lstat, unlink } from 'node:fs/promises';
import { conflict, fromFsError, notFound } from '../errors.js';
import { foldName } from './case-folds.js';
import { ignoreMissing } from './fs-helpers.js';
import { lstatIn, mkdirIn, removeTree, renameInSync, renameNoClobberSync } from './safe-ops.js';
import { splitFolder } from './paths.js';
import { folderKey, keysOf, within, type StorageParts } from './storage-parts.js';

/** Makes the folder at `folder` (a path) inside its parent, which must exist (404 folder_not_found). */
export async function createFolder(s: StorageParts, username: string, folder: string): Promise<void> {
  s.assertWritable();
  s.path(username, folder);
  if (s.index.folder(username, folder)) throw conflict('folder_exists', 'Folder already exists');
  const { parent, name } = splitFolder(folder);
  s.requireFolder(username, parent);
  await s.live.run(keysOf(username, parent), false, () =>
    within(s.storageDir, username, parent, parent === null ? 'user_not_found' : 'folder_not_found', async (dir) => {
      await withMkdirErrors(mkdirIn(dir, name));
      // Acknowledged only once the new entry is on disk, as every mutation is (DESIGN.md).
      await dir.fsync();
      const stat = await lstat(dir.at(name));
      s.index.addFolder(username, folder, stat.mtimeMs, stat);
    }),
  );
}

export async function deleteFolder(s: StorageParts, username: string, folder: string): Promise<void> {
  s.assertWritable();
  s.path(username, folder);
  s.requireFolder(username, folder);
  // One name in its parent (opened without following links), removed with its whole subtree.
  const { parent, name } = splitFolder(folder);
  await s.live.run(keysOf(username, parent), false, () =>
    s.live.run([folderKey(username, folder)], true, () =>
      within(s.storageDir, username, parent, 'folder_not_found', async (dir) => {
        if (!(await lstatIn(dir, name))?.isDirectory()) throw notFound('folder_not_found', 'Folder not found');
        s.tickets.voidAll(username, folder);
        await removeTree(dir, name);
        s.index.removeFolder(username, folder);
      }),
    ),
  );
}

export async function deleteFile(s: StorageParts, username: string, folder: string | null, file: string): Promise<void> {
  s.assertWritable();
  s.path(username, folder, file);
  s.requireFile(username, folder, file);
  await s.live.run(keysOf(username, folder), false, () =>
    within(s.storageDir, username, folder, 'file_not_found', async (dir) => {
      const stat = await lstatIn(dir, file);
      if (stat && !stat.isFile()) throw notFound('file_not_found', 'File not found');
      await unlink(dir.at(file)).catch(ignoreMissing);
      await dir.fsync();
      s.index.removeFile(username, folder, file);
    }),
  );
}

/** Renames without ever replacing another file (renameat2's RENAME_NOREPLACE, or link + unlink: both fail on EEXIST). */
export async function renameFile(
  s: StorageParts,
  username: string,
  folder: string | null,
  file: string,
  newName: string,
  whileLocked: () => void = () => undefined,
): Promise<void> {
  s.assertWritable();
  s.path(username, folder, file);
  s.path(username, folder, newName);
  const meta = s.requireFile(username, folder, file);
  if (file === newName) return;
  if (s.index.getFile(username, folder, newName)) throw conflict('file_exists', 'A file with that name already exists');
  await s.live.run(keysOf(username, folder), false, () =>
    within(s.storageDir, username, folder, 'file_not_found', async (dir) => {
      const stat = await lstatIn(dir, file);
      if (!stat?.isFile()) throw notFound('file_not_found', 'File not found');
      // Synchronous: directory metadata in the kernel's caches, cheaper than a trip through the
      // thread pool (safe-dir.ts); the fsync that makes it durable is not.
      if (foldName(file) === foldName(newName)) {
        // A case-only rename: on a case-insensitive disk link() would find "itself".
        const there = await lstatIn(dir, newName);
        if (there && there.ino !== stat.ino) throw conflict('file_exists', 'A file with that name already exists');
        renameInSync(dir, file, newName);
      } else {
        try {
          renameNoClobberSync(dir, file, dir, newName);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw conflict('file_exists', 'A file with that name already exists');
          throw fromFsError(err) ?? err;
        }
      }
      await dir.fsync();
      s.index.removeFile(username, folder, file);
      s.index.setFile(username, folder, newName, meta);
      whileLocked();
    }),
  );
}

/** Maps a mkdir failure to the API's errors: an existing name is `folder_exists`. */
async function withMkdirErrors<T>(op: Promise<T>): Promise<T> {
  try {
    return await op;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw conflict('folder_exists', 'Folder already exists');
    throw fromFsError(err) ?? err;
  }
}
