/**
 * Reading the storage folder into the index's tree: one user's directory at every depth (the first scan
 * and every reconcile), and the files of one directory (`statInto`, also used by the
 * watcher's directory syncs).
 *
 * On Linux the system calls are made synchronously, a slice of about a millisecond at a
 * time with the event loop let through between slices (`slicer`, daemon/storage/sliced-dir.ts).
 * Each promise-based call cost ~21-25 µs of CPU (a request object, a promise, a hop to
 * libuv's threads and back) against ~3-5 µs for the same lstat made synchronously (19,000
 * files, measured in one process); the first scan of 10,000 users + 100,000 files made
 * ~155,000 of them, 8-10 s of CPU on this 2-core machine (issue 15). Requests still get the
 * loop between slices.
 */
import { fstatSync, lstatSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { checkFileName, FOLDER_PATH_MAX_BYTES, FOLDER_PATH_MAX_LEVELS } from '../../shared/validation.js';
import { folderOfDir, sumFolder, type FileMeta, type FolderNode, type UserNode } from './index-tree.js';
import { isNoDir, readdirOrNull } from './fs-helpers.js';
import { OpenDir, VIA_PROC } from './safe-dir.js';
import { DIR_FLAGS, openDirOrNull, readdirSyncOrNull, slicer, type SyncDir } from './sliced-dir.js';

/** Whether a name found on disk is one the API can address (valid and already NFC). */
export function isAddressableName(name: string): boolean {
  const checked = checkFileName(name);
  return checked.ok && checked.value === name;
}

/** Whether a folder path found on disk is within the tree's limits (levels and bytes), so the API can name it. */
export function isFolderPathInLimits(folder: string): boolean {
  let levels = 1;
  for (let i = folder.indexOf('/'); i >= 0; i = folder.indexOf('/', i + 1)) levels++;
  return (
    levels <= FOLDER_PATH_MAX_LEVELS && (folder.length * 3 <= FOLDER_PATH_MAX_BYTES || utf8.encode(folder).length <= FOLDER_PATH_MAX_BYTES)
  );
}

/** Where a folder lies: how many levels below the user's directory, and its path's length in UTF-8 bytes. */
interface Place {
  level: number;
  bytes: number;
}
const USER_DIR: Place = { level: 0, bytes: 0 };
const utf8 = new TextEncoder();

/** The place of the folder `name` inside a folder at `parent`, or null when its path would pass the tree's limits (docs/tree.md). */
function placeBelow(parent: Place, name: string): Place | null {
  const place = { level: parent.level + 1, bytes: parent.bytes + (parent.level > 0 ? 1 : 0) + utf8.encode(name).length };
  return place.level > FOLDER_PATH_MAX_LEVELS || place.bytes > FOLDER_PATH_MAX_BYTES ? null : place;
}

/** What a directory is read into: the user's root (files and folders) or a folder node. */
type Into = Pick<FolderNode, 'files' | 'folders'>;

/**
 * Reads one user's directory into a fresh tree, at every depth. Symlinks are never
 * followed and never listed, at any level: the user's directory and each folder are
 * opened without following links (a link there yields nothing) and read through the open
 * directory. Names the API could not address are skipped; folders past the tree's limits
 * are not indexed but their entries are counted (`UserNode.unaddressable`). Files are
 * stat'ed a batch at a time so a folder of 10,000 files does not open 10,000 requests at once.
 */
export async function scanUserDir(storageDir: string, username: string): Promise<UserNode> {
  if (VIA_PROC) return scanUserDirSliced(storageDir, username);
  const node: UserNode = { root: new Map(), folders: new Map(), usedBytes: 0, unaddressable: 0 };
  const dir = await openOrNull(() => OpenDir.open(storageDir, [username]));
  if (!dir) return node;
  try {
    await readTree(dir, USER_DIR, { files: node.root, folders: node.folders }, node);
  } finally {
    await dir.close();
  }
  return withUsage(node);
}

async function readTree(dir: OpenDir, place: Place, into: Into, user: UserNode): Promise<void> {
  const files: string[] = [];
  for (const entry of (await readdirOrNull(dir.at())) ?? []) {
    if (!isAddressableName(entry.name)) continue;
    if (entry.isFile()) files.push(entry.name);
    if (!entry.isDirectory()) continue;
    const sub = await openOrNull(() => dir.child(entry.name));
    if (!sub) continue;
    try {
      const below = placeBelow(place, entry.name);
      if (!below) {
        user.unaddressable = (user.unaddressable ?? 0) + 1 + (await countEntries(sub));
        continue;
      }
      const folder = folderOfDir(await sub.stat());
      await readTree(sub, below, folder, user);
      into.folders.set(entry.name, sumFolder(folder));
    } finally {
      await sub.close();
    }
  }
  await statInto(dir.at(), files, into.files);
}

/** The files and folders below a directory past the limits, at any depth (links neither followed nor counted). */
async function countEntries(dir: OpenDir): Promise<number> {
  let count = 0;
  for (const entry of (await readdirOrNull(dir.at())) ?? []) {
    if (entry.isFile()) count += 1;
    if (!entry.isDirectory()) continue;
    const sub = await openOrNull(() => dir.child(entry.name));
    if (!sub) continue;
    try {
      count += 1 + (await countEntries(sub));
    } finally {
      await sub.close();
    }
  }
  return count;
}

/** Sets the user's usage from the root's files and each root folder's subtree. */
function withUsage(node: UserNode): UserNode {
  let used = 0;
  for (const meta of node.root.values()) used += meta.size;
  for (const folder of node.folders.values()) used += folder.sizeBytes;
  node.usedBytes = used;
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

/** `scanUserDir` on Linux: the same reads and the same rules, made synchronously in slices. */
async function scanUserDirSliced(storageDir: string, username: string): Promise<UserNode> {
  const node: UserNode = { root: new Map(), folders: new Map(), usedBytes: 0, unaddressable: 0 };
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
    await readTreeSliced(dir, USER_DIR, { files: node.root, folders: node.folders }, node);
  } finally {
    dir.close();
  }
  await slicer.due();
  return withUsage(node);
}

async function readTreeSliced(dir: SyncDir, place: Place, into: Into, user: UserNode): Promise<void> {
  const files: string[] = [];
  for (const entry of readdirSyncOrNull(dir.at()) ?? []) {
    if (!isAddressableName(entry.name)) continue;
    if (entry.isFile()) files.push(entry.name);
    if (!entry.isDirectory()) continue;
    await slicer.due();
    const sub = dir.child(entry.name);
    if (!sub) continue;
    try {
      const below = placeBelow(place, entry.name);
      if (!below) {
        user.unaddressable = (user.unaddressable ?? 0) + 1 + countEntriesSync(sub);
        continue;
      }
      const folder = folderOfDir(fstatSync(sub.fd));
      await readTreeSliced(sub, below, folder, user);
      into.folders.set(entry.name, sumFolder(folder));
    } finally {
      sub.close();
    }
  }
  await statIntoSliced(dir.at(), files, into.files);
}

function countEntriesSync(dir: SyncDir): number {
  let count = 0;
  for (const entry of readdirSyncOrNull(dir.at()) ?? []) {
    if (entry.isFile()) count += 1;
    if (!entry.isDirectory()) continue;
    const sub = dir.child(entry.name);
    if (!sub) continue;
    try {
      count += 1 + countEntriesSync(sub);
    } finally {
      sub.close();
    }
  }
  return count;
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
