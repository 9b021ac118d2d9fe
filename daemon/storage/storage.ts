import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { ApiError, notFound } from '../errors.js';
import { createFolder, deleteFile, deleteFolder, renameFile } from './entries.js';
import type { FileIndex } from './file-index.js';
import type { DeleteUserSteps, FileIdentity, FileStorage, FolderCopyHooks, OpenedFile } from './file-storage.js';
import type { FileMeta } from './index-tree.js';
import { rescanUserTree } from './index-sync.js';
import { copyFolder } from './folder-copy.js';
import { moveFolder, renameFolder } from './folder-moves.js';
import { moveFile } from './moves.js';
import { fileIdentities, openFile } from './open-file.js';
import { folderComponents, resolveUserPath } from './paths.js';
import { SharedExclusiveLock } from './safe-lock.js';
import type { StorageParts } from './storage-parts.js';
import { DiskTrash } from './trash-dir.js';
import { discardTemp, receiveToTemp } from './temp-upload.js';
import {
  runUpload,
  type KeepReplaced,
  type ReceivedUpload,
  type StorageUpload,
  type UploadHooks,
  type UploadSteps,
} from './upload-call.js';
import { checkUploadTarget, placeUpload } from './uploads.js';
import { UploadTickets, type UploadTicket } from './upload-tickets.js';
import { claimUserDir, deleteUser, ensureUserDir, renameUser, restoreUserDir, unclaimUserDir } from './user-dirs.js';
import { settleTombstones } from './tombstones.js';

export type { FileStorage, OpenedFile, ReceivedUpload, UploadTicket };

/**
 * The files on disk: `<storageDir>/<username>/[<folder>/]<file>`. Every name goes through
 * `resolveUserPath`; every operation works inside directories opened without following
 * symlinks (safe-dir.ts), so a link at any level below the storage directory, there
 * before or swapped in mid-request, is never followed. The index is updated here so the
 * watcher's echo changes nothing. Work inside a user or folder holds it shared; deleting
 * or renaming it holds it exclusively (a delete waits for a file being placed, and
 * nothing is placed into what was deleted). The operations live in user-dirs.ts,
 * entries.ts, uploads.ts, temp-upload.ts, open-file.ts and trash-dir.ts; this class holds
 * what they share.
 * It is the disk's FileStorage (file-storage.ts): services see nothing more of it.
 */
export class Storage implements FileStorage, StorageParts, UploadSteps<ReceivedUpload> {
  readonly live = new SharedExclusiveLock();
  readonly tickets = new UploadTickets();
  readonly trash: DiskTrash;

  /** `trashDir` defaults to `trash` beside `tmpDir` (both in the data directory, outside the storage folder). */
  constructor(
    readonly storageDir: string,
    readonly tmpDir: string,
    readonly index: FileIndex,
    trashDir = path.join(path.dirname(tmpDir), 'trash'),
  ) {
    this.trash = new DiskTrash(this, trashDir);
  }

  /** Refuses to write while the storage directory is gone, so nothing is created on a bare mount point. */
  assertWritable(): void {
    if (this.index.state === 'unavailable') {
      throw new ApiError('storage_unavailable', 'The storage directory is not available (is its disk mounted?); try again once it is back');
    }
  }

  path(username: string, folder: string | null = null, file: string | null = null): string {
    return resolveUserPath(this.storageDir, username, ...folderComponents(folder), file);
  }

  requireFolder(username: string, folder: string | null): void {
    if (folder !== null && !this.index.folder(username, folder)) {
      throw notFound('folder_not_found', 'Folder not found');
    }
  }

  requireFile(username: string, folder: string | null, file: string): FileMeta {
    this.requireFolder(username, folder);
    const meta = this.index.getFile(username, folder, file);
    if (!meta) throw notFound('file_not_found', 'File not found');
    return meta;
  }

  /** Makes a new user's directory, or adopts a real one already there; a link or file there is refused. */
  ensureUserDir(username: string): Promise<void> {
    return ensureUserDir(this, username);
  }

  /** Makes a self-registered user's directory; 409 when the name has a directory (in any case) or a trash already. */
  claimUserDir(username: string): Promise<void> {
    return claimUserDir(this, this.trash.trashDir, username);
  }

  /** Removes the still-empty directory a failed registration claimed. */
  unclaimUserDir(username: string): Promise<void> {
    return unclaimUserDir(this, username);
  }

  /** Puts back a user's missing directory; a link or file there is left alone. */
  restoreUserDir(username: string): Promise<void> {
    return restoreUserDir(this, username);
  }

