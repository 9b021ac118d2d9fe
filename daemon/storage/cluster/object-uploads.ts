/**
 * Object mode's uploads (docs/cluster.md, "Bytes"): the body streams to a new object
 * `files/<newId>`, then a row names it, committed under the locks; a replaced file's object is
 * deleted only after the commit, and the new object is deleted on every failure before it
 * (a 409 from another daemon's row of that name, once caught up with it; a 503). A crash in
 * between leaves at most an orphan object, which the sweeper deletes.
 */
import type { IncomingMessage } from 'node:http';
import { Transform, type Readable } from 'node:stream';
import mime from 'mime-types';
import { CommitConflict, conflict, fileTaken, notFound } from '../../errors.js';
import type { StoredFile } from '../../store/schema.js';
import type { KeepReplaced, ReceivedUpload } from '../upload-call.js';
import { joinFolder, type FileMeta } from '../index-tree.js';
import type { ObjectStore } from '../objects/object-store.js';
import { pipeFromClient } from '../pipe-from-client.js';
import { keysOf } from '../storage-parts.js';
import type { UploadTicket } from '../upload-tickets.js';
import { fileIdOf, newId, objectKey } from './ids.js';
import { mayHaveCommitted, missingIn, type ObjectParts } from './object-parts.js';
import { metaOf } from './rows.js';

/** What an upload's body became: a new object (`ref` its key), not yet named by any row. */
export interface ReceivedObject extends ReceivedUpload {
  readonly id: string;
  readonly etag: string;
}

/** Where a received object goes. */
export interface PlaceTarget {
  username: string;
  folder: string | null;
  file: string;
  overwrite: boolean;
  /** False once the user was deleted (perhaps made again) meanwhile: a 404. */
  isCurrent: () => boolean;
  /** The upload's claim (a delete or rename of its user or folder voids it: a 404). */
  ticket?: UploadTicket;
  /** The row's type (a copy keeps its source's); by the name's extension otherwise. */
  contentType?: string;
  /** With `overwrite`: the replaced file's object stays, its row becoming this version (docs/versions.md). */
  keep?: KeepReplaced;
  /** The object belongs to a resumable upload, which may place it again: not deleted when placing fails. */
  ownedByUpload?: boolean;
}

/** Checks, before a byte of the body is read, that an upload could land (from the index; the rows again when it is placed). */
export function checkObjectTarget(s: ObjectParts, username: string, folder: string | null, file: string, overwrite: boolean): void {
  s.checkNames(username, folder, file);
  if (!s.index.user(username)) throw missingIn(null);
  s.requireFolder(username, folder);
  if (s.index.folder(username, joinFolder(folder, file))) throw conflict('file_exists', 'A folder or link with that name already exists');
  if (s.index.getFile(username, folder, file) && !overwrite) throw fileTaken();
}

/**
 * Streams `source` to a new object. `onBytes` gets the running total before each chunk goes
 * on, and throws or rejects to stop (a promise holds the stream until it settles: the
 * PostgreSQL quota ledger answers from the database); the object store then leaves nothing
 * behind. A client that goes away mid-body fails it.
 */
export async function streamToObject(
  objects: ObjectStore,
  source: Readable,
  onBytes: (total: number) => void | Promise<void>,
): Promise<ReceivedObject> {
  const id = newId();
  let total = 0;
  const counter = new Transform({
    highWaterMark: 1 << 20,
    transform(chunk: Buffer, _enc, done) {
      total += chunk.length;
      let held: void | Promise<void>;
      try {
        held = onBytes(total);
      } catch (err) {
        return done(err as Error);
      }
      if (held instanceof Promise)
        held.then(
          () => done(null, chunk),
          (err: unknown) => done(err as Error),
        );
      else done(null, chunk);
    },
  });
  const letGo = pipeFromClient(source, counter);
  try {
    // A client's declared length picks the part size (s3-store.ts partSizeFor).
    const declared = Number((source as Partial<IncomingMessage>).headers?.['content-length']);
    const stored = await objects.put(objectKey(id), counter, {
      contentType: 'application/octet-stream',
      expectedBytes: Number.isFinite(declared) && declared > 0 ? declared : undefined,
    });
    return { id, ref: objectKey(id), size: stored.size, etag: stored.etag };
  } finally {
    letGo();
  }
}

/**
 * Names a received object: under the locks, inserts its row (or, with `overwrite`, replaces
 * the existing file's row by it, in the same commit: the name is never without a file),
 * commits, then deletes the replaced object. The new object is deleted on every failure
 * before the commit, and on a commit known to have written nothing; one lost with its
 * connection may have been written, so the object stays (the sweeper's, if no row names it).
 */
