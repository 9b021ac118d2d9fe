/**
 * Reading the storage folder into the index's tree: one user's directory (the first scan
 * and every reconcile), and the files of one directory (`statInto`, also used by the
 * watcher's directory syncs).
 *
 * On Linux the system calls are made synchronously, a slice of about a millisecond at a
 * time with the event loop let through between slices (`Slicer`). Each promise-based call
 * cost ~21-25 µs of CPU (a request object, a promise, a hop to libuv's threads and back)
 * against ~3-5 µs for the same lstat made synchronously (19,000 files, measured in one
 * process); the first scan of 10,000 users + 100,000 files made ~155,000 of them, 8-10 s of
 * CPU on this 2-core machine (issue 15). Requests still get the loop between slices.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, type Dirent } from 'node:fs';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { checkFileName } from '../../shared/validation.js';
import type { FileMeta, FolderNode, UserNode } from './index-tree.js';
import { isNoDir, readdirOrNull } from './fs-helpers.js';
import { OpenDir, VIA_PROC } from './safe-dir.js';

/** Whether a name found on disk is one the API can address (valid and already NFC). */
export function isAddressableName(name: string): boolean {
  const checked = checkFileName(name);
  return checked.ok && checked.value === name;
}

/**
 * Reads one user's directory into a fresh tree. Symlinks are never followed and never
 * listed, at any level: the user's directory and each folder are opened without
 * following links (a link there yields nothing) and read through the open directory.
 * Names the API could not address are skipped. Files are stat'ed a batch at a time so a
 * folder of 10,000 files does not open 10,000 requests at once.
 */
export async function scanUserDir(storageDir: string, username: string): Promise<UserNode> {
  if (VIA_PROC) return scanUserDirSliced(storageDir, username);
  const node: UserNode = { root: new Map(), folders: new Map(), usedBytes: 0 };
  const dir = await openOrNull(() => OpenDir.open(storageDir, [username]));
  if (!dir) return node;
  try {
    const rootFiles: string[] = [];
    for (const entry of (await readdirOrNull(dir.at())) ?? []) {
      if (!isAddressableName(entry.name)) continue;
      if (entry.isFile()) rootFiles.push(entry.name);
      else if (entry.isDirectory()) {
        const sub = await openOrNull(() => dir.child(entry.name));
        if (!sub) continue;
        try {
          const folder: FolderNode = { files: new Map(), mtimeMs: (await sub.stat()).mtimeMs, sizeBytes: 0 };
          const names = ((await readdirOrNull(sub.at())) ?? []).filter((e) => e.isFile() && isAddressableName(e.name)).map((e) => e.name);
          await statInto(sub.at(), names, folder.files);
          for (const meta of folder.files.values()) folder.sizeBytes += meta.size;
          node.folders.set(entry.name, folder);
          node.usedBytes += folder.sizeBytes;
        } finally {
          await sub.close();
        }
      }
    }
    await statInto(dir.at(), rootFiles, node.root);
    for (const meta of node.root.values()) node.usedBytes += meta.size;
  } finally {
    await dir.close();
  }
  return node;
}

/** Opens a directory, or null when there is none (missing, or a link or file in its place). */
export async function openOrNull(opener: () => Promise<OpenDir>): Promise<OpenDir | null> {
  try {
    return await opener();
  } catch (err) {
    if (isNoDir(err)) return null;
    throw err;
  }
}

const STAT_BATCH = 256;

/** Adds the regular files among `names` (in `dir`, a path or an open directory's `at()`) to `into`, a batch of lstat calls at a time. */
export async function statInto(dir: string, names: string[], into: Map<string, FileMeta>): Promise<void> {
  if (VIA_PROC) return statIntoSliced(dir, names, into);
  for (let i = 0; i < names.length; i += STAT_BATCH) {
    const batch = names.slice(i, i + STAT_BATCH);
    const stats = await Promise.all(batch.map((name) => lstat(path.join(dir, name)).catch(() => null)));
    stats.forEach((stat, j) => {
      if (stat?.isFile()) into.set(batch[j], { size: stat.size, mtimeMs: stat.mtimeMs });
    });
  }
}

/** How long synchronous file-system work runs before the event loop gets a turn. */
const SLICE_MS = 1;

/** Yields to the event loop (setImmediate: after pending I/O) once a slice of synchronous work has run its time. */
class Slicer {
  #since = performance.now();
  #pause: Promise<void> | null = null;

