/**
 * The trash of object mode: nothing moves. A trashed file or folder keeps its rows with
 * `trashId` set to the item's id (a folder's whole subtree, folders and files, at every
 * depth: one item), so the index stops showing them and
 * `files.size` still counts them against the quota; a restore clears `trashId` (under a new
 * name, or into a folder made again, as the service decides); a delete for good deletes the
 * rows, commits, then deletes the objects. The index changes here (trash-index.ts, as on
 * disk); the trash records themselves are the services' (services/trash.ts), written by the
 * `record` hook just before the rows' commit, so they commit with the rows in one write.
 */
import { notFound } from '../../errors.js';
import type { StoredFile, StoredFolder } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import type { FileIndex } from '../file-index.js';
import { NameTaken } from '../file-storage.js';
import type { Placed, RestoreTarget, Trashed, TrashEntry, TrashStorage, TrashTarget } from '../file-storage.js';
import { joinFolder } from '../index-tree.js';
import type { SharedExclusiveLock } from '../safe-lock.js';
import { folderKey, keysOf } from '../storage-parts.js';
import { showRestored, takeOutOfIndex } from '../trash-index.js';
import type { UploadTickets } from '../upload-tickets.js';
import { folderPathRows, restoredSubtree } from './restore-rows.js';
import { metaOf, parentOf, type IndexedRows } from './rows.js';

/** What the trash uses of its ObjectStorage (object-storage.ts), named here so that this module does not import that one back. */
export interface ObjectTrashParts {
  readonly live: SharedExclusiveLock;
  readonly tickets: UploadTickets;
  readonly store: Store;
  readonly index: FileIndex;
  readonly rows: IndexedRows;
  /** Runs a change of rows, once more after a catch-up when its commit met another daemon's change (ObjectParts). */
  changeRows<T>(change: () => Promise<T>): Promise<T>;
  /** Deletes rows in one commit, then their files' objects; `asKnown`: only as this daemon knows them (ObjectParts). */
  deleteRows(files: StoredFile[], folders: StoredFolder[], asKnown?: boolean): Promise<void>;
  /** A folder row and every row below it not in the trash, parents first. */
  visibleSubtree(id: string): { files: StoredFile[]; folders: StoredFolder[] };
}

export class ObjectTrash implements TrashStorage {
  constructor(private readonly s: ObjectTrashParts) {}

