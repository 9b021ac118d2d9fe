/** The shape of the file index's tree (users → folders → folders… → files), and the subtree totals kept along it (docs/tree.md). */

import { VersionedMap } from '../util/versioned-map.js';

/** What the index knows of one file. */
export interface FileMeta {
  size: number;
  mtimeMs: number;
}

export interface FolderNode {
  files: Map<string, FileMeta>;
  /** The folders directly inside this one, by name. */
  folders: Map<string, FolderNode>;
  mtimeMs: number;
  /** Bytes of every file in the subtree (this folder's and below): kept in step along the path of each change, O(depth). */
  sizeBytes: number;
  /** Files in the subtree. */
  fileCount: number;
  /** Folders in the subtree, this one not counted. */
  folderCount: number;
  /**
   * The latest mtime in the subtree (this folder's own, its files', its folders'): raised
   * along the path of each change, O(depth), and never lowered by a removal (that would need
   * a walk of the subtree); a scan counts it afresh.
   */
  treeModifiedMs: number;
  /** The directory's device and inode when known (0: not known), by which a directory another program moved is recognised. */
  dev: number;
  ino: number;
}

export interface UserNode {
  root: Map<string, FileMeta>;
  /** The folders at the user's root (each holding its own subfolders). */
  folders: Map<string, FolderNode>;
  usedBytes: number;
  /** Entries below the tree's limits (64 levels, 4,096 bytes) the scan found and could not index (docs/tree.md). */
  unaddressable?: number;
}

/** A folder as a caller may hand a whole tree to the index: the subtree fields may be left out (`completeTree` fills them). */
export type FolderInput = Pick<FolderNode, 'files' | 'mtimeMs' | 'sizeBytes'> & {
  folders?: Map<string, FolderInput>;
  fileCount?: number;
  folderCount?: number;
  treeModifiedMs?: number;
};
export type UserInput = Omit<UserNode, 'folders'> & { folders: Map<string, FolderInput> };

/** Fills in, in place, the subtree fields a tree handed to the index left out (a scan's tree has them all: untouched). */
export function completeTree(tree: UserInput): UserNode {
  for (const folder of tree.folders.values()) completeFolder(folder);
  return tree as UserNode;
}

function completeFolder(folder: FolderInput): void {
  if (folder.fileCount !== undefined && folder.folderCount !== undefined && folder.treeModifiedMs !== undefined && folder.folders) return;
  folder.folders ??= new Map();
  for (const sub of folder.folders.values()) completeFolder(sub);
  sumFolder(folder as FolderNode);
}

/** A user with nothing indexed yet; its root's files count their changes, as a folder's do (services/folder-pages.ts). */
export function emptyUser(): UserNode {
  return { root: new VersionedMap(), folders: new Map(), usedBytes: 0 };
}

export function emptyFolder(mtimeMs: number, id: DirId = NO_ID): FolderNode {
  return {
    files: new VersionedMap(),
    folders: new Map(),
    mtimeMs,
    sizeBytes: 0,
    fileCount: 0,
    folderCount: 0,
    treeModifiedMs: mtimeMs,
    dev: id.dev,
    ino: id.ino,
  };
}

/** Which directory on disk a folder node is (`stat`'s dev and ino; 0 and 0: not known). */
export interface DirId {
  dev: number;
  ino: number;
}
const NO_ID: DirId = { dev: 0, ino: 0 };

/** An empty folder node for a directory, by its `stat`: its date and identity. */
export const folderOfDir = (stat: DirId & { mtimeMs: number }): FolderNode => emptyFolder(stat.mtimeMs, stat);

