/**
 * Reading the storage folder into the index's tree: one user's directory at every depth (the first scan
 * and every reconcile), and the files of one directory (`statInto`, also used by the
 * watcher's directory syncs). What each entry is, and whether it is indexed, is scan-rules.ts.
 *
 * On Linux the system calls are made synchronously, a slice of about a millisecond at a
 * time with the event loop let through between slices (scan-sliced.ts).
 * Each promise-based call cost ~21-25 µs of CPU (a request object, a promise, a hop to
 * libuv's threads and back) against ~3-5 µs for the same lstat made synchronously (19,000
 * files, measured in one process); the first scan of 10,000 users + 100,000 files made
 * ~155,000 of them, 8-10 s of CPU on this 2-core machine (issue 15). Requests still get the
 * loop between slices.
 */
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { emptyUser, folderOfDir, sumFolder, type FileMeta, type UserNode } from './index-tree.js';
import { isNoDir, readdirOrNull } from './fs-helpers.js';
import { OpenDir, VIA_PROC } from './safe-dir.js';
import { isAddressableName, noteLeftover, placeBelow, USER_DIR, withUsage, type Into, type Leftover, type Place } from './scan-rules.js';
import { scanUserDirSliced, statIntoSliced } from './scan-sliced.js';

export { isAddressableName, isFolderPathInLimits, type Leftover } from './scan-rules.js';

/**
 * Reads one user's directory into a fresh tree, at every depth. Symlinks are never
 * followed and never listed, at any level: the user's directory and each folder are
 * opened without following links (a link there yields nothing) and read through the open
 * directory. Names the API could not address are skipped; folders past the tree's limits
 * are not indexed but their entries are counted (`UserNode.unaddressable`). Files are
 * stat'ed a batch at a time so a folder of 10,000 files does not open 10,000 requests at once.
 * With `leftovers`, the staging names skipped on the way (a crash's leftovers, staging-names.ts)
 * are added to it, so the start-up can remove them without walking the tree again.
 */
export async function scanUserDir(storageDir: string, username: string, leftovers: Leftover[] | null = null): Promise<UserNode> {
  if (VIA_PROC) return scanUserDirSliced(storageDir, username, leftovers);
  const node: UserNode = { ...emptyUser(), unaddressable: 0 };
  const dir = await openOrNull(() => OpenDir.open(storageDir, [username]));
  if (!dir) return node;
  try {
    await readTree(dir, USER_DIR, { files: node.root, folders: node.folders }, node, leftovers);
  } finally {
    await dir.close();
  }
  return withUsage(node);
}

async function readTree(dir: OpenDir, place: Place, into: Into, user: UserNode, leftovers: Leftover[] | null): Promise<void> {
  const files: string[] = [];
  for (const entry of (await readdirOrNull(dir.at())) ?? []) {
    if (!isAddressableName(entry.name)) {
      noteLeftover(leftovers, place, entry.name);
      continue;
    }
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
      await readTree(sub, below, folder, user, leftovers);
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
