/**
 * The trash of object mode: nothing moves. A trashed file or folder keeps its rows with
 * `trashId` set to the item's id (a folder's files too), so the index stops showing them and
 * `files.size` still counts them against the quota; a restore clears `trashId` (under a new
 * name, or into a folder made again, as the service decides); a delete for good deletes the
 * rows, commits, then deletes the objects. The index changes here (trash-index.ts, as on
 * disk); the trash records themselves are the services' (services/trash.ts), written by the
 * `record` hook just before the rows' commit, so they commit with the rows in one write.
 */
import { badRequest, notFound } from '../../errors.js';
import type { StoredFile, StoredFolder } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import type { FileIndex } from '../file-index.js';
import { NameTaken } from '../file-storage.js';
import type { Placed, RestoreTarget, Trashed, TrashEntry, TrashStorage, TrashTarget } from '../file-storage.js';
import type { FileMeta } from '../index-tree.js';
import type { SharedExclusiveLock } from '../safe-lock.js';
import { folderKey, keysOf, userKey } from '../storage-parts.js';
import { showRestored, takeOutOfIndex } from '../trash-index.js';
import type { UploadTickets } from '../upload-tickets.js';
import { newId } from './ids.js';
import { metaOf, type IndexedRows } from './rows.js';

/** What the trash uses of its ObjectStorage (object-storage.ts), named here so that this module does not import that one back. */
export interface ObjectTrashParts {
  readonly live: SharedExclusiveLock;
  readonly tickets: UploadTickets;
  readonly store: Store;
  readonly index: FileIndex;
  readonly rows: IndexedRows;
  /** Deletes rows in one commit, then their files' objects. */
  deleteRows(files: StoredFile[], folders: StoredFolder[]): Promise<void>;
}

export class ObjectTrash implements TrashStorage {
  constructor(private readonly s: ObjectTrashParts) {}

  async moveIn(target: TrashTarget, record: (trashed: Trashed) => void): Promise<Trashed> {
    const { username, folder, name, kind, id } = target;
    const s = this.s;
    // Object storage keeps folders one level deep (docs/tree.md): a folder inside one is never trashed half.
    if (kind === 'folder' && folder !== null)
      throw badRequest('A folder inside a folder cannot be deleted in object storage yet (docs/tree.md)');
    const missing = () =>
      kind === 'file' ? notFound('file_not_found', 'File not found') : notFound('folder_not_found', 'Folder not found');
    // As a delete: a file's directory shared; a folder exclusively (its user shared), so nothing is placed into it meanwhile.
    const hold = (fn: () => Promise<Trashed>) =>
      kind === 'file'
        ? s.live.run(keysOf(username, folder), false, fn)
        : s.live.run([userKey(username)], false, () => s.live.run([folderKey(username, name)], true, fn));
    return hold(async () => {
      let files: StoredFile[] = [];
      let folders: StoredFolder[] = [];
      if (kind === 'file') {
        const fileId = s.rows.fileId(username, folder, name);
        if (fileId === undefined) throw missing();
        files = [{ ...s.rows.files.get(fileId)!, trashId: id }];
      } else {
        const folderId = s.rows.folderId(username, name);
        if (folderId === undefined) throw missing();
        s.tickets.voidAll(username, name);
        folders = [{ ...s.rows.folders.get(folderId)!, trashId: id }];
        files = s.rows
          .filesIn(folderId)
          .filter((f) => f.trashId === null)
          .map((f) => ({ ...f, trashId: id }));
      }
      let trashed = null as Trashed | null;
      await this.#commitRows(files, folders, () => {
        trashed = takeOutOfIndex(s.index, target);
        record(trashed);
      });
      return trashed!;
    });
  }

  async restore(target: RestoreTarget, record: (placed: Placed) => void): Promise<Placed> {
    const { username, kind, id, as } = target;
    const s = this.s;
    const folder = kind === 'file' ? target.folder : null;
    return s.live.run(folder === null ? [userKey(username)] : keysOf(username, folder), false, async () => {
      const held = s.rows.inTrash(id, username);
      const files = held.files;
      const folderRow = held.folders[0];
      if (files.length === 0 && !folderRow) throw notFound('trash_item_not_found', 'Trash item not found');
      const restoredFiles: StoredFile[] = [];
      const restoredFolders: StoredFolder[] = [];
      const metas = new Map<string, FileMeta>();
      let folderMtimeMs: number | null = null;
      if (kind === 'folder') {
        if (s.rows.folderId(username, as) !== undefined) throw new NameTaken('folder');
        if (s.rows.fileId(username, null, as) !== undefined) throw new NameTaken('file');
        // A folder item without its folder row (a crash between commits cannot make one, but a row edited by hand can): made anew.
        const row = folderRow ?? { id: newId(), username, name: as, mtimeMs: Date.now(), trashId: null };
        restoredFolders.push({ ...row, name: as, trashId: null });
        folderMtimeMs = row.mtimeMs;
        for (const f of files) {
          restoredFiles.push({ ...f, folderId: row.id, trashId: null });
          metas.set(f.name, metaOf(f));
        }
      } else {
        let folderId: string | null = null;
        if (folder !== null) {
          const found = s.rows.folderId(username, folder);
          if (found === undefined) {
            // The file's folder is gone (deleted, or in the trash itself): made again, as the disk path does.
            if (s.rows.fileId(username, null, folder) !== undefined) throw new NameTaken('file');
            const made: StoredFolder = { id: newId(), username, name: folder, mtimeMs: Date.now(), trashId: null };
            restoredFolders.push(made);
            folderId = made.id;
            folderMtimeMs = made.mtimeMs;
          } else {
            folderId = found;
            folderMtimeMs = s.rows.folders.get(found)!.mtimeMs;
          }
        }
        if (s.rows.fileId(username, folder, as) !== undefined) throw new NameTaken('file');
        if (folder === null && s.rows.folderId(username, as) !== undefined) throw new NameTaken('folder');
        for (const f of files) {
          restoredFiles.push({ ...f, name: as, folderId, trashId: null });
          metas.set(as, metaOf(f));
        }
      }
      const placed: Placed = { files: metas, folderMtimeMs };
      await this.#commitRows(restoredFiles, restoredFolders, () => {
        showRestored(s.index, target, placed);
        record(placed);
      });
      return placed;
    });
  }

  /** Deletes one item's rows, then its objects. */
  async removeItem(username: string, id: string): Promise<void> {
    const s = this.s;
    const { files, folders } = s.rows.inTrash(id, username);
    if (files.length > 0 || folders.length > 0) await s.deleteRows(files, folders);
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
      if (folder.trashId === null) continue;
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