/** Sets a folder's subtree totals from its files and its subfolders' totals (a scan fills a tree bottom up). */
export function sumFolder(folder: FolderNode): FolderNode {
  let size = 0;
  let latest = folder.mtimeMs;
  for (const meta of folder.files.values()) {
    size += meta.size;
    if (meta.mtimeMs > latest) latest = meta.mtimeMs;
  }
  let files = folder.files.size;
  let folders = folder.folders.size;
  for (const sub of folder.folders.values()) {
    size += sub.sizeBytes;
    files += sub.fileCount;
    folders += sub.folderCount;
    if (sub.treeModifiedMs > latest) latest = sub.treeModifiedMs;
  }
  folder.sizeBytes = size;
  folder.fileCount = files;
  folder.folderCount = folders;
  folder.treeModifiedMs = latest;
  return folder;
}

/**
 * The folder nodes from the root's folder down to `folder` (a checked path), or undefined
 * where a name on the way is missing. One map lookup per level; a one-name path is one.
 */
export function folderChain(node: UserNode, folder: string): FolderNode[] | undefined {
  const chain: FolderNode[] = [];
  let map = node.folders;
  for (const name of folder.split('/')) {
    const next = map.get(name);
    if (!next) return undefined;
    chain.push(next);
    map = next.folders;
  }
  return chain;
}

/** The folder at `folder` (a checked path), or undefined. */
export function folderAt(node: UserNode | undefined, folder: string): FolderNode | undefined {
  if (!node) return undefined;
  if (!folder.includes('/')) return node.folders.get(folder);
  return folderChain(node, folder)?.at(-1);
}

/**
 * Adds to the subtree totals of each folder of `chain` (the folders above a change), and
 * raises their latest mtime to `modifiedMs` (a removal passes none): O(depth).
 */
export function addToTotals(chain: FolderNode[], bytes: number, files: number, folders: number, modifiedMs = -Infinity): void {
  for (const above of chain) {
    above.sizeBytes += bytes;
    above.fileCount += files;
    above.folderCount += folders;
    if (modifiedMs > above.treeModifiedMs) above.treeModifiedMs = modifiedMs;
  }
}

/**
 * The folders from the root's down to `folder` (a checked path), each missing one made
 * empty, counted in the folders above it, and told to `made` (its parent's map, its name,
 * its path).
 */
export function ensureChain(
  node: UserNode,
  folder: string,
  mtimeMs: number,
  made: (map: Map<string, FolderNode>, name: string, path: string) => void,
): FolderNode[] {
  const chain: FolderNode[] = [];
  let map = node.folders;
  let path: string | null = null;
  for (const name of folder.split('/')) {
    path = joinFolder(path, name);
    let next = map.get(name);
    if (!next) {
      next = emptyFolder(mtimeMs);
      map.set(name, next);
      addToTotals(chain, 0, 0, 1, mtimeMs);
      made(map, name, path);
    }
    chain.push(next);
    map = next.folders;
  }
  return chain;
}

/** `parent/name`, or `name` at the root. */
export function joinFolder(parent: string | null, name: string): string {
  return parent === null ? name : `${parent}/${name}`;
}

/** Calls `fn` for every folder under `folders` (a user's root folders, or a folder's), parents before children, with its path. */
export function eachFolder(folders: Map<string, FolderNode>, parent: string | null, fn: (folder: string, node: FolderNode) => void): void {
  for (const [name, node] of folders) {
    const folder = joinFolder(parent, name);
    fn(folder, node);
    eachFolder(node.folders, folder, fn);
  }
}

/** The files, folders and bytes of every user's tree, counted from each root folder's subtree totals. */
export function countTotals(users: Iterable<[string, UserNode]>): { files: number; folders: number; usedBytes: number } {
  let files = 0;
  let folders = 0;
  let usedBytes = 0;
  for (const [, node] of users) {
    files += node.root.size;
    folders += node.folders.size;
    for (const f of node.folders.values()) {
      files += f.fileCount;
      folders += f.folderCount;
    }
    usedBytes += node.usedBytes;
  }
  return { files, folders, usedBytes };
}

/** Entries the scans found past the tree's limits, over every user (docs/tree.md): O(users), for /api/dash. */
export function countUnaddressable(users: Iterable<UserNode>): number {
  let count = 0;
  for (const node of users) count += node.unaddressable ?? 0;
  return count;
}
