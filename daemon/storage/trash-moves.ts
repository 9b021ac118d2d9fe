/**
 * How an entry moves into and out of the trash on disk (trash-dir.ts): through directories
 * opened without following links (safe-dir.ts), with one rename (or link, for a file) when
 * both sides share a file system, else copied under a staged name (links skipped, never
 * followed), fsynced, given its name, then the original removed. Nothing here ever replaces
 * an entry: a taken name is NameTaken.
 */
import { constants } from 'node:fs';
import { link, open, readdir, rename, unlink } from 'node:fs/promises';
import { NameTaken } from './file-storage.js';
import { ignoreMissing } from './fs-helpers.js';
import type { OpenDir } from './safe-dir.js';
import { lstatIn, mkdirIn, removeTree } from './safe-ops.js';
// A copy is written under a staged name before it takes its real one: never a half file under the real name.
import { stagedName } from './staging-names.js';
import { errnoCode } from '../util/errno.js';

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
export async function moveEntry(from: OpenDir, name: string, to: OpenDir, toName: string, placed: () => void): Promise<void> {
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
