import { EventEmitter } from 'node:events';
import type { ChangeEvent, IndexState } from '../../shared/types.js';

/** What the index knows of one file. */
export interface FileMeta {
  size: number;
  mtimeMs: number;
}

export interface FolderNode {
  files: Map<string, FileMeta>;
  mtimeMs: number;
  sizeBytes: number;
}

export interface UserNode {
  root: Map<string, FileMeta>;
  folders: Map<string, FolderNode>;
  usedBytes: number;
}

/**
 * The key two names share when a case-insensitive disk (APFS, NTFS) would take them for
 * one. NFC first: APFS also ignores normalisation, and the API stores NFC. Then upper case,
 * as NTFS compares names through an upper-case table; that also joins `ς`, `σ` and `Σ`,
 * which lower case alone keeps apart. Then lower case, which joins the few pairs that agree
 * only in lower case (`ϴ` and `θ`), as APFS's case folding does. Where this is stricter
 * than a disk (`ß` and `SS`) it refuses a name the disk would have allowed, never the
 * reverse.
 */
export function foldName(name: string): string {
  // Most names are ASCII, where all of that is lower case alone (and five times faster).
  return ASCII.test(name) ? name.toLowerCase() : name.normalize('NFC').toUpperCase().toLowerCase();
}

const ASCII = /^[\x00-\x7f]*$/;

/** The names of one map by their folded key; `count` is how many names it holds, to see it is in step. */
interface FoldedNames {
  byFold: Map<string, string | string[]>;
  count: number;
}

/**
 * Finds names that differ only in case among the keys of a map (a directory's files or
 * folders, the users). The folded names of a map are built on its first lookup and kept in
 * step by `added`/`removed`, so a check in a folder of 100,000 files is one map lookup,
 * not a scan. A map changed without telling (a tree built by a scan, a caller that forgot)
 * holds a different number of names than was counted, and is folded afresh; a name gone
 * from the map is never reported.
 */
export class CaseFolds {
  readonly #folded = new WeakMap<Map<string, unknown>, FoldedNames>();

  /**
   * A key of `map` whose name differs from `name` only in case (or normalisation), other
   * than `name` itself and `except` (the entry being renamed to `name`).
   */
  twin(map: Map<string, unknown>, name: string, except?: string): string | undefined {
    const entry = this.#foldedOf(map).byFold.get(foldName(name));
    if (entry === undefined) return undefined;
    for (const other of typeof entry === 'string' ? [entry] : entry) {
      if (other !== name && other !== except && map.has(other)) return other;
    }
    return undefined;
  }

  /** Call after `name` was added to `map` (not when it was there already). */
  added(map: Map<string, unknown>, name: string): void {
    const folded = this.#folded.get(map);
    if (folded) addFolded(folded, name);
  }

  /** Call after `name` was deleted from `map`. */
  removed(map: Map<string, unknown>, name: string): void {
    const folded = this.#folded.get(map);
    if (folded) removeFolded(folded, name);
  }

  #foldedOf(map: Map<string, unknown>): FoldedNames {
    let folded = this.#folded.get(map);
    if (!folded || folded.count !== map.size) {
      folded = { byFold: new Map(), count: 0 };
      for (const name of map.keys()) addFolded(folded, name);
      this.#folded.set(map, folded);
    }
    return folded;
  }
}

/**
 * The in-memory picture of the storage directory: users → folders → files. The disk is
 * the source of truth; the daemon's own operations and the watcher keep this equal to
 * it. A change that alters nothing (the watcher echoing the daemon's own write) emits
 * nothing; every real change emits one `change` event.
 */
export class FileIndex extends EventEmitter<{ change: [ChangeEvent]; userScanned: [string] }> {
  readonly users = new Map<string, UserNode>();
  state: IndexState = 'scanning';
  /** Whether the index has ever matched the disk (false until the first scan completes). */
  everReady = false;
  /** Sorted names of a file map, rebuilt only after a name is added or removed. */
  readonly #sorted = new WeakMap<Map<string, FileMeta>, string[]>();
  /** Names that differ only in case, per directory map (files, folders, users). */
  readonly caseFolds = new CaseFolds();

