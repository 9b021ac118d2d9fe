/**
 * Operations inside directories opened without following links (safe-dir.ts): lstat,
 * mkdir and removal of a name in an open directory, and lstat of many paths below the
 * storage directory, none of them following a link at any level.
 */
import { linkSync, lstatSync, renameSync, unlinkSync, type Stats } from 'node:fs';
import { lstat, mkdir, readdir, rm, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { errnoCode } from '../util/errno.js';
import { AT_FDCWD, atCalls } from './at-calls.js';
import { ignoreMissing, isNoDir } from './fs-helpers.js';
import { OpenDir, VIA_PROC, withDir } from './safe-dir.js';

/**
 * lstat of `name` in `dir`; null when nothing is there. Synchronous where `dir` is open (Linux):
 * a name in a directory just opened is answered from the kernel's caches, faster than the
 * thread pool's hops (safe-dir.ts says why, with the numbers).
 */
export async function lstatIn(dir: OpenDir, name: string): Promise<Stats | null> {
  try {
    const at = atCalls();
    if (at !== null && dir.fd !== null) return at.lstat(dir.fd, name);
    if (VIA_PROC) return lstatSync(dir.at(name), { throwIfNoEntry: false }) ?? null;
    return await lstat(dir.at(name));
  } catch (err) {
    if (isNoDir(err)) return null;
    throw err;
  }
}

/**
 * A second name `toName` in `to` for `fromName` in `from`, synchronously: directory metadata
 * in the kernel's caches, cheaper than a trip through the thread pool (safe-dir.ts). Fails
 * with EEXIST rather than replace anything.
 */
export function linkInSync(from: OpenDir, fromName: string, to: OpenDir, toName: string): void {
  const at = atCalls();
  if (at !== null && from.fd !== null && to.fd !== null) at.link(from.fd, fromName, to.fd, toName);
  else linkSync(from.at(fromName), to.at(toName));
}

/** As linkInSync, from an absolute path (a temp file in the daemon's own data directory). */
export function linkIntoSync(fromPath: string, to: OpenDir, toName: string): void {
  const at = atCalls();
  if (at !== null && to.fd !== null) at.link(AT_FDCWD, fromPath, to.fd, toName);
  else linkSync(fromPath, to.at(toName));
}

/**
 * Gives `fromName` in `from` the name `toName` in `to`, synchronously, never replacing anything
 * there (EEXIST): one renameat2(RENAME_NOREPLACE) where the file system offers it, else a link
 * and an unlink (a crash between them leaves both names, never none). One call instead of two,
 * and one pair of watcher events instead of a link's, an unlink's and the file's change of link
 * count. Like the link, it moves a name: a symlink is moved as the link it is.
 */
export function renameNoClobberSync(from: OpenDir, fromName: string, to: OpenDir, toName: string): void {
  if (from.fd !== null && renamedNoReplace(from.fd, fromName, to, toName)) return;
  linkInSync(from, fromName, to, toName);
  unlinkKeepingGone(() => unlinkInSync(from, fromName));
}

/** As renameNoClobberSync, from an absolute path (an upload's temp file in the daemon's own data directory). */
export function renameIntoNoClobberSync(fromPath: string, to: OpenDir, toName: string): void {
  if (renamedNoReplace(AT_FDCWD, fromPath, to, toName)) return;
  linkIntoSync(fromPath, to, toName);
  unlinkKeepingGone(() => unlinkSync(fromPath));
}

/**
 * Renames `fromPath` (an upload's temp file in the daemon's own data directory) to `toName` in
 * `to`, replacing what is there, synchronously; by descriptor where it can (at-calls.ts: a
 * /proc path costs the kernel the walk through /proc again), else through the /proc path.
 */
export function renameIntoSync(fromPath: string, to: OpenDir, toName: string): void {
  const at = atCalls();
  if (at !== null && to.fd !== null) at.rename(AT_FDCWD, fromPath, to.fd, toName);
  else renameSync(fromPath, to.at(toName));
}

/** Renames `fromName` to `toName` in the open directory `dir`, replacing what is there (a case-only rename), by descriptor where it can. */
export function renameInSync(dir: OpenDir, fromName: string, toName: string): void {
  const at = atCalls();
  if (at !== null && dir.fd !== null) at.rename(dir.fd, fromName, dir.fd, toName);
  else renameSync(dir.at(fromName), dir.at(toName));
}

/** renameat2(RENAME_NOREPLACE), or false where this system or file system has none (then: a link and an unlink). */
function renamedNoReplace(fromFd: number, fromName: string, to: OpenDir, toName: string): boolean {
  const at = atCalls();
  if (at === null || to.fd === null) return false;
  try {
    at.renameNoReplace(fromFd, fromName, to.fd, toName);
    return true;
  } catch (err) {
    const code = errnoCode(err);
    if (code !== 'EINVAL' && code !== 'ENOSYS' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err;
    return false;
  }
}

/** The old name's unlink after a link: gone meanwhile is the old name gone either way, which is what the rename was for. */
function unlinkKeepingGone(unlinkOld: () => void): void {
  try {
    unlinkOld();
  } catch (err) {
    ignoreMissing(err);
  }
}

/** Removes the name `name` (a file or a link, never what it points to) from `dir`, synchronously. */
export function unlinkInSync(dir: OpenDir, name: string): void {
  const at = atCalls();
  if (at !== null && dir.fd !== null) at.unlink(dir.fd, name);
  else unlinkSync(dir.at(name));
}

/** Creates the directory `name` in `dir` (not its parents: a missing parent stays missing). */
export function mkdirIn(dir: OpenDir, name: string): Promise<void> {
  return mkdir(dir.at(name)).then(() => undefined);
}

/**
 * Removes `name` in `dir` and everything below it. A symlink (or file) is removed itself,
 * never what it points to; each directory is opened without following links before its
 * entries are removed through it, so one swapped for a link mid-way is never descended.
 */
export async function removeTree(dir: OpenDir, name: string): Promise<void> {
  if (!VIA_PROC) {
    await dir.recheck();
    await rm(dir.at(name), { recursive: true, force: true });
    return;
  }
  let child: OpenDir;
  try {
    child = await dir.child(name);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code !== 'ENOTDIR') throw err;
    await unlink(dir.at(name)).catch(ignoreMissing);
    return;
  }
  try {
    // A program may add entries while they are removed: read again, a few times.
    for (let attempt = 0; ; attempt++) {
      for (const entry of await readdir(child.at(), { withFileTypes: true })) {
        if (entry.isDirectory()) await removeTree(child, entry.name);
        else
          await unlink(child.at(entry.name)).catch((err: NodeJS.ErrnoException) =>
            err.code === 'EISDIR' || err.code === 'EPERM' ? removeTree(child, entry.name) : ignoreMissing(err),
          );
      }
      try {
        await rmdir(dir.at(name));
        return;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') return; // moved away or swapped for a link: nothing of ours to remove there
        if (code !== 'ENOTEMPTY' || attempt >= 3) throw err;
      }
    }
  } finally {
    await child.close();
  }
}

const LSTAT_DIRS_AT_ONCE = 32;
const LSTAT_NAMES_AT_ONCE = 256;

/**
 * lstat of each path, with no link followed at any level below `root`: a path whose
 * directory is a link (or gone) reads as nothing there (null). Each directory is opened
 * once for all its names, a few directories at a time. Paths outside `root` are plain lstat.
 */
export async function lstatBelow(root: string, paths: string[]): Promise<(Stats | null)[]> {
  const out: (Stats | null)[] = new Array<Stats | null>(paths.length).fill(null);
  const byDir = new Map<string, number[]>();
  for (let i = 0; i < paths.length; i++) {
    const dir = path.dirname(paths[i]);
    const list = byDir.get(dir);
    if (list) list.push(i);
    else byDir.set(dir, [i]);
  }
  const dirs = [...byDir];
  for (let i = 0; i < dirs.length; i += LSTAT_DIRS_AT_ONCE) {
    await Promise.all(
      dirs.slice(i, i + LSTAT_DIRS_AT_ONCE).map(async ([dir, indexes]) => {
        const rel = path.relative(root, dir);
        if (rel.split(path.sep).includes('..') || path.isAbsolute(rel)) {
          for (const j of indexes) out[j] = await lstat(paths[j]).catch(() => null);
          return;
        }
        await withDir(root, rel === '' ? [] : rel.split(path.sep), async (open) => {
          // As fast as plain lstat calls were: a batch at a time, not one after another.
          for (let k = 0; k < indexes.length; k += LSTAT_NAMES_AT_ONCE) {
            const chunk = indexes.slice(k, k + LSTAT_NAMES_AT_ONCE);
            const stats = await Promise.all(chunk.map((j) => lstatIn(open, path.basename(paths[j])).catch(() => null)));
            chunk.forEach((j, n) => (out[j] = stats[n]));
          }
        }).catch((err: unknown) => {
          if (!isNoDir(err)) throw err;
        });
      }),
    );
  }
  return out;
}
