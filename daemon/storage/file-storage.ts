/**
 * What services call for bytes (docs/cluster.md, "Bytes"): the files and folders of users,
 * uploads, reads and the trash, whatever keeps them. `Storage` (storage.ts) keeps them in
 * the plain storage folder; `ObjectStorage` (storage/cluster/) keeps them as objects in S3
 * with their rows in the store. Services never reach past this interface (no paths, no
 * file handles), so both backends answer every API call alike.
 */
import type { Readable } from 'node:stream';
import type { FileMeta } from './index-tree.js';
import type { FolderCopyHooks } from './folder-copy.js';
import type { TrashStorage } from './trash-storage.js';
import type { ReceivedUpload, StorageUpload, UploadHooks } from './upload-call.js';

export type { FileMeta, FolderCopyHooks, ReceivedUpload, StorageUpload, UploadHooks };
export { NameTaken, trashTaken } from './trash-storage.js';
export type { Placed, RestoreTarget, Trashed, TrashEntry, TrashStorage, TrashTarget } from './trash-storage.js';

/**
 * A file opened for reading: the bytes it had when opened, whatever happens to it meanwhile
 * (a disk file's open handle; an object's id and ETag). Whoever opened it calls `close()`
 * on every path; `stream()` hands the bytes to the stream, which releases them at its end
 * or when destroyed (close() after that is harmless).
 */
export interface OpenedFile {
  readonly size: number;
  readonly mtimeMs: number;
  /**
   * Names these exact bytes, for caches (thumbnails): a file replaced or written in place
   * gets another one. Disk: `dev:ino:size:mtimeNs:ctimeNs` of the open file; objects: `id:etag`.
   */
  readonly identity: string;
  /**
   * Whether any later change of the bytes is sure to change `identity`, so that a strong ETag
   * may name it (RFC 9110 §8.8.1). Objects: always (a new version is a new id). Disk: only once
   * the file's change time is a second old (see open-file.ts).
   */
  readonly identityIsStrong: boolean;
  /** The object's ETag, when the backend has one (S3); the disk has none. */
  readonly etag?: string;
  /**
   * The bytes (all of them up to `size`, or the inclusive `range`), read in 1 MiB chunks.
   * Call at most once, and not for an empty file (callers answer those without reading).
   * Settles once the first read can be made (objects: the GET answered), so that a store
   * that cannot be read rejects (503) before the caller has sent a header.
   */
  stream(range?: { start: number; end: number }): Promise<Readable>;
  /** The whole file in one buffer (thumbnails: what is sniffed is what is decoded); callers check `size` first. */
  read(): Promise<Buffer>;
  /** Releases the file (a stream still open is destroyed first); may be called more than once. */
  close(): Promise<void>;
}

/** What an OpenedFile reports of a file's bytes, without opening it. */
export type FileIdentity = Pick<OpenedFile, 'mtimeMs' | 'identity' | 'identityIsStrong'>;

/** How `FileStorage.deleteUser` fits the service's part of a user's deletion between its own steps. */
export interface DeleteUserSteps {
  /** The account being deleted, by its creation time (a later account of the same name is another one). */
  instance: string;
  /**
   * Removes the user's records and commits them. Called once the user's bytes can no longer
   * be reached under their name, and before they are deleted; a failure undoes the storage's
   * part and is thrown again.
   */
  commit: () => Promise<void>;
}

/**
 * Users' files and folders. Names are checked (and resolved) here; `require*` answer from
 * what is known now (the index), the operations check again where the bytes are. Work
 * inside a user or folder waits for its delete or rename, and the other way round.
 */
export interface FileStorage {
  readonly trash: TrashStorage;

  /** Refuses (503 storage_unavailable) to write while the bytes cannot be reached. */
  assertWritable(): void;
  /** 404 folder_not_found unless the user has the folder (null: the root, always there). */
  requireFolder(username: string, folder: string | null): void;
  /** The file's meta; 404 folder_not_found / file_not_found. */
  requireFile(username: string, folder: string | null, file: string): FileMeta;

  /** Makes a new user's place, or adopts one already there. */
  ensureUserDir(username: string): Promise<void>;
  /**
   * Makes a self-registered user's place, empty: 409 name_unavailable when anything of that
   * name is in storage already (files, folders, trash), never adopting it.
   */
  claimUserDir(username: string): Promise<void>;
  /** Gives back what `claimUserDir` made when the registration then failed (an empty place, and the name in the index). */
  unclaimUserDir(username: string): Promise<void>;
  /** Puts back a user's missing place. */
  restoreUserDir(username: string): Promise<void>;
  /** Reads one user's tree again into the index. */
  rescanUser(username: string): Promise<void>;
  renameUser(from: string, to: string): Promise<void>;
  /**
   * Deletes a user's files, folders and trash so that a crash at any point leaves nothing a
   * new account of that name could claim; `steps` puts the records' removal in between.
   */
  deleteUser(username: string, steps: DeleteUserSteps): Promise<void>;

  createFolder(username: string, folder: string): Promise<void>;
  deleteFolder(username: string, folder: string): Promise<void>;
  deleteFile(username: string, folder: string | null, file: string): Promise<void>;
  /**
   * Renames without ever replacing another file; `whileLocked` runs under the locks once the
   * index has the new name, before object mode's commit (the share that follows the file
   * commits with it: in two commits, another daemon saw the share's file gone meanwhile and
   * revoked it, and the second commit answered 409).
   */
  renameFile(username: string, folder: string | null, file: string, newName: string, whileLocked?: () => void): Promise<void>;
  /** Moves a file to another folder (or the root), never replacing anything; `whileLocked` runs under the locks once the index has it. */
  moveFile(
    username: string,
    from: string | null,
    file: string,
    to: string | null,
    whileLocked?: (meta: FileMeta) => void,
  ): Promise<FileMeta>;
  /** Renames a folder with its files; `whileLocked` runs under the locks once the index has the new name. */
  renameFolder(username: string, folder: string, newName: string, whileLocked?: () => void): Promise<void>;
  /** Moves a folder with its subtree into `to` (null: the root); 409 into itself or below it, or for a name taken there. */
  moveFolder(username: string, folder: string, to: string | null, whileLocked?: () => void): Promise<void>;
  /** Copies a folder with its subtree into `to` (null: the root), its bytes held through `hooks` first; 409 as a move. */
  copyFolder(username: string, folder: string, to: string | null, hooks: FolderCopyHooks): Promise<void>;

  /**
   * Runs one upload whole (upload-call.ts): checks the target, streams the body somewhere
   * durable, places it under the locks, and cleans up on every failure; `hooks` carry the
   * policy decided above storage (quota, case twins, whether the caller may still write).
   */
  upload(request: StorageUpload, hooks: UploadHooks): Promise<FileMeta>;

  /** The identities of a folder's files by name, as `openFile` would report them (a WebDAV listing's getetag); 404 folder_not_found. */
  fileIdentities(username: string, folder: string | null): Promise<Map<string, FileIdentity>>;

  /** Opens a file for reading (never through a link); 404 file_not_found. */
  openFile(username: string, folder: string | null, file: string): Promise<OpenedFile>;

  /** Object mode only: a kept version's object (docs/versions.md; on disk a version is a file the services open). */
  openKeptObject?(version: { objectId: string; size: number; mtimeMs: number; etag?: string }): OpenedFile;
  /** Object mode only: deletes a dropped version's object. */
  dropKeptObject?(objectId: string): Promise<void>;
}
