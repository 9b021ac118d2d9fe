/**
 * One upload, start to end (docs/architecture.md, "Storage safety"): the services make one
 * call, `FileStorage.upload(request, hooks)`, and `runUpload` walks a backend's steps in
 * order (check the target, receive the body, place it under the locks, end), with one
 * clean-up path on every failure. What refuses an upload for a reason of policy (the
 * quota, a case twin, the caller's standing) is decided above storage and passed in as
 * `UploadHooks`; storage decides only where and how the bytes land.
 */
import type { Readable } from 'node:stream';
import { badRequest, fileTaken } from '../errors.js';
import type { FileIndex } from './file-index.js';
import type { FileMeta } from './index-tree.js';
import type { UploadTicket } from './upload-tickets.js';

/** A value, or a promise of it: a hook that answers at once costs no tick. */
type MaybePromise<T> = T | Promise<T>;

/** Where an upload goes and its bytes. */
export interface StorageUpload {
  username: string;
  folder: string | null;
  file: string;
  /** Replace the file of that name (an edit) rather than refuse it (409 file_exists). */
  overwrite: boolean;
  body: Readable;
  /** Content-Length, when the client sent one: a body longer is stopped, a shorter one refused (400). */
  expectedSize: number | null;
  /** With `overwrite`: keep the replaced file as this version (docs/versions.md); left out, nothing is kept. */
  keep?: KeepReplaced;
}

/**
 * A version to keep of the file an upload replaces. Disk: `path` (in the data directory) gets a
 * hard link to the old file just before the new one takes its name. Objects: the old object
 * stays, and its row becomes the version record `id` in the commit that names the new one.
 */
export interface KeepReplaced {
  id: string;
  path: string;
}

/** The policy decided above storage, called at its steps in this order. */
export interface UploadHooks {
  /** Before anything else, from what the index has now (the file of that name, if any): throws to refuse. */
  checkTarget(existing: FileMeta | undefined): void;
  /** Once storage found the target could land, before a byte is read: holds `expectedSize` (when known) or refuses. */
  beforeBody(expectedSize: number | null): MaybePromise<void>;
  /** The running total, before those bytes are kept: throws (or rejects) to stop; a promise holds the stream. */
  reserve(total: number): MaybePromise<void>;
  /** Runs `place` holding the name's lock (the services' lock of case-folded names). */
  lockName<T>(place: () => Promise<T>): Promise<T>;
  /** Under that lock, just before the bytes are placed: throws to refuse (a case twin that came in meanwhile). */
  beforePlace(): void;
  /** Under storage's own lock: false once the user (or the caller's right to write there) is gone, a 404. */
  isCurrent(): boolean;
  /** However the upload ended (placed, so now counted, or failed): lets go of what `reserve` held. */
  release(): Promise<void>;
}

/**
 * An upload's bytes once received, before they are placed: only the backend that made it
 * reads `ref` (disk: the fsynced temp file's path; objects: the new object's key).
 */
export interface ReceivedUpload {
  readonly size: number;
  readonly ref: string;
}

/** What a backend does at each step of an upload; `runUpload` calls them in order. */
export interface UploadSteps<R extends ReceivedUpload> {
  readonly index: FileIndex;
  /** 404 folder_not_found unless the user has the folder (from the index). */
  requireFolder(username: string, folder: string | null): void;
  /** Claims the user and folder for an upload until `endUpload`: deleting or renaming either voids it. */
  beginUpload(username: string, folder: string | null): UploadTicket;
  endUpload(ticket: UploadTicket): void;
  /** Checks, before a byte of the body is read, that an upload could land (409 for a taken name without `overwrite`). */
  checkUploadTarget(username: string, folder: string | null, file: string, overwrite: boolean): Promise<void>;
  /**
   * Streams `source` somewhere durable, not yet visible. `onBytes` gets the running total
   * and throws (or rejects) to stop; a promise it returns holds the stream until it settles.
   * On any failure nothing is left behind.
   */
  receive(source: Readable, onBytes: (total: number) => void | Promise<void>): Promise<R>;
  /**
   * Makes a received upload the file `file` of the ticket's user and folder (409 for an
   * existing file without `overwrite`; 404 once the ticket is void or `isCurrent()` is false).
   * The received bytes are discarded on every failure.
   */
  placeUpload(
    received: R,
    ticket: UploadTicket,
    file: string,
    overwrite: boolean,
    isCurrent: () => boolean,
    keep?: KeepReplaced,
  ): Promise<FileMeta>;
  /** Drops received bytes that will not be placed. */
  discardUpload(received: R): Promise<void>;
}

/**
 * Runs one upload through a backend's steps. Everything that would refuse it is checked
 * before a byte of the body is read; a delete of the user or folder while the body streams
 * voids its ticket (a 404); the received bytes are discarded on every failure, and
 * `hooks.release` runs once the upload has ended either way (briefly counted twice, never
 * zero times).
 */
export async function runUpload<R extends ReceivedUpload>(
  steps: UploadSteps<R>,
  req: StorageUpload,
  hooks: UploadHooks,
): Promise<FileMeta> {
  const { username, folder, file, overwrite, expectedSize } = req;
  steps.requireFolder(username, folder);
  const existing = steps.index.getFile(username, folder, file);
  if (existing && !overwrite) throw fileTaken();
  hooks.checkTarget(existing);
  const ticket = steps.beginUpload(username, folder);
  try {
    await steps.checkUploadTarget(username, folder, file, overwrite);
    const held = hooks.beforeBody(expectedSize);
    if (held instanceof Promise) await held;
    const received = await steps.receive(req.body, (total) => {
      if (expectedSize !== null && total > expectedSize) throw badRequest('The body is longer than its Content-Length', 'bad_request');
      return hooks.reserve(total);
    });
    if (expectedSize !== null && received.size !== expectedSize) {
      // The client went away mid-body (Node ends the request at the socket's end).
      await steps.discardUpload(received);
      throw badRequest('The body is shorter than its Content-Length', 'bad_request');
    }
    // placeUpload discards the received bytes on every failure; before it, this does.
    return await hooks.lockName(async () => {
      try {
        hooks.beforePlace();
      } catch (err) {
        await steps.discardUpload(received);
        throw err;
      }
      return steps.placeUpload(received, ticket, file, overwrite, () => hooks.isCurrent(), req.keep);
    });
  } finally {
    steps.endUpload(ticket);
    await hooks.release();
  }
}
