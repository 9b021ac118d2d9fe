/**
 * Object mode's folders at any depth (docs/tree.md, "Cluster"): rows with a parent. A rename
 * or a move writes the folder's one row (its `name`, its `parentId`), whatever its subtree
 * holds: the folders below name it by id, the files by their folder's id, and object keys are
 * by file id, so nothing else changes; the index relinks the node (one folder.moved). A delete
 * for good removes the subtree's rows in one commit, then its objects. Locks as on disk
 * (folder-moves.ts): both parents' paths shared, the old and the new path exclusively.
 */
import { conflict, notFound } from '../../errors.js';
import type { StoredFile, StoredFolder } from '../../store/schema.js';
import { joinFolder } from '../index-tree.js';
import { assertComponent, assertFolderPath, splitFolder } from '../paths.js';
import { folderKey, keysOf } from '../storage-parts.js';
import { newId } from './ids.js';
import { guardMove } from './move-guard.js';
import { missingIn, ObjectParts } from './object-parts.js';
import { parentOf } from './rows.js';

export class ObjectFolders extends ObjectParts {
  /** Creates the folder at a path whose parent exists (404 otherwise); 409 for a folder or file of that name there. */
  createFolder(username: string, folder: string): Promise<void> {
    return this.changeRows(async () => {
      assertComponent(username);
      assertFolderPath(folder);
      const { parent, name } = splitFolder(folder);
      this.requireFolder(username, parent);
      if (this.index.folder(username, folder)) throw conflict('folder_exists', 'Folder already exists');
      await this.live.run(keysOf(username, parent), false, async () => {
        if (!this.index.user(username)) throw missingIn(null);
        const parentId = this.#parentId(username, parent);
        if (this.rows.childFolderId(username, parentId, name) !== undefined) throw conflict('folder_exists', 'Folder already exists');
        if (this.rows.fileId(username, parent, name) !== undefined) throw conflict('folder_exists', 'A file with that name already exists');
        const row: StoredFolder = { id: newId(), username, name, mtimeMs: Date.now(), trashId: null, parentId };
        this.store.folders.set(row.id, row);
        await this.store.commit();
        this.rows.applyFolder(row.id, row);
      });
    });
  }

  /**
   * Deletes a folder with its subtree for good: the rows of its folders and files at every
   * depth in one commit (the folder's row applied first: one folder.removed), then the files'
   * objects. What of it is in the trash already are items of their own: they stay (a restore
   * makes their folder path again).
   */
  deleteFolder(username: string, folder: string): Promise<void> {
    return this.changeRows(async () => {
      assertComponent(username);
      assertFolderPath(folder);
      this.requireFolder(username, folder);
      const { parent } = splitFolder(folder);
      await this.live.run(keysOf(username, parent), false, () =>
        this.live.run([folderKey(username, folder)], true, async () => {
          const id = this.rows.folderId(username, folder);
          if (id === undefined) throw notFound('folder_not_found', 'Folder not found');
          this.tickets.voidAll(username, folder);
          const { files, folders } = this.visibleSubtree(id);
          await this.deleteRows(files, folders, true);
        }),
      );
    });
  }

  /** Renames a folder at any depth within its parent: its row only. `whileLocked` runs before the commit (the shares commit with it). */
  renameFolder(username: string, folder: string, newName: string, whileLocked: () => void = () => undefined): Promise<void> {
    return this.#relocate(username, folder, splitFolder(folder).parent, newName, whileLocked);
  }

  /** Moves a folder with its subtree into `to` (null: the root), keeping its name: its row only. */
  moveFolder(username: string, folder: string, to: string | null, whileLocked: () => void = () => undefined): Promise<void> {
    return this.#relocate(username, folder, to, splitFolder(folder).name, whileLocked);
  }

  /** The folder row `id` and every folder and file row below it that is not in the trash, parents first. */
  visibleSubtree(id: string): { files: StoredFile[]; folders: StoredFolder[] } {
    const top = this.rows.folders.get(id)!;
    const folders = [top, ...this.rows.foldersBelow(id).filter((f) => f.trashId === null && f.username === top.username)];
    const files = folders.flatMap((f) => this.rows.filesIn(f.id).filter((file) => file.trashId === null && file.username === top.username));
    return { files, folders };
  }

  /**
   * Puts `folder` into `to` as `newName`: one row's `name` and `parentId`. 409 `conflict` into
   * itself or below it, `folder_exists` for a folder or file of that name at the target.
   */
  #relocate(username: string, folder: string, to: string | null, newName: string, whileLocked: () => void): Promise<void> {
    return this.changeRows(async () => {
      assertComponent(username);
      assertFolderPath(folder);
      if (to !== null) assertFolderPath(to);
      assertComponent(newName);
      this.requireFolder(username, folder);
      this.requireFolder(username, to);
      if (to !== null && (to === folder || to.startsWith(`${folder}/`)))
        throw conflict('conflict', 'A folder cannot be moved into itself or a folder inside it');
      const { parent } = splitFolder(folder);
      const arrived = joinFolder(to, newName);
      if (arrived === folder) return;
      const shared = [...new Set([...keysOf(username, parent), ...keysOf(username, to)])];
      await this.live.run(shared, false, () =>
        this.live.run([folderKey(username, folder), folderKey(username, arrived)], true, async () => {
          const id = this.rows.folderId(username, folder);
          if (id === undefined) throw notFound('folder_not_found', 'Folder not found');
          const toId = this.#parentId(username, to);
          const other = this.rows.childFolderId(username, toId, newName);
          if ((other !== undefined && other !== id) || this.rows.fileId(username, to, newName) !== undefined)
            throw conflict(
              'folder_exists',
              `A folder or file with that name already exists ${to === null ? 'at the root' : 'in the folder'}`,
            );
          this.tickets.voidAll(username, folder);
          const current = this.rows.folders.get(id)!;
          const row: StoredFolder = { ...current, name: newName, parentId: toId };
          // Into another folder: checked again in the database, against another daemon's move at once (move-guard.ts).
          const into = toId === parentOf(current) ? null : toId;
          await guardMove(this.store.database, username, id, into, async () => {
            this.store.folders.set(id, row);
            whileLocked();
            await this.store.commit();
          });
          this.rows.applyFolder(id, row);
        }),
      );
    });
  }

  /** The row id of a folder that must exist (null: the root); 404 when it is gone. */
  #parentId(username: string, folder: string | null): string | null {
    if (folder === null) return null;
    const id = this.rows.folderId(username, folder);
    if (id === undefined) throw missingIn(folder);
    return id;
  }
}
