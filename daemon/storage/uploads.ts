/** Uploads on disk: checked before the body is read, received into a temp file (temp-upload.ts), then moved into place. */
import { constants, linkSync, lstatSync } from 'node:fs';
import { copyFile, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { fsyncDirectory } from '../store/fsync.js';
import { ApiError, conflict, fileTaken, fromFsError, notFound } from '../errors.js';
import type { FileMeta } from './index-tree.js';
import type { OpenDir } from './safe-dir.js';
import { lstatIn, renameIntoNoClobberSync, renameIntoSync } from './safe-ops.js';
import { replacingName } from './staging-names.js';
import { keysOf, within, type StorageParts } from './storage-parts.js';
import type { UploadTicket } from './upload-tickets.js';

/**
 * Checks, before a byte of the body is read, that an upload could land: the folder is a
 * real directory and the name is free (or a file, with `overwrite`).
 */
export async function checkUploadTarget(
  s: StorageParts,
  username: string,
  folder: string | null,
  file: string,
  overwrite: boolean,
): Promise<void> {
  s.assertWritable();
  s.path(username, folder, file);
  s.requireFolder(username, folder);
  await within(s.storageDir, username, folder, folder === null ? 'user_not_found' : 'folder_not_found', async (dir) => {
    const existing = await lstatIn(dir, file);
    if (existing && !existing.isFile()) throw conflict('file_exists', 'A folder or link with that name already exists');
    if (existing && !overwrite) throw fileTaken();
  });
}

/**
 * Moves a received temp file into place; without `overwrite`, an existing file is a 409.
 * Under the user's (and folder's) shared lock: a voided ticket or `isCurrent()` false
 * (the user was deleted, perhaps made again) is a 404. A missing user directory or
 * folder is never made again here (a reconcile puts back a user's directory). The temp
 * file is removed on every failure.
 */
export async function placeUpload(
  s: StorageParts,
  tempPath: string,
  ticket: UploadTicket,
  file: string,
  overwrite: boolean,
  isCurrent: () => boolean,
  keepReplacedAt?: string,
): Promise<FileMeta> {
  const { username, folder } = ticket;
  try {
    s.assertWritable();
    s.path(username, folder, file);
    return await s.live.run(keysOf(username, folder), false, async () => {
      if (ticket.void || !isCurrent()) {
        throw folder === null
          ? notFound('user_not_found', 'The user was deleted during the upload')
          : notFound('folder_not_found', 'The folder was deleted during the upload');
      }
      return within(s.storageDir, username, folder, folder === null ? 'user_not_found' : 'folder_not_found', async (dir) => {
        const existing = await lstatIn(dir, file);
        if (existing && !existing.isFile()) throw conflict('file_exists', 'A folder or link with that name already exists');
        // The replaced content kept as a version: its inode linked (durably) before the new file takes the name.
        if (overwrite && existing && keepReplacedAt) await keepReplaced(dir, file, keepReplacedAt);
        if (overwrite) await moveReplacing(tempPath, dir, file);
        else await moveNoClobber(tempPath, dir, file);
        await dir.fsync();
        await dir.recheck();
        // Null only if the file went meanwhile: then the plain call fails with its own ENOENT.
        const stat = (await lstatIn(dir, file)) ?? lstatSync(dir.at(file));
        const meta = { size: stat.size, mtimeMs: stat.mtimeMs };
        s.index.setFile(username, folder, file, meta);
        return meta;
      });
    });
  } catch (err) {
    await unlink(tempPath).catch(() => undefined);
    if (err instanceof ApiError) throw err;
    throw fromFsError(err) ?? err;
  }
}

/**
 * The temp file takes its name with one renameat2(RENAME_NOREPLACE) (a link and an unlink where
 * there is none: safe-ops.ts), synchronously: metadata the kernel changes in its caches, in a few µs,
 * where a trip through the thread pool cost ~40 µs of the main thread (safe-dir.ts). Only the
 * fsyncs, which wait for the disk, go to the pool.
 */
async function moveNoClobber(from: string, dir: OpenDir, name: string): Promise<void> {
  const to = dir.at(name);
  try {
    renameIntoNoClobberSync(from, dir, name);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw fileTaken();
    if (code !== 'EXDEV' && code !== 'EPERM') throw err;
    // Another file system (or one without hard links): copy exclusively (O_EXCL never follows a link), then drop the temp.
    await copyFile(from, to, constants.COPYFILE_EXCL).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'EEXIST') throw fileTaken();
      throw e;
    });
    await unlink(from);
  }
}

/**
 * Links the file about to be replaced to `to` (a version's path in the data directory), and
 * makes that entry durable. The file was checked to be a regular file under the lock; link()
 * never follows a symlink, so one swapped in meanwhile is kept as the link it is (and never
 * served: versions are opened without following links). Across file systems, a copy.
 */
async function keepReplaced(dir: OpenDir, name: string, to: string): Promise<void> {
  try {
    linkSync(dir.at(name), to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await copyFile(dir.at(name), to, constants.COPYFILE_EXCL);
  }
  await fsyncDirectory(path.dirname(to));
}

async function moveReplacing(from: string, dir: OpenDir, name: string): Promise<void> {
  try {
    renameIntoSync(from, dir, name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    const staged = dir.at(replacingName());
    await copyFile(from, staged, constants.COPYFILE_EXCL);
    await rename(staged, dir.at(name));
    await unlink(from);
  }
}
