/**
 * A directory another program renames or moves inside a user's directory is one rename on
 * disk, but @parcel/watcher reports it as a `delete` of the old path and a `create` of the new
 * one, with no inotify cookie to pair them (docs/tree.md, "The disk walk at depth"). The pair
 * is found here by the directory's identity: a folder seen gone whose node holds the same
 * device and inode (learned at scan and listing time) as a directory that appeared under the
 * same user is the same directory, moved. The index node is relinked whole (O(depth), nothing
 * below walked) and one `folder.moved` announced, as the API's folders.move does.
 */
import type { Stats } from 'node:fs';
import type { Storage } from '../storage.js';
import { eachFolder, joinFolder, type FolderNode } from '../index-tree.js';
import { syncIndexDirectory } from '../index-sync.js';
import { isAddressableName, isFolderPathInLimits } from '../scan.js';
import type { IndexTarget, Removal } from './apply-changes.js';
import type { Location } from './subscription.js';

/**
 * How long a folder seen gone may still be paired. Its removal is confirmed against the disk
 * about 100 ms after it was seen (marker-guard.ts), and a paired folder is no longer in the
 * index at its old path by then; this only bounds what is kept for folders never paired.
 */
const GONE_KEPT_MS = 5000;

interface Gone {
  username: string;
  folder: string;
  node: FolderNode;
  at: number;
}

/** A folder the watcher relinked: `from` its old path, `to` its new one. */
export interface DirMove {
  username: string;
  from: string;
  to: string;
}

/** The folders the watcher saw gone lately, by user and directory identity, until a directory with that identity appears or they age out. */
export class GoneFolders {
  readonly #byId = new Map<string, Gone>();

  /** Notes a folder seen gone (a removal about to be confirmed), if its identity is known. */
  seen(t: IndexTarget, removal: Removal | null): void {
    if (removal === null || removal.folder === null || removal.file !== null) return;
    const node = t.index.folder(removal.username, removal.folder);
    if (!node?.ino) return;
    const now = Date.now();
    for (const [key, gone] of this.#byId) if (now - gone.at > GONE_KEPT_MS) this.#byId.delete(key);
    this.#byId.set(idKey(removal.username, node), { username: removal.username, folder: removal.folder, node, at: now });
  }

  /**
   * Relinks the folder a directory that appeared (`at`, `stat`) was, if it is one seen gone
   * under the same user and still in the index at its old path as the same node; null
   * otherwise (the caller indexes it as a new directory). A directory from another user's
   * tree, from outside the storage folder or past the tree's limits is never paired.
   */
  relinkIfMoved(t: IndexTarget, at: Location, stat: Stats): DirMove | null {
    const { username, folder, name } = at;
    if (username === null || !stat.ino || !t.store.users.has(username) || !isAddressableName(name)) return null;
    const key = `${username}/${stat.dev}:${stat.ino}`;
    const gone = this.#byId.get(key);
    const to = joinFolder(folder, name);
    if (!gone || !isFolderPathInLimits(to) || t.index.folder(username, to)) return null;
    this.#byId.delete(key);
    if (t.index.folder(username, gone.folder) !== gone.node) return null;
    t.index.relinkFolder(username, gone.folder, folder, name);
    if (t.index.folder(username, to) !== gone.node) return null;
    return { username, from: gone.folder, to };
  }

  clear(): void {
    this.#byId.clear();
  }
}

const idKey = (username: string, node: FolderNode) => `${username}/${node.dev}:${node.ino}`;

/**
 * Reads a moved folder's subtree again, each directory once, parents first: what changed in
 * it while it moved (a file written just before, seen under its old path) is applied, each
 * change announced; what did not change announces nothing. `current()` false stops it.
 */
export async function resyncMoved(t: IndexTarget & { storage: Storage }, move: DirMove, current: () => boolean): Promise<void> {
  const node = t.index.folder(move.username, move.to);
  if (!node) return;
  const folders = [move.to];
  eachFolder(node.folders, move.to, (folder) => folders.push(folder));
  const isUser = (name: string) => t.store.users.has(name);
  for (const folder of folders) {
    if (!current() || !t.index.folder(move.username, folder)) continue;
    await syncIndexDirectory(t.storage, move.username, folder, isUser);
  }
}