  /**
   * A promise to await when the slice is over, else null (no await, so no microtask per
   * file). Every caller past the slice gets the same pause: with a pause each, the pool's
   * 8 readers resumed one after another within one turn of the loop, each for a whole
   * slice, and requests waited ~8 ms between turns instead of ~1 (measured: /api/dash
   * during the first scan, p50 9-17 ms against 2-3 ms before the sliced reads).
   */
  due(): Promise<void> | null {
    if (this.#pause) return this.#pause;
    if (performance.now() - this.#since < SLICE_MS) return null;
    return (this.#pause = new Promise<void>((resolve) =>
      setImmediate(() => {
        this.#since = performance.now();
        this.#pause = null;
        resolve();
      }),
    ));
  }
}

/**
 * One for the module, so that the slice is counted across calls: 10,000 empty users each
 * read in ~20 µs, in a pool of awaits that never reach the loop, would otherwise hold it
 * for the whole first scan.
 */
const slicer = new Slicer();

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY;

/** A directory open by fd, read through /proc/self/fd (as OpenDir on Linux, synchronously). */
class SyncDir {
  constructor(readonly fd: number) {}

  at(name?: string): string {
    return name === undefined ? `/proc/self/fd/${this.fd}` : `/proc/self/fd/${this.fd}/${name}`;
  }

  /** The directory `name` in this one, never through a link; null when there is none (as openOrNull). */
  child(name: string): SyncDir | null {
    return openDirOrNull(this.at(name), DIR_FLAGS | constants.O_NOFOLLOW);
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // Already gone with the process's descriptors: nothing to release.
    }
  }
}

/** ENOENT, ENOTDIR and ELOOP (O_NOFOLLOW on a link) mean "no real directory there": null, as `openOrNull`. */
function openDirOrNull(p: string, flags: number): SyncDir | null {
  try {
    return new SyncDir(openSync(p, flags));
  } catch (err) {
    if (isNoDir(err) || (err as NodeJS.ErrnoException).code === 'ELOOP') return null;
    throw err;
  }
}

function readdirSyncOrNull(dir: string): Dirent[] | null {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if (isNoDir(err)) return null;
    throw err;
  }
}

/** `scanUserDir` on Linux: the same reads and the same rules, made synchronously in slices. */
async function scanUserDirSliced(storageDir: string, username: string): Promise<UserNode> {
  const node: UserNode = { root: new Map(), folders: new Map(), usedBytes: 0 };
  // The storage directory is the operator's choice (followed); the user's directory is not.
  const root = openDirOrNull(storageDir, DIR_FLAGS);
  if (!root) return node;
  let dir: SyncDir | null;
  try {
    dir = root.child(username);
  } finally {
    root.close();
  }
  if (!dir) return node;
  try {
    const rootFiles: string[] = [];
    for (const entry of readdirSyncOrNull(dir.at()) ?? []) {
      if (!isAddressableName(entry.name)) continue;
      if (entry.isFile()) rootFiles.push(entry.name);
      else if (entry.isDirectory()) {
        await slicer.due();
        const sub = dir.child(entry.name);
        if (!sub) continue;
        try {
          const folder: FolderNode = { files: new Map(), mtimeMs: fstatSync(sub.fd).mtimeMs, sizeBytes: 0 };
          const names = (readdirSyncOrNull(sub.at()) ?? []).filter((e) => e.isFile() && isAddressableName(e.name)).map((e) => e.name);
          await statIntoSliced(sub.at(), names, folder.files);
          for (const meta of folder.files.values()) folder.sizeBytes += meta.size;
          node.folders.set(entry.name, folder);
          node.usedBytes += folder.sizeBytes;
        } finally {
          sub.close();
        }
      }
    }
    await statIntoSliced(dir.at(), rootFiles, node.root);
    for (const meta of node.root.values()) node.usedBytes += meta.size;
  } finally {
    dir.close();
  }
  await slicer.due();
  return node;
}

/** `statInto` on Linux: lstat made synchronously, the loop let through between slices. */
async function statIntoSliced(dir: string, names: string[], into: Map<string, FileMeta>): Promise<void> {
  for (const name of names) {
    let stat;
    try {
      stat = lstatSync(`${dir}/${name}`);
    } catch {
      stat = null;
    }
    if (stat?.isFile()) into.set(name, { size: stat.size, mtimeMs: stat.mtimeMs });
    const pause = slicer.due();
    if (pause) await pause;
  }
}