  /** Rebuilds one user's tree from the disk (keeping what changed while it was read). */
  async rescanUser(username: string): Promise<void> {
    await rescanUserTree(this, username, () => true);
  }

  renameUser(from: string, to: string): Promise<void> {
    return renameUser(this, from, to);
  }

  deleteUser(username: string, steps: DeleteUserSteps): Promise<void> {
    return deleteUser(this, username, steps);
  }

  /** At start, before the first scan: finishes the deletions a crash cut short (tombstones.ts); then, their files going. */
  async finishDeletions(instanceOf: (username: string) => string | undefined, log: (line: string) => void): Promise<Promise<void>> {
    return (await settleTombstones(this.storageDir, instanceOf, log)).removing;
  }

  createFolder(username: string, folder: string): Promise<void> {
    return createFolder(this, username, folder);
  }

  deleteFolder(username: string, folder: string): Promise<void> {
    return deleteFolder(this, username, folder);
  }

  deleteFile(username: string, folder: string | null, file: string): Promise<void> {
    return deleteFile(this, username, folder, file);
  }

  /** Renames without ever replacing another file. */
  renameFile(username: string, folder: string | null, file: string, newName: string, whileLocked?: () => void): Promise<void> {
    return renameFile(this, username, folder, file, newName, whileLocked);
  }

  /** Moves a file to another folder (or the root) of the user, never replacing anything; `whileLocked` runs under the locks once the index has it. */
  moveFile(
    username: string,
    from: string | null,
    file: string,
    to: string | null,
    whileLocked?: (meta: FileMeta) => void,
  ): Promise<FileMeta> {
    return moveFile(this, username, from, file, to, whileLocked);
  }

  /** Renames a folder with its files; `whileLocked` runs under the locks once the index has the new name. */
  renameFolder(username: string, folder: string, newName: string, whileLocked?: () => void): Promise<void> {
    return renameFolder(this, username, folder, newName, whileLocked);
  }

  moveFolder(username: string, folder: string, to: string | null, whileLocked?: () => void): Promise<void> {
    return moveFolder(this, username, folder, to, whileLocked);
  }

  copyFolder(username: string, folder: string, to: string | null, hooks: FolderCopyHooks): Promise<void> {
    return copyFolder(this, username, folder, to, hooks);
  }

  /** One upload, start to end: upload-call.ts runs the steps below in order. */
  upload(request: StorageUpload, hooks: UploadHooks): Promise<FileMeta> {
    return runUpload(this, request, hooks);
  }

  /** Checks, before a byte of the body is read, that an upload could land. */
  checkUploadTarget(username: string, folder: string | null, file: string, overwrite: boolean): Promise<void> {
    return checkUploadTarget(this, username, folder, file, overwrite);
  }

  /** Claims the user and folder for an upload until `endUpload`. */
  beginUpload(username: string, folder: string | null): UploadTicket {
    return this.tickets.begin(username, folder);
  }

  endUpload(ticket: UploadTicket): void {
    this.tickets.end(ticket);
  }

  /** Streams `source` into an fsynced temp file (`ref`: its path); see temp-upload.ts. */
  receive(source: Readable, onBytes: (total: number) => void | Promise<void>): Promise<ReceivedUpload> {
    return receiveToTemp(this, source, onBytes);
  }

  /** Moves a received temp file into place (a 409 for an existing file without `overwrite`, a 404 once voided). */
  placeUpload(
    received: ReceivedUpload,
    ticket: UploadTicket,
    file: string,
    overwrite: boolean,
    isCurrent: () => boolean,
    keep?: KeepReplaced,
  ): Promise<FileMeta> {
    return placeUpload(this, received.ref, ticket, file, overwrite, isCurrent, keep?.path);
  }

  /** Opens a file for reading, refusing symlinks (at any level) and anything but a regular file. */
  openFile(username: string, folder: string | null, file: string): Promise<OpenedFile> {
    return openFile(this, username, folder, file);
  }

  fileIdentities(username: string, folder: string | null): Promise<Map<string, FileIdentity>> {
    return fileIdentities(this, username, folder);
  }

  discardUpload(received: ReceivedUpload): Promise<void> {
    return discardTemp(received);
  }

  /** Removes upload temp files a crash left behind. */
  async cleanTemp(): Promise<number> {
    const names = await readdir(this.tmpDir).catch(() => [] as string[]);
    await Promise.all(names.map((n) => rm(path.join(this.tmpDir, n), { force: true, recursive: true })));
    return names.length;
  }
}
