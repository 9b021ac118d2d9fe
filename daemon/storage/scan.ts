import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { checkFileName } from '../../shared/validation.js';
import type { FileMeta, FolderNode, UserNode } from './index-tree.js';
import { isNoDir, readdirOrNull } from './fs-helpers.js';
import { OpenDir } from './safe-dir.js';

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
  for (let i = 0; i < names.length; i += STAT_BATCH) {
    const batch = names.slice(i, i + STAT_BATCH);
    const stats = await Promise.all(batch.map((name) => lstat(path.join(dir, name)).catch(() => null)));
    stats.forEach((stat, j) => {
      if (stat?.isFile()) into.set(batch[j], { size: stat.size, mtimeMs: stat.mtimeMs });
    });
  }
}
