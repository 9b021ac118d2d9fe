/**
 * Object mode's tree (docs/cluster.md, "Bytes"): users and files as rows (folders: object-folders.ts), changed
 * under the disk path's locks and committed before the index shows them. Renames and moves
 * change rows only; a copy is a new object and row; a deleted user's, folder's or file's
 * objects go only after the commit that removed their rows (a failure leaves orphans for
 * the sweeper, never a row without its object). ObjectStorage (object-storage.ts) builds
 * on this class with the index, uploads and reads.
 */
import { conflict, nameUnavailable, notFound } from '../../errors.js';
import { failpoint } from '../../util/failpoints.js';
import type { DeleteUserSteps } from '../file-storage.js';
import type { FileMeta } from '../index-tree.js';
import { assertComponent } from '../paths.js';
import { keysOf, userKey } from '../storage-parts.js';
import { ObjectFolders } from './object-folders.js';
import { newId, objectKey } from './ids.js';
import { placeObject } from './object-uploads.js';
import { metaOf } from './rows.js';

export class ObjectTree extends ObjectFolders {
  /**
   * A self-registered user starts empty: any row of that name (files, folders, trashed ones,
   * trash records: left by an older version's deletion cut short) is a 409, never adopted.
   */
  async claimUserDir(username: string): Promise<void> {
    assertComponent(username);
    const { files, folders } = this.rows.rowsOf(username);
    if (files.length > 0 || folders.length > 0 || this.store.trashOf(username).length > 0) throw nameUnavailable();
    this.index.ensureUser(username);
  }

  /** A failed registration's name leaves the index (it has no rows). */
  async unclaimUserDir(username: string): Promise<void> {
    this.index.removeUser(username);
  }

  /** Every row of the user takes the new name, in one commit; the bytes stay where they are. */
  async renameUser(from: string, to: string): Promise<void> {
    assertComponent(from);
    assertComponent(to);
    await this.live.run([userKey(from), userKey(to)], true, async () => {
      this.tickets.voidAll(from);
      const { files, folders } = this.rows.rowsOf(from);
      const renamedFolders = folders.map((f) => ({ ...f, username: to }));
      const renamedFiles = files.map((f) => ({ ...f, username: to }));
      for (const f of renamedFolders) this.store.folders.set(f.id, f);
      for (const f of renamedFiles) this.store.files.set(f.id, f);
      await this.store.commit();
      // As on disk, the user's tree moves whole and silently: applying the rows then changes nothing the index shows.
      this.index.renameUser(from, to);
      this.index.ensureUser(to);
      for (const f of renamedFolders) this.rows.applyFolder(f.id, f);
      for (const f of renamedFiles) this.rows.applyFile(f.id, f);
    });
  }

  /**
   * Every row of the user goes (trash included) in the commit that removes their records
   * (`steps`; alone, its own), so no crash leaves rows a new account of that name would
   * show; then their objects.
   */
  async deleteUser(username: string, steps?: DeleteUserSteps): Promise<void> {
    assertComponent(username);
    await this.live.run([userKey(username)], true, async () => {
      this.tickets.voidAll(username);
      const { files, folders } = this.rows.rowsOf(username);
      for (const f of files) this.store.files.delete(f.id);
      for (const f of folders) this.store.folders.delete(f.id);
      await (steps ? steps.commit() : this.store.commit());
      failpoint('user.delete.committed');
      for (const f of files) this.rows.applyFile(f.id, undefined);
      for (const f of folders) this.rows.applyFolder(f.id, undefined);
      this.index.removeUser(username);
      await this.deleteObjects(files.map((f) => f.id));
    });
  }

  // ---- files -------------------------------------------------------------------------

  /** Deletes a file for good: its row, then its object. */
  deleteFile(username: string, folder: string | null, file: string): Promise<void> {
    return this.changeRows(async () => {
      this.checkNames(username, folder, file);
      this.requireFile(username, folder, file);
      await this.live.run(keysOf(username, folder), false, async () => {
        const id = this.rows.fileId(username, folder, file);
        if (id === undefined) throw notFound('file_not_found', 'File not found');
        await this.deleteRows([this.rows.files.get(id)!], [], true);
      });
    });
  }

  /** Renames a file: its row only. Never replaces another file. */
  renameFile(username: string, folder: string | null, file: string, newName: string, whileLocked?: () => void): Promise<void> {
    return this.changeRows(async () => {
      this.checkNames(username, folder, file);
      assertComponent(newName);
      this.requireFile(username, folder, file);
      if (file === newName) return;
      if (this.index.getFile(username, folder, newName)) throw conflict('file_exists', 'A file with that name already exists');
      await this.live.run(keysOf(username, folder), false, async () => {
        const id = this.rows.fileId(username, folder, file);
        if (id === undefined) throw notFound('file_not_found', 'File not found');
        const other = this.rows.fileId(username, folder, newName);
        if (other !== undefined && other !== id) throw conflict('file_exists', 'A file with that name already exists');
        const row = this.rows.files.get(id)!;
        // A folder of that name beside it too, as on disk (a rename() onto a directory fails).
        if (this.rows.childFolderId(username, row.folderId, newName) !== undefined)
          throw conflict('file_exists', 'A file with that name already exists');
        // The share (and dead properties) that follow the file commit with its row, in one commit.
        await this.putFile({ ...row, name: newName }, whileLocked);
      });
    });
  }

  /**
   * Moves a file to another folder (or the root): its row only. `whileLocked` runs before the
   * commit (the share that follows the file commits with it).
   */
  moveFile(
    username: string,
    from: string | null,
    file: string,
    to: string | null,
    whileLocked: (meta: FileMeta) => void = () => undefined,
  ): Promise<FileMeta> {
    return this.changeRows(async () => {
      this.checkNames(username, from, file);
      this.checkNames(username, to, file);
      this.requireFile(username, from, file);
      this.requireFolder(username, to);
      if (from === to) throw conflict('file_exists', 'A file with that name already exists in the target folder');
      return this.live.run([...keysOf(username, from), ...keysOf(username, to)], false, async () => {
        const id = this.rows.fileId(username, from, file);
        if (id === undefined) throw notFound('file_not_found', 'File not found');
        const toId = to === null ? null : this.rows.folderId(username, to);
        if (toId === undefined) throw notFound('folder_not_found', 'Folder not found');
        if (this.rows.fileId(username, to, file) !== undefined)
          throw conflict('file_exists', 'A file with that name already exists in the target folder');
        if (this.rows.childFolderId(username, toId, file) !== undefined)
          throw conflict('folder_exists', `A folder with that name already exists ${to === null ? 'at the root' : 'in the target folder'}`);
        const row = { ...this.rows.files.get(id)!, folderId: toId };
        const meta = metaOf(row);
        await this.putFile(row, () => whileLocked(meta));
        return meta;
      });
    });
  }

  /**
   * Copies a file as a new object and row (`files.copy`); the caller reserves its size
   * against the quota first. Never replaces anything at the target.
   */
  async copyFile(username: string, from: string | null, file: string, to: string | null): Promise<FileMeta> {
    this.checkNames(username, from, file);
    this.checkNames(username, to, file);
    const sourceId = this.rows.fileId(username, from, file);
    if (sourceId === undefined) throw notFound('file_not_found', 'File not found');
    const source = this.rows.files.get(sourceId)!;
    const id = newId();
    const copied = await this.objects.copy(objectKey(sourceId), objectKey(id));
    return placeObject(
      this,
      { id, ref: objectKey(id), size: copied.size, etag: copied.etag },
      { username, folder: to, file, overwrite: false, isCurrent: () => true, contentType: source.contentType },
    );
  }
}
