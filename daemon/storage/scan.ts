import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { checkFileName } from '../../shared/validation.js';
import type { FileMeta, FolderNode, UserNode } from './file-index.js';

/** Whether a name found on disk is one the API can address (valid and already NFC). */
export function isAddressableName(name: string): boolean {
  const checked = checkFileName(name);
  return checked.ok && checked.value === name;
}

/**
 * Reads one user's directory into a fresh tree. Symlinks are never followed and never
 * listed; names the API could not address are skipped. Files are stat'ed a batch at a
 * time so a folder of 10,000 files does not open 10,000 requests at once.
 */
export async function scanUserDir(dir: string): Promise<UserNode> {
  const node: UserNode = { root: new Map(), folders: new Map(), usedBytes: 0 };
  const entries = await readdirOrEmpty(dir);
  const rootFiles: string[] = [];
  for (const entry of entries) {
    if (!isAddressableName(entry.name)) continue;
    if (entry.isFile()) rootFiles.push(entry.name);
    else if (entry.isDirectory()) {
      const folderPath = path.join(dir, entry.name);
      const folder: FolderNode = { files: new Map(), mtimeMs: 0, sizeBytes: 0 };
      const stat = await lstat(folderPath).catch(() => null);
      if (!stat?.isDirectory()) continue;
      folder.mtimeMs = stat.mtimeMs;
      const names = (await readdirOrEmpty(folderPath)).filter((e) => e.isFile() && isAddressableName(e.name)).map((e) => e.name);
      await statInto(folderPath, names, folder.files);
      for (const meta of folder.files.values()) folder.sizeBytes += meta.size;
      node.folders.set(entry.name, folder);
      node.usedBytes += folder.sizeBytes;
    }
  }
  await statInto(dir, rootFiles, node.root);
  for (const meta of node.root.values()) node.usedBytes += meta.size;
  return node;
}

async function readdirOrEmpty(dir: string) {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw err;
  }
}

const STAT_BATCH = 256;

/** Adds the regular files among `names` (in `dir`) to `into`, a batch of lstat calls at a time. */
export async function statInto(dir: string, names: string[], into: Map<string, FileMeta>): Promise<void> {
  for (let i = 0; i < names.length; i += STAT_BATCH) {
    const batch = names.slice(i, i + STAT_BATCH);
    const stats = await Promise.all(batch.map((name) => lstat(path.join(dir, name)).catch(() => null)));
    stats.forEach((stat, j) => {
      if (stat?.isFile()) into.set(batch[j], { size: stat.size, mtimeMs: stat.mtimeMs });
    });
  }
}
