/**
 * Object mode's storage (docs/cluster.md, "Bytes"): the names are the store's `files` and
 * `folders` rows, the bytes objects `files/<id>` in a bucket. Every operation changes rows,
 * commits, then updates the FileIndex through IndexedRows (rows.ts), which emits the events
 * the disk path emits for the same operation; another daemon's rows arrive through
 * `store.onRemoteChange` and take the same path. Renames and moves change rows only; bytes
 * are written once (an upload, a copy) and deleted only after the rows that named them are
 * committed away, so a crash leaves at most an orphan object (the sweeper's work), never a
 * row without its object.
 *
 * The names are checked by the services as in the disk path (including case twins, from the
 * index); the locks here are the disk path's: work inside a user or folder holds it shared,
 * deleting or renaming it exclusively, and uploads in flight hold tickets a delete voids.
 */
import type { Readable } from 'node:stream';
import { conflict, fileTaken, nameUnavailable, notFound } from '../../errors.js';
import type { RemoteChange, Store } from '../../store/store.js';
import type { StoredFile, StoredFolder } from '../../store/schema.js';
import type { FileIndex } from '../file-index.js';
import type { FileMeta } from '../index-tree.js';
import type { DeleteUserSteps, FileStorage, OpenedFile, ReceivedUpload } from '../file-storage.js';
import type { ObjectStore } from '../objects/object-store.js';
import { failpoint } from '../../util/failpoints.js';
import { assertComponent } from '../paths.js';
import { SharedExclusiveLock } from '../safe-lock.js';
import { folderKey, keysOf, userKey } from '../storage-parts.js';
import { UploadTickets, type UploadTicket } from '../upload-tickets.js';
import { fileIdOf, newId, objectKey } from './ids.js';
import { ObjectTrash } from './object-trash.js';
import { placeObject, streamToObject, type ReceivedObject } from './object-uploads.js';
import { openObject } from './opened-object.js';
import { IndexedRows, metaOf } from './rows.js';

export interface ObjectStorageOptions {
  store: Store;
  index: FileIndex;
  objects: ObjectStore;
  /** A warning line for the log (an object left behind for the sweeper). */
  log: (line: string) => void;
}

const missingIn = (folder: string | null) =>
  folder === null ? notFound('user_not_found', 'User not found') : notFound('folder_not_found', 'Folder not found');

export type { ReceivedObject };

export class ObjectStorage implements FileStorage {
  readonly kind = 'object';
  readonly trash: ObjectTrash;
  readonly live = new SharedExclusiveLock();
  readonly tickets = new UploadTickets();
  readonly store: Store;
  readonly index: FileIndex;
  readonly objects: ObjectStore;
  readonly rows: IndexedRows;
  readonly #log: (line: string) => void;
  #unsubscribe: (() => void) | null = null;

  constructor(options: ObjectStorageOptions) {
    this.store = options.store;
    this.index = options.index;
    this.objects = options.objects;
    this.#log = options.log;
    this.rows = new IndexedRows(this.index);
    this.trash = new ObjectTrash(this);
  }

  /**
   * Builds the index from the rows (folders first, so each file finds its folder), follows
   * other daemons' changes, and sets the index ready.
   */
  open(): void {
    for (const username of this.store.users.keys()) this.index.ensureUser(username);
    for (const folder of this.store.folders.values()) this.rows.applyFolder(folder.id, folder);
    for (const file of this.store.files.values()) this.rows.applyFile(file.id, file);
    this.#unsubscribe = this.store.onRemoteChange((change) => this.applyRemote(change));
    this.index.setState('ready');
  }

  close(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
  }

  /** Another daemon's change to a row (store.onRemoteChange), applied as a local one is. */
  applyRemote(change: RemoteChange): void {
    if (change.collection === 'files') this.rows.applyFile(change.key, change.after as StoredFile | undefined);
    else if (change.collection === 'folders') this.rows.applyFolder(change.key, change.after as StoredFolder | undefined);
    else if (change.collection === 'users') {
      if (change.after) this.index.ensureUser(change.key);
      else this.index.removeUser(change.key);
    }
  }

  /** Nothing to refuse: the bucket's reachability is the health check's business, a failed call answers for itself. */
  assertWritable(): void {}

  requireFolder(username: string, folder: string | null): void {
    if (folder !== null && !this.index.user(username)?.folders.has(folder)) throw notFound('folder_not_found', 'Folder not found');
  }

  requireFile(username: string, folder: string | null, file: string): FileMeta {
    this.requireFolder(username, folder);
    const meta = this.index.getFile(username, folder, file);
    if (!meta) throw notFound('file_not_found', 'File not found');
    return meta;
  }

  // ---- users -------------------------------------------------------------------------

  /** A user has no directory in a bucket: only their (empty) node in the index. */
  async ensureUserDir(username: string): Promise<void> {
    assertComponent(username);
    this.index.ensureUser(username);
  }

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

  async restoreUserDir(username: string): Promise<void> {
    assertComponent(username);
  }

