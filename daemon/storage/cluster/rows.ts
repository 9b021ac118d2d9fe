/**
 * Object mode's file index is a cache of the store's `files` and `folders` rows
 * (docs/cluster.md, "Events"; docs/tree.md, "Cluster"). `IndexedRows` keeps the rows as the
 * FileIndex last saw them and turns a row change into the index calls the disk path makes
 * for the same operation, so the event stream says the same things. A local change (after its
 * commit) and another daemon's change (store.onRemoteChange) both go through `applyFile` /
 * `applyFolder`: one path, so a daemon shows what another did exactly as what it did itself.
 *
 * Folders are rows with a parent (`parentId`): a folder's path is its names up the parents,
 * O(depth), so a rename or move is one row and the index relinks one node. A folder shows
 * when it and every folder above it are out of the trash; rows may arrive in any order from
 * another daemon, so a folder that becomes visible shows its whole visible subtree then.
 */
import type { StoredFile, StoredFolder } from '../../store/schema.js';
import type { FileIndex } from '../file-index.js';
import { joinFolder, type FileMeta } from '../index-tree.js';
import { folderComponents, splitFolder } from '../paths.js';
import { TrashedRows } from './trashed-rows.js';

const fileKey = (username: string, folderId: string | null, name: string) => `${username}\0${folderId ?? ''}\0${name}`;
const folderKey = (username: string, parentId: string | null, name: string) => `${username}\0${parentId ?? ''}\0${name}`;

/** The parent of a folder row (rows written before folders nested have none: the root). */
export const parentOf = (row: StoredFolder): string | null => row.parentId ?? null;

export const metaOf = (row: StoredFile): FileMeta => ({ size: row.size, mtimeMs: row.mtimeMs });

/** More parents than a path may have components: a loop (rows edited by hand), never walked forever. */
const MAX_DEPTH = 64;

export class IndexedRows {
  /** Every row applied, trashed ones included (a restore brings them back). */
  readonly files = new Map<string, StoredFile>();
  readonly folders = new Map<string, StoredFolder>();
  /** Files not in the trash by (username, folderId, name); folders not in the trash by (username, parentId, name). */
  readonly #fileIds = new Map<string, string>();
  readonly #folderIds = new Map<string, string>();
  /** The ids of the files of each folder id (a folder may arrive after its files, from another daemon). */
  readonly #filesOf = new Map<string, Set<string>>();
  /** The ids of the folders in each folder id, trashed ones too (a folder may arrive after its children). */
  readonly #childrenOf = new Map<string, Set<string>>();
  readonly #trashed = new TrashedRows();

  constructor(readonly index: FileIndex) {}

  /** The id of the visible file `name` in the folder (null: the root), if any. */
  fileId(username: string, folder: string | null, name: string): string | undefined {
    const folderId = folder === null ? null : this.folderId(username, folder);
    if (folderId === undefined) return undefined;
    return this.#fileIds.get(fileKey(username, folderId, name));
  }

  /** The id of the visible folder at a path, walking from the root: O(depth). */
  folderId(username: string, folder: string): string | undefined {
    let id: string | null = null;
    for (const name of folderComponents(folder)) {
      const child = this.#folderIds.get(folderKey(username, id, name));
      if (child === undefined) return undefined;
      id = child;
    }
    return id ?? undefined;
  }

  /** The id of the visible folder `name` directly in a folder id (null: the root). */
  childFolderId(username: string, parentId: string | null, name: string): string | undefined {
    return this.#folderIds.get(folderKey(username, parentId, name));
  }