  /** The names of a file map in code-point order, cached between changes. */
  sortedNames(files: Map<string, FileMeta>): string[] {
    let names = this.#sorted.get(files);
    if (!names) {
      names = [...files.keys()].sort();
      this.#sorted.set(files, names);
    }
    return names;
  }

  /**
   * Another entry in the same directory whose name differs from `name` only in case (or
   * normalisation): a file or folder at the user's root (one directory holds both), or a
   * file in the folder. Undefined if there is none; `name` itself and `except` (a file
   * being renamed to `name`) never count.
   */
  caseTwin(username: string, folder: string | null, name: string, except?: string): string | undefined {
    const node = this.users.get(username);
    if (!node) return undefined;
    if (folder !== null) {
      const files = node.folders.get(folder)?.files;
      return files && this.caseFolds.twin(files, name, except);
    }
    return this.caseFolds.twin(node.root, name, except) ?? this.caseFolds.twin(node.folders, name, except);
  }

  user(username: string): UserNode | undefined {
    return this.users.get(username);
  }

  /** The user's node, created empty if missing. */
  ensureUser(username: string): UserNode {
    let node = this.users.get(username);
    if (!node) {
      node = { root: new Map(), folders: new Map(), usedBytes: 0 };
      this.users.set(username, node);
    }
    return node;
  }

  usedBytes(username: string): number {
    return this.users.get(username)?.usedBytes ?? 0;
  }

  files(username: string, folder: string | null): Map<string, FileMeta> | undefined {
    const node = this.users.get(username);
    if (!node) return undefined;
    return folder === null ? node.root : node.folders.get(folder)?.files;
  }

  getFile(username: string, folder: string | null, name: string): FileMeta | undefined {
    return this.files(username, folder)?.get(name);
  }

  setFile(username: string, folder: string | null, name: string, meta: FileMeta): void {
    const node = this.ensureUser(username);
    const folderNode = folder === null ? null : this.#ensureFolder(node, username, folder, meta.mtimeMs);
    const files = folderNode ? folderNode.files : node.root;
    const old = files.get(name);
    if (old && old.size === meta.size && old.mtimeMs === meta.mtimeMs) return;
    if (!old) this.#sorted.delete(files);
    files.set(name, meta);
    if (!old) this.caseFolds.added(files, name);
    const delta = meta.size - (old?.size ?? 0);
    node.usedBytes += delta;
    if (folderNode) folderNode.sizeBytes += delta;
    this.#emit(old ? 'file.changed' : 'file.added', username, folder, name);
  }

  removeFile(username: string, folder: string | null, name: string): boolean {
    const node = this.users.get(username);
    const folderNode = folder === null ? undefined : node?.folders.get(folder);
    const files = folder === null ? node?.root : folderNode?.files;
    const old = files?.get(name);
    if (!node || !files || !old) return false;
    files.delete(name);
    this.#sorted.delete(files);
    this.caseFolds.removed(files, name);
    node.usedBytes -= old.size;
    if (folderNode) folderNode.sizeBytes -= old.size;
    this.#emit('file.removed', username, folder, name);
    return true;
  }

  addFolder(username: string, folder: string, mtimeMs: number): void {
    this.#ensureFolder(this.ensureUser(username), username, folder, mtimeMs);
  }

  removeFolder(username: string, folder: string): boolean {
    const node = this.users.get(username);
    const folderNode = node?.folders.get(folder);
    if (!node || !folderNode) return false;
    node.folders.delete(folder);
    this.caseFolds.removed(node.folders, folder);
    node.usedBytes -= folderNode.sizeBytes;
    this.#emit('folder.removed', username, folder, null);
    return true;
  }

  /** Users whose directory has been read since start: their answers are complete even while others are still scanned. */
  readonly #scanned = new Set<string>();

