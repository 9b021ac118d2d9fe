/**
 * Reading the storage folder into the index's tree: one user's directory (the first scan
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
import { checkFileName } from '../../shared/validation.js';
import type { FileMeta, FolderNode, UserNode } from './index-tree.js';
import { isNoDir, readdirOrNull } from './fs-helpers.js';
import { OpenDir, VIA_PROC } from './safe-dir.js';
import { DIR_FLAGS, openDirOrNull, readdirSyncOrNull, slicer, type SyncDir } from './sliced-dir.js';

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