export async function placeObject(s: ObjectParts, received: ReceivedObject, target: PlaceTarget): Promise<FileMeta> {
  const attempt: PlaceAttempt = { committing: false, committed: false };
  try {
    // A conflicting commit wrote nothing. Its likeliest cause is another daemon's row of this
    // name that this daemon has not heard of yet (the cluster soak saw an overwrite answer 409
    // just after the same client's upload through another daemon): changeRows catches up, and
    // the object, already stored, is placed once more under the locks. Without `overwrite`
    // that answers `file_exists`, which is then right.
    return await s.changeRows(() => placeUnderLocks(s, received, target, attempt));
  } catch (err) {
    // The cluster soak caught a row naming a deleted object: its commit had been lost with the
    // connection during a PostgreSQL restart after the server wrote it.
    const mayBeNamed = attempt.committed || (attempt.committing && mayHaveCommitted(err));
    if (!mayBeNamed && !target.ownedByUpload) await s.deleteObjects([received.id]);
    throw err;
  }
}

/** How far one placing went: whether a commit was sent (and not refused as a conflict, which writes nothing), and whether it was written. */
interface PlaceAttempt {
  committing: boolean;
  committed: boolean;
}

async function placeUnderLocks(s: ObjectParts, received: ReceivedObject, target: PlaceTarget, attempt: PlaceAttempt): Promise<FileMeta> {
  const { username, folder, file, overwrite, ticket } = target;
  return s.live.run(keysOf(username, folder), false, async () => {
    if (ticket?.void || !target.isCurrent() || !s.index.user(username)) {
      throw folder === null
        ? notFound('user_not_found', 'The user was deleted during the upload')
        : notFound('folder_not_found', 'The folder was deleted during the upload');
    }
    const folderId = folder === null ? null : s.rows.folderId(username, folder);
    if (folderId === undefined) throw notFound('folder_not_found', 'The folder was deleted during the upload');
    if (s.rows.childFolderId(username, folderId, file) !== undefined)
      throw conflict('file_exists', 'A folder or link with that name already exists');
    const replacedId = s.rows.fileId(username, folder, file);
    if (replacedId !== undefined && !overwrite) throw fileTaken();
    const row: StoredFile = {
      id: received.id,
      username,
      folderId,
      name: file,
      size: received.size,
      mtimeMs: Date.now(),
      contentType: target.contentType ?? (mime.lookup(file) || 'application/octet-stream'),
      etag: received.etag,
      trashId: null,
    };
    // The replaced row and the new one change in one commit: the name is never without a file.
    // A version kept of it is made in the same commit: its object stays, named by the version.
    const replaced = replacedId === undefined ? undefined : s.store.files.get(replacedId);
    const kept = replaced && target.keep;
    // Only the row as this daemon knows it: one renamed or replaced elsewhere meanwhile is not this name's (a 409, then placed again).
    if (replacedId !== undefined) s.store.files.deleteExisting(replacedId);
    if (replaced && kept) {
      s.store.collection('versions').set(kept.id, {
        id: kept.id,
        username,
        folder,
        file,
        size: replaced.size,
        mtimeMs: replaced.mtimeMs,
        keptAt: new Date().toISOString(),
        objectId: replaced.id,
        etag: replaced.etag,
      });
    }
    s.store.files.set(row.id, row);
    attempt.committing = true;
    await s.store.commit().catch((err: unknown) => {
      // Refused as a conflict: known to have written nothing (changeRows may place it again).
      if (err instanceof CommitConflict) attempt.committing = false;
      throw err;
    });
    attempt.committed = true;
    s.rows.applyFile(row.id, row);
    if (replacedId !== undefined) {
      s.rows.applyFile(replacedId, undefined);
      if (!kept) await s.deleteObjects([replacedId]);
    }
    return metaOf(row);
  });
}

/** A ReceivedUpload made by streamToObject, with its id and ETag (asked of the bucket when it came from elsewhere). */
export async function asReceivedObject(objects: ObjectStore, received: ReceivedUpload): Promise<ReceivedObject> {
  const id = fileIdOf(received.ref);
  if (id === null) throw new Error(`Not an upload of object storage: ${received.ref}`);
  const known = received as Partial<ReceivedObject>;
  if (typeof known.etag === 'string') return { id, ref: received.ref, size: received.size, etag: known.etag };
  const head = await objects.head(received.ref);
  if (!head) throw notFound('file_not_found', 'The upload’s bytes are gone');
  return { id, ref: received.ref, size: head.size, etag: head.etag };
}