  moveIn(target: TrashTarget, record: (trashed: Trashed) => void): Promise<Trashed> {
    return this.s.changeRows(async () => {
      const { username, folder, name, kind, id } = target;
      const s = this.s;
      const at = joinFolder(folder, name);
      const missing = () =>
        kind === 'file' ? notFound('file_not_found', 'File not found') : notFound('folder_not_found', 'Folder not found');
      // As a delete: a file's directory shared; a folder exclusively (its parents shared), so nothing is placed into it meanwhile.
      const hold = (fn: () => Promise<Trashed>) =>
        kind === 'file'
          ? s.live.run(keysOf(username, folder), false, fn)
          : s.live.run(keysOf(username, folder), false, () => s.live.run([folderKey(username, at)], true, fn));
      return hold(async () => {
        let files: StoredFile[] = [];
        let folders: StoredFolder[] = [];
        if (kind === 'file') {
          const fileId = s.rows.fileId(username, folder, name);
          if (fileId === undefined) throw missing();
          files = [{ ...s.rows.files.get(fileId)!, trashId: id }];
        } else {
          const folderId = s.rows.folderId(username, at);
          if (folderId === undefined) throw missing();
          s.tickets.voidAll(username, at);
          // The whole subtree is one item: every row of it marked, so a restore finds them all (rows.inTrash).
          const subtree = s.visibleSubtree(folderId);
          folders = subtree.folders.map((f) => ({ ...f, trashId: id }));
          files = subtree.files.map((f) => ({ ...f, trashId: id }));
        }
        let trashed = null as Trashed | null;
        await this.#commitRows(files, folders, () => {
          trashed = takeOutOfIndex(s.index, target);
          record(trashed);
        });
        return trashed!;
      });
    });
  }

  restore(target: RestoreTarget, record: (placed: Placed) => void): Promise<Placed> {
    return this.s.changeRows(async () => {
      const { username, kind, id, as, folder } = target;
      const s = this.s;
      return s.live.run(keysOf(username, folder), false, async () => {
        const held = s.rows.inTrash(id, username);
        if (held.files.length === 0 && held.folders.length === 0) throw notFound('trash_item_not_found', 'Trash item not found');
        // The folder it goes back to, made again level by level where it is gone, as the disk path does.
        const parent = folderPathRows(s.rows, username, folder);
        const parentMtimeMs = parent.id === null ? null : (parent.made.at(-1) ?? s.rows.folders.get(parent.id)!).mtimeMs;
        if (parent.made.length === 0) {
          if (s.rows.fileId(username, folder, as) !== undefined) throw new NameTaken('file');
          if (s.rows.childFolderId(username, parent.id, as) !== undefined) throw new NameTaken('folder');
        }
        let restoredFiles: StoredFile[];
        let restoredFolders: StoredFolder[];
        let placed: Placed;
        if (kind === 'folder') {
          const subtree = restoredSubtree(held, username, parent.id, as);
          restoredFolders = [...parent.made, ...subtree.folders];
          restoredFiles = subtree.files;
          placed = subtree.placed;
        } else {
          restoredFolders = parent.made;
          restoredFiles = held.files.map((f) => ({ ...f, name: as, folderId: parent.id, trashId: null }));
          placed = { files: new Map(held.files.map((f) => [as, metaOf(f)])), folderMtimeMs: parentMtimeMs };
        }
        await this.#commitRows(restoredFiles, restoredFolders, () => {
          showRestored(s.index, target, placed);
          record(placed);
        });
        return placed;
      });
    });
  }

  /**
   * Deletes one item's rows, then its objects. The rows are deleted only as this daemon knows
   * them, still in the trash: another daemon may have restored the item a moment ago, and a
   * plain delete would then take the restored files and their bytes. Refused so, the purge
   * catches up and finds nothing left to delete (and the same when two daemons purge at once).
   */
  removeItem(username: string, id: string): Promise<void> {
    return this.s.changeRows(async () => {
      const { files, folders } = this.s.rows.inTrash(id, username);
      if (files.length > 0 || folders.length > 0) await this.s.deleteRows(files, folders, true);
    });
  }

  /** A deleted user's rows went with deleteUser; any trashed one left (a user deleted by another daemon) goes here. */
  async removeUser(username: string): Promise<void> {
    const { files, folders } = this.s.rows.rowsOf(username);
    const trashed = <T extends { trashId: string | null }>(rows: T[]) => rows.filter((r) => r.trashId !== null);
    if (files.length > 0 || folders.length > 0) await this.s.deleteRows(trashed(files), trashed(folders));
  }

  /** The rows of a renamed user (trashed ones included) took the new name in renameUser: nothing moves here. */
  async renameUser(): Promise<void> {}

  /** The items the rows hold now, per user: one per trashId (a folder's row names its kind and name). */
  async survey(keep: (username: string) => boolean): Promise<Map<string, TrashEntry[]>> {
    const items = new Map<string, TrashEntry & { username: string }>();
    for (const folder of this.s.rows.folders.values()) {
      // An item is named by the top of its subtree: the folder whose parent is not in the same item.
      if (folder.trashId === null || this.s.rows.folders.get(parentOf(folder) ?? '')?.trashId === folder.trashId) continue;
      items.set(folder.trashId, {
        id: folder.trashId,
        username: folder.username,
        kind: 'folder',
        name: folder.name,
        size: 0,
        fileCount: 0,
        mtimeMs: folder.mtimeMs,
      });
    }
    for (const file of this.s.rows.files.values()) {
      if (file.trashId === null) continue;
      let item = items.get(file.trashId);
      if (!item) {
        item = { id: file.trashId, username: file.username, kind: 'file', name: file.name, size: 0, fileCount: 0, mtimeMs: file.mtimeMs };
        items.set(file.trashId, item);
      }
      item.size += file.size;
      item.fileCount += 1;
    }
    const found = new Map<string, TrashEntry[]>();
    for (const { username, ...entry } of items.values()) {
      if (!keep(username)) continue;
      let list = found.get(username);
      if (!list) found.set(username, (list = []));
      list.push(entry);
    }
    return found;
  }

  /** Sets rows, runs `inStep` (the index's change and the service's records), commits them together, then applies the rows to the index. */
  async #commitRows(files: StoredFile[], folders: StoredFolder[], inStep: () => void): Promise<void> {
    const { store, rows } = this.s;
    for (const f of folders) store.folders.set(f.id, f);
    for (const f of files) store.files.set(f.id, f);
    inStep();
    try {
      await store.commit();
    } catch (err) {
      // The store went back to what it holds; the index (which `inStep` changed) follows it again.
      rows.showAgain(
        files.map((f) => f.id),
        folders.map((f) => f.id),
      );
      throw err;
    }
    for (const f of folders) rows.applyFolder(f.id, f);
    for (const f of files) rows.applyFile(f.id, f);
  }
}
