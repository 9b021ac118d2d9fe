import type { Readable } from 'node:stream';
import type { FileEntry } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { badRequest, fileTaken, quotaExceeded } from '../errors.js';
import type { OpenedFile } from '../storage/file-storage.js';
import { assertNoCaseTwin, fileLock } from './name-locks.js';
import { maxBytesOf, requireUser, toFileEntry, usedBytesOf } from './records.js';
import { QuotaHold } from './quota.js';
import { moveShare, revokeShare } from './shares.js';
import { trashFile } from './trash.js';

// Their own module, so that this one and trash.ts need not import each other; re-exported for this module's callers.
export { assertNoCaseTwin, fileLock } from './name-locks.js';

/**
 * Deletes a file: into the user's trash (answering the trash item's id), or with `permanent`
 * for good (answering null). Either way its share link is revoked at once.
 */
export async function deleteFile(
  nimbus: NimbusContext,
  username: string,
  folder: string | null,
  file: string,
  permanent = false,
): Promise<string | null> {
  requireUser(nimbus, username);
  if (!permanent) return trashFile(nimbus, username, folder, file);
  await nimbus.locks.run(fileLock(username, folder, file), async () => {
    await nimbus.storage.deleteFile(username, folder, file);
    if (revokeShare(nimbus, username, folder, file)) await nimbus.store.commit();
  });
  return null;
}

/** Renames a file; its share link follows it, as in DaneeCloud. */
export function renameFile(
  nimbus: NimbusContext,
  username: string,
  folder: string | null,
  file: string,
  newName: string,
): Promise<FileEntry> {
  requireUser(nimbus, username);
  return nimbus.locks.run([fileLock(username, folder, file), fileLock(username, folder, newName)], async () => {
    if (nimbus.index.getFile(username, folder, file)) assertNoCaseTwin(nimbus, username, folder, newName, file);
    await nimbus.storage.renameFile(username, folder, file, newName);
    moveShare(nimbus, username, folder, file, newName);
    await nimbus.store.commit();
    return toFileEntry(nimbus, username, folder, newName, nimbus.index.getFile(username, folder, newName)!);
  });
}

export interface UploadRequest {
  username: string;
  folder: string | null;
  file: string;
  overwrite: boolean;
  /** Content-Length, when the client sent one. */
  declaredLength: number | null;
  body: Readable;
  /** Whether the caller may still place it (a role change while the body streamed may end that); always when absent. */
  callerMayStill?: () => boolean;
}

/**
 * Streams an upload to a temp file and moves it into place. Space is reserved as bytes
 * arrive (all of it up front when Content-Length says how much), so uploads running at
 * once can never pass the quota together; a byte counter stops a body that lies.
 */
export async function uploadFile(nimbus: NimbusContext, req: UploadRequest): Promise<FileEntry> {
  const user = requireUser(nimbus, req.username);
  nimbus.storage.requireFolder(req.username, req.folder);
  const existing = nimbus.index.getFile(req.username, req.folder, req.file);
  if (existing && !req.overwrite) throw fileTaken();
  // Even with overwrite: on a case-insensitive disk it would replace the other file.
  if (!existing) assertNoCaseTwin(nimbus, req.username, req.folder, req.file);
  const maxBytes = maxBytesOf(nimbus, user);
  // Replacing a file frees its old bytes once the new one is in place.
  const freed = req.overwrite && existing ? existing.size : 0;
  const quota = new QuotaHold(nimbus.quota, req.username, () => ({
    maxBytes,
    usedBytes: usedBytesOf(nimbus, req.username) - freed,
    freedBytes: freed,
  }));
  // A delete of the user or folder while the body streams voids the ticket: the upload is then a 404.
  const ticket = nimbus.storage.beginUpload(req.username, req.folder);
  // The same user, not one deleted and made again with this name meanwhile, and a caller who may still write there.
  const isCurrent = () => nimbus.store.users.get(req.username)?.createdAt === user.createdAt && (req.callerMayStill?.() ?? true);
  let meta;
  try {
    // Everything that would refuse the upload is checked before a byte of the body is read.
    await nimbus.storage.checkUploadTarget(req.username, req.folder, req.file, req.overwrite);
    if (maxBytes >= 0 && usedBytesOf(nimbus, req.username) > maxBytes)
      throw quotaExceeded('The user is over their storage quota; delete files (and empty the trash) before uploading');
    if (req.declaredLength !== null) await quota.cover(req.declaredLength, true);
    const received = await nimbus.storage.receive(req.body, (total) => {
      if (req.declaredLength !== null && total > req.declaredLength)
        throw badRequest('The body is longer than its Content-Length', 'bad_request');
      return quota.cover(total);
    });
    if (req.declaredLength !== null && received.size !== req.declaredLength) {
      // The client went away mid-body (Node ends the request at the socket's end).
      await nimbus.storage.discardUpload(received);
      throw badRequest('The body is shorter than its Content-Length', 'bad_request');
    }
    // placeUpload discards the received bytes on every failure.
    meta = await nimbus.locks.run(fileLock(req.username, req.folder, req.file), async () => {
      // Again under the lock: a twin may have been uploaded or renamed in while this body streamed.
      if (!nimbus.index.getFile(req.username, req.folder, req.file)) {
        try {
          assertNoCaseTwin(nimbus, req.username, req.folder, req.file);
        } catch (err) {
          await nimbus.storage.discardUpload(received);
          throw err;
        }
      }
      return nimbus.storage.placeUpload(received, ticket, req.file, req.overwrite, isCurrent);
    });
  } finally {
    nimbus.storage.endUpload(ticket);
    // Once the file is counted (or the upload failed): briefly counted twice, never zero times.
    await quota.release();
  }
  // An overwrite is an edit, like an editor's atomic save: the file keeps its share link.
  return toFileEntry(nimbus, req.username, req.folder, req.file, meta);
}

export async function openDownload(nimbus: NimbusContext, username: string, folder: string | null, file: string): Promise<OpenedFile> {
  requireUser(nimbus, username);
  return nimbus.storage.openFile(username, folder, file);
}