  /** Whether the index is complete for this user (the first scan has read their directory). */
  isComplete(username: string): boolean {
    return this.state !== 'scanning' || this.#scanned.has(username);
  }

  /** Replaces a user's whole tree (after a scan), emitting what differs. */
  replaceUser(username: string, fresh: UserNode): void {
    const old = this.users.get(username);
    this.users.set(username, fresh);
    if (!this.#scanned.has(username)) {
      this.#scanned.add(username);
      this.emit('userScanned', username);
    }
    if (!old) {
      if (fresh.root.size > 0 || fresh.folders.size > 0) this.#emit('user.changed', username, null, null);
      return;
    }
    diffFiles(old.root, fresh.root, (type, name) => this.#emit(type, username, null, name));
    for (const [folder, node] of fresh.folders) {
      const before = old.folders.get(folder);
      if (!before) this.#emit('folder.added', username, folder, null);
      diffFiles(before?.files ?? new Map(), node.files, (type, name) => this.#emit(type, username, folder, name));
    }
    for (const folder of old.folders.keys()) {
      if (!fresh.folders.has(folder)) this.#emit('folder.removed', username, folder, null);
    }
  }

  removeUser(username: string): void {
    if (this.users.delete(username)) this.#emit('user.removed', username, null, null);
  }

  renameUser(from: string, to: string): void {
    const node = this.users.get(from);
    this.users.delete(from);
    if (node) this.users.set(to, node);
  }

  setState(state: IndexState): void {
    if (this.state === state) return;
    this.state = state;
    if (state === 'ready') this.everReady = true;
    this.#emit('index.state', null, null, null);
  }

  totals(): { files: number; folders: number; usedBytes: number } {
    let files = 0;
    let folders = 0;
    let usedBytes = 0;
    for (const node of this.users.values()) {
      files += node.root.size;
      folders += node.folders.size;
      for (const f of node.folders.values()) files += f.files.size;
      usedBytes += node.usedBytes;
    }
    return { files, folders, usedBytes };
  }

  #ensureFolder(node: UserNode, username: string, folder: string, mtimeMs: number): FolderNode {
    let folderNode = node.folders.get(folder);
    if (!folderNode) {
      folderNode = { files: new Map(), mtimeMs, sizeBytes: 0 };
      node.folders.set(folder, folderNode);
      this.caseFolds.added(node.folders, folder);
      this.#emit('folder.added', username, folder, null);
    }
    return folderNode;
  }

  #emit(type: ChangeEvent['type'], username: string | null, folder: string | null, file: string | null): void {
    this.emit('change', { type, username, folder, file });
  }
}

function addFolded(folded: FoldedNames, name: string): void {
  const key = foldName(name);
  const entry = folded.byFold.get(key);
  // Most names are the only one with their key (a string, not an array), and many are their
  // own key (the name's string is kept, not a second copy of it).
  if (entry === undefined) folded.byFold.set(key === name ? name : key, name);
  else folded.byFold.set(key, typeof entry === 'string' ? [entry, name] : [...entry, name]);
  folded.count++;
}

function removeFolded(folded: FoldedNames, name: string): void {
  const key = foldName(name);
  const entry = folded.byFold.get(key);
  if (entry === undefined) return;
  if (typeof entry === 'string') {
    if (entry !== name) return;
    folded.byFold.delete(key);
  } else {
    const rest = entry.filter((other) => other !== name);
    if (rest.length === entry.length) return;
    folded.byFold.set(key, rest.length === 1 ? rest[0] : rest);
  }
  folded.count--;
}

function diffFiles(
  before: Map<string, FileMeta>,
  after: Map<string, FileMeta>,
  emit: (type: 'file.added' | 'file.changed' | 'file.removed', name: string) => void,
): void {
  for (const [name, meta] of after) {
    const old = before.get(name);
    if (!old) emit('file.added', name);
    else if (old.size !== meta.size || old.mtimeMs !== meta.mtimeMs) emit('file.changed', name);
  }
  for (const name of before.keys()) if (!after.has(name)) emit('file.removed', name);
}
