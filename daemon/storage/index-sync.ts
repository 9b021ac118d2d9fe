import { lstat } from 'node:fs/promises';
import type { ChangeEvent } from '../../shared/types.js';
import type { FileIndex } from './file-index.js';
import { joinFolder, type FileMeta } from './index-tree.js';
import { readdirOrNull } from './fs-helpers.js';
import type { LeftoverSweep } from './leftovers.js';
import { isAddressableName, isFolderPathInLimits, openOrNull, scanUserDir, statInto, type Leftover } from './scan.js';
import { folderComponents } from './paths.js';
import { OpenDir } from './safe-dir.js';

/** Whether a name is (still) a user's: checked after each await, since users come and go. */
export type IsUser = (username: string) => boolean;

/**
 * What a sync needs of the disk storage (daemon/storage/storage.ts's `Storage` is one): named
 * here rather than imported, so that storage.ts can call the sync without a cycle.
 */
export interface IndexedDisk {
  readonly storageDir: string;
  readonly index: FileIndex;
  /** The checked path of a user's directory or folder (throws on a name that escapes it). */
  path(username: string, folder?: string | null): string;
}

/**
 * Reads one user's tree and swaps it into the index. A change the watcher or the API made
 * while the disk was being read would be lost by the swap, so the directories it touched
 * are read again afterwards. With `sweep` (the start-up scan only), the leftovers of a crash
 * the scan met are removed before the tree is swapped in, so before the user's requests run.
 */
export async function rescanUserTree(storage: IndexedDisk, username: string, isUser: IsUser, sweep?: LeftoverSweep): Promise<void> {
  const touched = new Set<string | null>();
  const onChange = (event: ChangeEvent) => {
    if (event.username === username) touched.add(event.folder);
  };
  storage.index.on('change', onChange);
  let fresh;
  const leftovers: Leftover[] | null = sweep ? [] : null;
  try {
    storage.path(username);
    fresh = await scanUserDir(storage.storageDir, username, leftovers);
  } finally {
    storage.index.off('change', onChange);
  }
  if (sweep && leftovers?.length) await sweep.remove(username, leftovers);
  // The user may have been deleted or renamed while we read the disk.
  if (!isUser(username)) return;
  storage.index.replaceUser(username, fresh);
  for (const folder of touched) await syncIndexDirectory(storage, username, folder, isUser);
}

/**
 * Makes one directory of the index equal to the disk: a user's root or a folder at any depth
 * (its files and which folders it holds). Used where an event may have been missed: a folder
 * that appeared before its watcher was ready, a directory whose mtime moved while polling,
 * a directory touched while a reconcile was reading it. The caller has checked that the
 * storage directory is available, so an absent entry really is gone. Returns the paths of
 * the folders this added to the index (each read in turn).
 */
export async function syncIndexDirectory(storage: IndexedDisk, username: string, folder: string | null, isUser: IsUser): Promise<string[]> {
  storage.path(username, folder);
  // Opened without following links: a link in place of the user's directory or the folder reads as nothing there.
  const dir = await openOrNull(() => OpenDir.open(storage.storageDir, [username, ...folderComponents(folder)]));
  let added: string[];
  try {
    added = await syncIndexFromOpenDir(storage, username, folder, isUser, dir);
  } finally {
    await dir?.close();
  }
  for (const name of added) await syncIndexDirectory(storage, username, name, isUser);
  return added;
}

async function syncIndexFromOpenDir(
  storage: IndexedDisk,
  username: string,
  folder: string | null,
  isUser: IsUser,
  dir: OpenDir | null,
): Promise<string[]> {
  const { index } = storage;
  const entries = dir ? await readdirOrNull(dir.at()) : null;
  if (!isUser(username)) return [];
  if (entries === null || dir === null) {
    if (folder !== null) index.removeFolder(username, folder);
    return [];
  }
  const names: string[] = [];
  const dirs: string[] = [];
  for (const entry of entries) {
    if (!isAddressableName(entry.name)) continue;
    if (entry.isFile()) names.push(entry.name);
    else if (entry.isDirectory()) dirs.push(entry.name);
  }
  const onDisk = new Map<string, FileMeta>();
  await statInto(dir.at(), names, onDisk);
  if (!isUser(username)) return [];
  if (folder !== null && !index.folder(username, folder)) {
    const stat = await dir.stat().catch(() => null);
    index.addFolder(username, folder, stat?.mtimeMs ?? Date.now(), stat ?? undefined);
  }
  // The folders directly inside, at any depth: new ones are added (and read by the caller), gone ones removed.
  const node = folder === null ? index.ensureUser(username) : index.folder(username, folder);
  const added: string[] = [];
  for (const name of node ? dirs : []) {
    const path = joinFolder(folder, name);
    if (node!.folders.has(name) || !isFolderPathInLimits(path)) continue;
    const stat = await lstat(dir.at(name)).catch(() => null);
    if (!stat?.isDirectory()) continue;
    index.addFolder(username, path, stat.mtimeMs, stat);
    added.push(path);
  }
  const present = new Set(dirs);
  for (const name of node ? [...node.folders.keys()] : []) if (!present.has(name)) index.removeFolder(username, joinFolder(folder, name));
  for (const [name, meta] of onDisk) index.setFile(username, folder, name, meta);
  const files = index.files(username, folder);
  for (const name of files ? [...files.keys()] : []) if (!onDisk.has(name)) index.removeFile(username, folder, name);
  return added;
}
