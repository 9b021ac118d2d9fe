/**
 * Object mode's file index is a cache of the store's `files` and `folders` rows
 * (docs/cluster.md, "Events"). `IndexedRows` keeps the rows as the FileIndex last saw them
 * and turns a row change into the index calls the disk path makes for the same operation,
 * so the event stream says the same things. A local change (after its commit) and another
 * daemon's change (store.onRemoteChange) both go through `applyFile` / `applyFolder`:
 * one path, so a daemon shows what another did exactly as what it did itself.
 */
import type { StoredFile, StoredFolder } from '../../store/schema.js';
import type { FileIndex } from '../file-index.js';
import type { FileMeta } from '../index-tree.js';

const fileKey = (username: string, folderId: string | null, name: string) => `${username}\0${folderId ?? ''}\0${name}`;
const folderKey = (username: string, name: string) => `${username}\0${name}`;

export const metaOf = (row: StoredFile): FileMeta => ({ size: row.size, mtimeMs: row.mtimeMs });

export class IndexedRows {
  /** Every row applied, trashed ones included (a restore brings them back). */
  readonly files = new Map<string, StoredFile>();
  readonly folders = new Map<string, StoredFolder>();
  /** Files not in the trash by (username, folderId, name); folders not in the trash by (username, name). */
  readonly #fileIds = new Map<string, string>();
  readonly #folderIds = new Map<string, string>();
  /** The ids of the files of each folder id (a folder may arrive after its files, from another daemon). */
  readonly #filesOf = new Map<string, Set<string>>();
  /** The file and folder ids of each trash item (a restore or a removal finds them without a scan). */
  readonly #trashed = new Map<string, { files: Set<string>; folders: Set<string> }>();

  constructor(readonly index: FileIndex) {}

  /** The id of the visible file `name` in the folder (null: the root), if any. */
  fileId(username: string, folder: string | null, name: string): string | undefined {
    const folderId = folder === null ? null : this.folderId(username, folder);
    if (folderId === undefined) return undefined;
    return this.#fileIds.get(fileKey(username, folderId, name));
  }

  folderId(username: string, folder: string): string | undefined {
    return this.#folderIds.get(folderKey(username, folder));
  }

  /** The rows of the files in a folder (trashed ones too). */
  filesIn(folderId: string): StoredFile[] {
    return [...(this.#filesOf.get(folderId) ?? [])].map((id) => this.files.get(id)!);
  }

  /** The rows a trash item holds (a file's, or a folder's with its files), of that user only. */
  inTrash(trashId: string, username: string): { files: StoredFile[]; folders: StoredFolder[] } {
    const ids = this.#trashed.get(trashId);
    const mine = <T extends { username: string }>(rows: (T | undefined)[]) => rows.filter((r): r is T => r?.username === username);
    return {
      files: mine([...(ids?.files ?? [])].map((id) => this.files.get(id))),
      folders: mine([...(ids?.folders ?? [])].map((id) => this.folders.get(id))),
    };
  }

  #trackTrash(
    kind: 'files' | 'folders',
    id: string,
    before: { trashId: string | null } | undefined,
    after: { trashId: string | null } | undefined,
  ): void {
    if (before?.trashId) {
      const ids = this.#trashed.get(before.trashId);
      ids?.[kind].delete(id);
      if (ids && ids.files.size === 0 && ids.folders.size === 0) this.#trashed.delete(before.trashId);
    }
    if (after?.trashId) {
      let ids = this.#trashed.get(after.trashId);
      if (!ids) this.#trashed.set(after.trashId, (ids = { files: new Set(), folders: new Set() }));
      ids[kind].add(id);
    }
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
    if (!folder || folder.trashId !== null || folder.username !== row.username) return null;
    return { folder: folder.name };
  }

  /** Applies a file row's new state (undefined: deleted) to the index. */
  applyFile(id: string, after: StoredFile | undefined): void {
    const before = this.files.get(id);
    const was = before ? this.placeOf(before) : null;
    // An overwrite inserts the new row before the old one goes: the old one must not take the new one's entry with it.
    this.#trackTrash('files', id, before, after);
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
      if (after.folderId !== null) {
        let ids = this.#filesOf.get(after.folderId);
        if (!ids) this.#filesOf.set(after.folderId, (ids = new Set()));
        ids.add(id);
      }
      if (after.trashId === null) this.#fileIds.set(fileKey(after.username, after.folderId, after.name), id);
    }
    const now = after ? this.placeOf(after) : null;
    const moved = !was || !now || before!.username !== after!.username || was.folder !== now.folder || before!.name !== after!.name;
    if (was && moved && !replaced) this.index.removeFile(before!.username, was.folder, before!.name);
    if (now) this.index.setFile(after!.username, now.folder, after!.name, metaOf(after!));
  }

  /** Applies a folder row's new state (undefined: deleted) to the index, with the files it shows or hides. */
  applyFolder(id: string, after: StoredFolder | undefined): void {
    const before = this.folders.get(id);
    this.#trackTrash('folders', id, before, after);
    const wasShown = before !== undefined && before.trashId === null;
    const shown = after !== undefined && after.trashId === null;
    if (before) {
      this.folders.delete(id);
      const key = folderKey(before.username, before.name);
      if (this.#folderIds.get(key) === id) this.#folderIds.delete(key);
    }
    if (after) {
      this.folders.set(id, after);
      if (shown) this.#folderIds.set(folderKey(after.username, after.name), id);
    }
    const same = wasShown && shown && before.username === after.username && before.name === after.name;
    if (same) return;
    // A rename relinks the folder's node whole: one folder.moved announced, none per file.
    const renamed = wasShown && shown && before.username === after.username;
    if (renamed && this.index.folder(before.username, before.name) && !this.index.folder(after.username, after.name))
      return this.index.relinkFolder(after.username, before.name, null, after.name);
    if (wasShown) this.index.removeFolder(before.username, before.name);
    if (!shown) return;
    this.index.addFolder(after.username, after.name, after.mtimeMs);
    for (const file of this.filesIn(id)) {
      if (file.trashId === null && file.username === after.username)
        this.index.setFile(after.username, after.name, file.name, metaOf(file));
    }
  }

  /**
   * Puts back into the index what the rows applied last show (after a failed commit whose
   * callbacks had already changed the index).
   */
  showAgain(fileIds: string[], folderIds: string[]): void {
    for (const id of folderIds) {
      const folder = this.folders.get(id);
      if (!folder || folder.trashId !== null) continue;
      this.index.addFolder(folder.username, folder.name, folder.mtimeMs);
      for (const file of this.filesIn(id)) {
        if (file.trashId === null) this.index.setFile(folder.username, folder.name, file.name, metaOf(file));
      }
    }
    for (const id of fileIds) {
      const file = this.files.get(id);
      const place = file && this.placeOf(file);
      if (file && place) this.index.setFile(file.username, place.folder, file.name, metaOf(file));
    }
  }
}