  /** The path of a folder row, or null while it or a folder above it is in the trash, gone, or not known yet. */
  pathOf(id: string): string | null {
    const names: string[] = [];
    const username = this.folders.get(id)?.username;
    for (let at: string | null = id; at !== null;) {
      const row = this.folders.get(at);
      if (!row || row.trashId !== null || row.username !== username || names.length >= MAX_DEPTH) return null;
      if (this.#folderIds.get(folderKey(row.username, parentOf(row), row.name)) !== at) return null;
      names.push(row.name);
      at = parentOf(row);
    }
    return names.reverse().join('/');
  }

  /** The rows of the files in a folder (trashed ones too). */
  filesIn(folderId: string): StoredFile[] {
    return [...(this.#filesOf.get(folderId) ?? [])].map((id) => this.files.get(id)!);
  }

  /** The folder rows inside a folder id at every depth (trashed ones too), parents first. */
  foldersBelow(folderId: string): StoredFolder[] {
    const found: StoredFolder[] = [];
    const queue = [folderId];
    for (let i = 0; i < queue.length && i <= this.folders.size; i++) {
      for (const child of this.#childrenOf.get(queue[i]) ?? []) {
        found.push(this.folders.get(child)!);
        queue.push(child);
      }
    }
    return found;
  }

  /** The rows a trash item holds (a file's, or a folder's subtree with its files), of that user only. */
  inTrash(trashId: string, username: string): { files: StoredFile[]; folders: StoredFolder[] } {
    const ids = this.#trashed.ids(trashId);
    const mine = <T extends { username: string }>(rows: (T | undefined)[]) => rows.filter((r): r is T => r?.username === username);
    return {
      files: mine([...ids.files].map((id) => this.files.get(id))),
      folders: mine([...ids.folders].map((id) => this.folders.get(id))),
    };
  }

  /** Every row of a user (files and folders, trashed ones too). */
  rowsOf(username: string): { files: StoredFile[]; folders: StoredFolder[] } {
    return {
      files: [...this.files.values()].filter((f) => f.username === username),
      folders: [...this.folders.values()].filter((f) => f.username === username),
    };
  }

  /** Where a file shows in the index, or null while it is in the trash (or its folder is, or is unknown yet). */
  placeOf(row: StoredFile): { folder: string | null } | null {
    if (row.trashId !== null) return null;
    if (row.folderId === null) return { folder: null };
    const folder = this.folders.get(row.folderId);
    const path = this.pathOf(row.folderId);
    if (!folder || path === null || folder.username !== row.username) return null;
    return { folder: path };
  }

  /** Applies a file row's new state (undefined: deleted) to the index. */
  applyFile(id: string, after: StoredFile | undefined): void {
    const before = this.files.get(id);
    const was = before ? this.placeOf(before) : null;
    // An overwrite inserts the new row before the old one goes: the old one must not take the new one's entry with it.
    this.#trashed.track('files', id, before, after);
    const holder = before && this.#fileIds.get(fileKey(before.username, before.folderId, before.name));
    const replaced = holder !== undefined && holder !== id;
    if (before) {
      this.files.delete(id);
      this.#filesOf.get(before.folderId ?? '')?.delete(id);
      if (before.trashId === null) {
        const key = fileKey(before.username, before.folderId, before.name);
        if (this.#fileIds.get(key) === id) this.#fileIds.delete(key);
      }
    }
    if (after) {
      this.files.set(id, after);
      if (after.folderId !== null) addTo(this.#filesOf, after.folderId, id);
      if (after.trashId === null) this.#fileIds.set(fileKey(after.username, after.folderId, after.name), id);
    }
    const now = after ? this.placeOf(after) : null;
    const moved = !was || !now || before!.username !== after!.username || was.folder !== now.folder || before!.name !== after!.name;
    if (was && moved && !replaced) this.index.removeFile(before!.username, was.folder, before!.name);
    if (now) this.index.setFile(after!.username, now.folder, after!.name, metaOf(after!));
  }

  /**
   * Applies a folder row's new state (undefined: deleted) to the index: a folder still shown
   * under another path is relinked whole (one folder.moved, none per file or folder below);
   * one hidden goes with its subtree (one folder.removed); one shown again shows its subtree.
   */
  applyFolder(id: string, after: StoredFolder | undefined): void {
    const before = this.folders.get(id);
    const was = before ? this.pathOf(id) : null;
    this.#trashed.track('folders', id, before, after);
    if (before) {
      this.folders.delete(id);
      this.#childrenOf.get(parentOf(before) ?? '')?.delete(id);
      const key = folderKey(before.username, parentOf(before), before.name);
      if (this.#folderIds.get(key) === id) this.#folderIds.delete(key);
    }
    if (after) {
      this.folders.set(id, after);
      addTo(this.#childrenOf, parentOf(after) ?? '', id);
      if (after.trashId === null) this.#folderIds.set(folderKey(after.username, parentOf(after), after.name), id);
    }
    const now = after ? this.pathOf(id) : null;
    if (was !== null && now !== null && before!.username === after!.username) {
      if (was === now) return;
      if (this.index.folder(after!.username, was) && !this.index.folder(after!.username, now)) {
        const { parent, name } = splitFolder(now);
        return this.index.relinkFolder(after!.username, was, parent, name);
      }
    }
    if (was !== null) this.index.removeFolder(before!.username, was);
    if (now !== null) this.#show(id, now);
  }

  /** Shows a visible folder at `path` with its files and its visible folders at every depth. */
  #show(id: string, path: string): void {
    const row = this.folders.get(id)!;
    this.index.addFolder(row.username, path, row.mtimeMs);
    for (const file of this.filesIn(id)) {
      if (file.trashId === null && file.username === row.username) this.index.setFile(row.username, path, file.name, metaOf(file));
    }
    for (const child of this.#childrenOf.get(id) ?? []) {
      const sub = this.folders.get(child)!;
      if (sub.trashId === null && sub.username === row.username && this.childFolderId(sub.username, id, sub.name) === child)
        this.#show(child, joinFolder(path, sub.name));
    }
  }

  /**
   * Puts back into the index what the rows applied last show (after a failed commit whose
   * callbacks had already changed the index).
   */
  showAgain(fileIds: string[], folderIds: string[]): void {
    for (const id of folderIds) {
      const path = this.pathOf(id);
      if (path !== null) this.#show(id, path);
    }
    for (const id of fileIds) {
      const file = this.files.get(id);
      const place = file && this.placeOf(file);
      if (file && place) this.index.setFile(file.username, place.folder, file.name, metaOf(file));
    }
  }
}

function addTo(sets: Map<string, Set<string>>, key: string, id: string): void {
  let ids = sets.get(key);
  if (!ids) sets.set(key, (ids = new Set()));
  ids.add(id);
}
