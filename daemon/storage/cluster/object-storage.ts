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
 * This class builds on ObjectTree (object-tree.ts: users, folders, files), which builds on
 * ObjectParts (object-parts.ts: what every module shares); uploads are object-uploads.ts,
 * the trash object-trash.ts.
 */
import type { Readable } from 'node:stream';
import { notFound } from '../../errors.js';
import type { RemoteChange } from '../../store/store.js';
import type { StoredFile, StoredFolder } from '../../store/schema.js';
import type { FileMeta } from '../index-tree.js';
import type { FileIdentity, FileStorage, FolderCopyHooks, OpenedFile } from '../file-storage.js';
import { assertComponent } from '../paths.js';
import {
  runUpload,
  type KeepReplaced,
  type ReceivedUpload,
  type StorageUpload,
  type UploadHooks,
  type UploadSteps,
} from '../upload-call.js';
import type { UploadTicket } from '../upload-tickets.js';
import { fileIdOf } from './ids.js';
import { copyFolderRows } from './object-copy.js';
import type { ObjectStorageOptions } from './object-parts.js';
import { ObjectTrash } from './object-trash.js';
import { ObjectTree } from './object-tree.js';
import { asReceivedObject, checkObjectTarget, placeObject, streamToObject, type ReceivedObject } from './object-uploads.js';
import { objectIdentity, openObject } from './opened-object.js';

export type { ObjectStorageOptions, ReceivedObject };

export class ObjectStorage extends ObjectTree implements FileStorage, UploadSteps<ReceivedObject> {
  readonly trash: ObjectTrash;
  #unsubscribe: (() => void) | null = null;

  constructor(options: ObjectStorageOptions) {
    super(options);
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

  /** Nothing to refuse: a failed call answers for itself, and an upload asks the bucket first (checkUploadTarget). */
  assertWritable(): void {}

  // ---- users (the rest is ObjectTree's) ----------------------------------------------

  /** A user has no directory in a bucket: only their (empty) node in the index. */
  async ensureUserDir(username: string): Promise<void> {
    assertComponent(username);
    this.index.ensureUser(username);
  }

  async restoreUserDir(username: string): Promise<void> {
    assertComponent(username);
  }

  /** The rows are the truth and the index follows them: nothing to read again. */
  async rescanUser(username: string): Promise<void> {
    assertComponent(username);
  }

  /** Copies a folder with its subtree (folders.copy): new rows and objects, committed whole (object-copy.ts). */
  copyFolder(username: string, folder: string, to: string | null, hooks: FolderCopyHooks): Promise<void> {
    return copyFolderRows(this, username, folder, to, hooks);
  }

  // ---- uploads (upload-call.ts runs these steps; object-uploads.ts does them) --------

  /** One upload, start to end. */
  upload(request: StorageUpload, hooks: UploadHooks): Promise<FileMeta> {
    return runUpload(this, request, hooks);
  }

  /**
   * Checks, before a byte of the body is read and before any quota is held, that an upload
   * could land: a bucket known unreachable refuses it (503) unless a check finds it back.
   */
  async checkUploadTarget(username: string, folder: string | null, file: string, overwrite: boolean): Promise<void> {
    checkObjectTarget(this, username, folder, file, overwrite);
    await this.objects.assertReachable();
  }

  beginUpload(username: string, folder: string | null): UploadTicket {
    return this.tickets.begin(username, folder);
  }

  endUpload(ticket: UploadTicket): void {
    this.tickets.end(ticket);
  }

  /** Streams `source` to a new object; `onBytes` may throw or reject to stop. */
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
    keep?: KeepReplaced,
  ): Promise<FileMeta> {
    const { username, folder } = ticket;
    return placeObject(this, await asReceivedObject(this.objects, received), {
      username,
      folder,
      file,
      overwrite,
      isCurrent,
      ticket,
      keep,
    });
  }

  /** A version's bytes: the object its record keeps (docs/versions.md). */
  openKeptObject(version: { objectId: string; size: number; mtimeMs: number; etag?: string }): OpenedFile {
    const row = { id: version.objectId, size: version.size, mtimeMs: version.mtimeMs, etag: version.etag ?? '' } as StoredFile;
    return openObject(this.objects, row);
  }

  /** Deletes a dropped version's object (its record is gone already). */
  async dropKeptObject(objectId: string): Promise<void> {
    await this.deleteObjects([objectId]);
  }

  /** Deletes a received object that will not be placed. */
  async discardUpload(received: ReceivedUpload): Promise<void> {
    const id = fileIdOf(received.ref);
    if (id !== null) await this.deleteObjects([id]);
  }

  /** The identities of a folder's files, from their rows (as openFile's: `id:etag`). */
  async fileIdentities(username: string, folder: string | null): Promise<Map<string, FileIdentity>> {
    assertComponent(username);
    this.requireFolder(username, folder);
    const found = new Map<string, FileIdentity>();
    for (const name of this.index.files(username, folder)?.keys() ?? []) {
      const id = this.rows.fileId(username, folder, name);
      const row = id === undefined ? undefined : this.rows.files.get(id);
      if (row) found.set(name, { mtimeMs: row.mtimeMs, ...objectIdentity(row) });
    }
    return found;
  }

  /** Opens a file for reading: its row's size and ETag now, its bytes (ranged) from the bucket. */
  async openFile(username: string, folder: string | null, file: string): Promise<OpenedFile> {
    this.checkNames(username, folder, file);
    this.requireFile(username, folder, file);
    const id = this.rows.fileId(username, folder, file);
    if (id === undefined) throw notFound('file_not_found', 'File not found');
    return openObject(this.objects, this.rows.files.get(id)!);
  }
}