  /** The rows are the truth and the index follows them: nothing to read again. */
  async rescanUser(username: string): Promise<void> {
    assertComponent(username);
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

  // ---- folders -----------------------------------------------------------------------

  async createFolder(username: string, folder: string): Promise<void> {
    assertComponent(username);
    assertComponent(folder);
    if (this.index.user(username)?.folders.has(folder)) throw conflict('folder_exists', 'Folder already exists');
    await this.live.run([userKey(username)], false, async () => {
      if (!this.index.user(username)) throw missingIn(null);
      if (this.rows.folderId(username, folder) !== undefined) throw conflict('folder_exists', 'Folder already exists');
      if (this.rows.fileId(username, null, folder) !== undefined) throw conflict('folder_exists', 'A file with that name already exists');
      const row: StoredFolder = { id: newId(), username, name: folder, mtimeMs: Date.now(), trashId: null };
      this.store.folders.set(row.id, row);
      await this.store.commit();
      this.rows.applyFolder(row.id, row);
    });
  }

  /** Deletes a folder and its files for good (rows first, then objects). */
  async deleteFolder(username: string, folder: string): Promise<void> {
    assertComponent(username);
    assertComponent(folder);
    this.requireFolder(username, folder);
    await this.live.run([userKey(username)], false, () =>
      this.live.run([folderKey(username, folder)], true, async () => {
        const id = this.rows.folderId(username, folder);
        if (id === undefined) throw notFound('folder_not_found', 'Folder not found');
        this.tickets.voidAll(username, folder);
        // Its files in the trash are items of their own: they stay (a restore makes the folder again).
        const files = this.rows.filesIn(id).filter((f) => f.trashId === null);
        await this.deleteRows(files, [this.rows.folders.get(id)!]);
      }),
    );
  }

  /**
   * Renames a folder: its row only (its files name it by id). `whileLocked` runs before the
   * commit, so what it changes in the store (the shares) commits with the rename.
   */
  async renameFolder(username: string, folder: string, newName: string, whileLocked: () => void = () => undefined): Promise<void> {
    assertComponent(username);
    assertComponent(folder);
    assertComponent(newName);
    this.requireFolder(username, folder);
    if (folder === newName) return;
    await this.live.run([userKey(username)], false, () =>
      this.live.run([folderKey(username, folder), folderKey(username, newName)], true, async () => {
        const id = this.rows.folderId(username, folder);
        if (id === undefined) throw notFound('folder_not_found', 'Folder not found');
        const other = this.rows.folderId(username, newName);
        if ((other !== undefined && other !== id) || this.rows.fileId(username, null, newName) !== undefined)
          throw conflict('folder_exists', 'A folder or file with that name already exists at the root');
        this.tickets.voidAll(username, folder);
        const row = { ...this.rows.folders.get(id)!, name: newName };
        this.store.folders.set(id, row);
        whileLocked();
        await this.store.commit();
        this.rows.applyFolder(id, row);
      }),
    );
  }

  // ---- files -------------------------------------------------------------------------

  /** Deletes a file for good: its row, then its object. */
  async deleteFile(username: string, folder: string | null, file: string): Promise<void> {
    this.#checkNames(username, folder, file);
    this.requireFile(username, folder, file);
    await this.live.run(keysOf(username, folder), false, async () => {
      const id = this.rows.fileId(username, folder, file);
      if (id === undefined) throw notFound('file_not_found', 'File not found');
      await this.deleteRows([this.rows.files.get(id)!], []);
    });
  }

  /** Renames a file: its row only. Never replaces another file. */
  async renameFile(username: string, folder: string | null, file: string, newName: string): Promise<void> {
    this.#checkNames(username, folder, file);
    assertComponent(newName);
    this.requireFile(username, folder, file);
    if (file === newName) return;
    if (this.index.getFile(username, folder, newName)) throw conflict('file_exists', 'A file with that name already exists');
    await this.live.run(keysOf(username, folder), false, async () => {
      const id = this.rows.fileId(username, folder, file);
      if (id === undefined) throw notFound('file_not_found', 'File not found');
      const other = this.rows.fileId(username, folder, newName);
      if (other !== undefined && other !== id) throw conflict('file_exists', 'A file with that name already exists');
      await this.#putFile({ ...this.rows.files.get(id)!, name: newName });
    });
  }

  /**
   * Moves a file to another folder (or the root): its row only. `whileLocked` runs before the
   * commit (the share that follows the file commits with it).
   */
  async moveFile(
    username: string,
    from: string | null,
    file: string,
    to: string | null,
    whileLocked: (meta: FileMeta) => void = () => undefined,
  ): Promise<FileMeta> {
    this.#checkNames(username, from, file);
    this.#checkNames(username, to, file);
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
      if (to === null && this.rows.folderId(username, file) !== undefined)
        throw conflict('folder_exists', 'A folder with that name already exists at the root');
      const row = { ...this.rows.files.get(id)!, folderId: toId };
      const meta = metaOf(row);
      await this.#putFile(row, () => whileLocked(meta));
      return meta;
    });
  }

  /**
   * Copies a file as a new object and row (`files.copy`); the caller reserves its size
   * against the quota first. Never replaces anything at the target.
   */
  async copyFile(username: string, from: string | null, file: string, to: string | null): Promise<FileMeta> {
    this.#checkNames(username, from, file);
    this.#checkNames(username, to, file);
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

  // ---- uploads -----------------------------------------------------------------------

  /** Checks, before a byte of the body is read, that an upload could land. */
  async checkUploadTarget(username: string, folder: string | null, file: string, overwrite: boolean): Promise<void> {
    this.#checkNames(username, folder, file);
    if (!this.index.user(username)) throw missingIn(null);
    this.requireFolder(username, folder);
    if (folder === null && this.index.user(username)?.folders.has(file))
      throw conflict('file_exists', 'A folder or link with that name already exists');
    if (this.index.getFile(username, folder, file) && !overwrite) throw fileTaken();
  }

  beginUpload(username: string, folder: string | null): UploadTicket {
    return this.tickets.begin(username, folder);
  }

  endUpload(ticket: UploadTicket): void {
    this.tickets.end(ticket);
  }

  /** Streams `source` to a new object (object-uploads.ts); `onBytes` may throw or reject to stop. */
  receive(source: Readable, onBytes: (total: number) => void | Promise<void>): Promise<ReceivedObject> {
    return streamToObject(this.objects, source, onBytes);
  }

  /**
   * Names a received object: under the locks, inserts its row (or, with `overwrite`, replaces
   * the existing file's row by it), commits, then deletes the replaced object. A 404 once the
   * ticket is voided; the new object is deleted on every failure (a failed commit too: a 409
   * from another daemon's row of that name, a 503).
   */
  async placeUpload(
    received: ReceivedUpload,
    ticket: UploadTicket,
    file: string,
    overwrite: boolean,
    isCurrent: () => boolean,
  ): Promise<FileMeta> {
    const { username, folder } = ticket;
    return placeObject(this, await this.#asReceived(received), { username, folder, file, overwrite, isCurrent, ticket });
  }

  /** Deletes a received object that will not be placed. */
  async discardUpload(received: ReceivedUpload): Promise<void> {
    const id = fileIdOf(received.ref);
    if (id !== null) await this.deleteObjects([id]);
  }

  /** Opens a file for reading: its row's size and ETag now, its bytes (ranged) from the bucket. */
  async openFile(username: string, folder: string | null, file: string): Promise<OpenedFile> {
    this.#checkNames(username, folder, file);
    this.requireFile(username, folder, file);
    const id = this.rows.fileId(username, folder, file);
    if (id === undefined) throw notFound('file_not_found', 'File not found');
    return openObject(this.objects, this.rows.files.get(id)!);
  }

  // ---- inside (and for object-trash.ts) ----------------------------------------------

  /** A ReceivedUpload made by receive(), with its id and ETag (asked of the bucket when it came from elsewhere). */
  async #asReceived(received: ReceivedUpload): Promise<ReceivedObject> {
    const id = fileIdOf(received.ref);
    if (id === null) throw new Error(`Not an upload of object storage: ${received.ref}`);
    const known = received as Partial<ReceivedObject>;
    if (typeof known.etag === 'string') return { id, ref: received.ref, size: received.size, etag: known.etag };
    const head = await this.objects.head(received.ref);
    if (!head) throw notFound('file_not_found', 'The upload’s bytes are gone');
    return { id, ref: received.ref, size: head.size, etag: head.etag };
  }

  #checkNames(username: string, folder: string | null, file: string): void {
    assertComponent(username);
    if (folder !== null) assertComponent(folder);
    assertComponent(file);
  }

  /** Changes one file row, commits (with what `beforeCommit` changes in the store), then shows it in the index. */
  async #putFile(row: StoredFile, beforeCommit: () => void = () => undefined): Promise<void> {
    this.store.files.set(row.id, row);
    beforeCommit();
    await this.store.commit();
    this.rows.applyFile(row.id, row);
  }

  /** Deletes rows in one commit, then their files' objects (a failure there leaves orphans for the sweeper). */
  async deleteRows(files: StoredFile[], folders: StoredFolder[]): Promise<void> {
    for (const f of files) this.store.files.delete(f.id);
    for (const f of folders) this.store.folders.delete(f.id);
    await this.store.commit();
    for (const f of files) this.rows.applyFile(f.id, undefined);
    for (const f of folders) this.rows.applyFolder(f.id, undefined);
    await this.deleteObjects(files.map((f) => f.id));
  }

  /** Deletes objects no row names any more; a failure is logged, not thrown (the sweeper gets them later). */
  async deleteObjects(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    try {
      await this.objects.delete(ids.map(objectKey));
    } catch (err) {
      this.#log(`Nimbus: ${ids.length} object(s) could not be deleted (the sweeper will): ${(err as Error).message}`);
    }
  }
}
