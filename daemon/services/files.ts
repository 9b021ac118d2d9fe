import { unlink } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { FileEntry } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { quotaExceeded } from '../errors.js';
import type { OpenedFile, UploadHooks } from '../storage/file-storage.js';
import type { FileMeta } from '../storage/index-tree.js';
import type { StoredUser } from '../store/schema.js';
import { joinFolder } from '../storage/index-tree.js';
import { followMove, forgetResource } from './dav-follow.js';
import { requireUnlocked } from './lock-tokens.js';
import { assertNoCaseTwin, fileLock } from './name-locks.js';
import { maxBytesOf, requireUser, toFileEntry, usedBytesOf, versionBytes } from './records.js';
import { QuotaHold } from './quota.js';
import { moveShare, revokeShare } from './shares.js';
import { trashFile } from './trash.js';
import { holdGivingWay, keptContent, makeRoom, prepareVersion, recordVersion } from './versions.js';

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
    // A member of its folder and a resource of its own: the locks of both (docs/webdav.md).
    requireUnlocked(nimbus, username, [folder ?? '', joinFolder(folder, file)]);
    await nimbus.storage.deleteFile(username, folder, file);
    const revoked = revokeShare(nimbus, username, folder, file);
    if (forgetResource(nimbus, username, joinFolder(folder, file)) || revoked) await nimbus.store.commit();
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
    requireUnlocked(nimbus, username, [folder ?? '', joinFolder(folder, file), joinFolder(folder, newName)]);
    let changed = false;
    // The records that follow the file move inside the storage's call: in object mode they
    // commit with its row (two commits let another daemon see the share's file gone between
    // them, and revoke the share; the soak saw the second commit answer 409).
    await nimbus.storage.renameFile(username, folder, file, newName, () => {
      const shareMoved = moveShare(nimbus, username, folder, file, newName);
      changed = followMove(nimbus, username, joinFolder(folder, file), joinFolder(folder, newName)) || shareMoved;
    });
    // The rename itself is the storage's (a directory entry, or a row it commits): the store is
    // written only for a record that follows it. A db.json write per rename made WebDAV's MOVE
    // 0.17× a bare server's renames.
    if (changed) await nimbus.store.commit();
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
 * Uploads a file: one storage call (`FileStorage.upload`, storage/upload-call.ts) that owns the
 * upload's steps, with this service's policy as its hooks. Space is reserved as bytes arrive
 * (all of it up front when Content-Length says how much), so uploads running at once can never
 * pass the quota together; storage's byte counter stops a body that lies.
 */
export async function uploadFile(nimbus: NimbusContext, req: UploadRequest): Promise<FileEntry> {
  const user = requireUser(nimbus, req.username);
  const { username, folder, file, overwrite, body } = req;
  // Replacing a file keeps what it replaces as a version (docs/versions.md).
  const kept = overwrite && nimbus.index.getFile(username, folder, file) ? await prepareVersion(nimbus, username) : null;
  let meta: FileMeta;
  try {
    meta = await nimbus.storage.upload(
      { username, folder, file, overwrite, body, expectedSize: req.declaredLength, keep: kept ?? undefined },
      uploadPolicy(nimbus, req, user),
    );
  } catch (err) {
    if (kept) await unlink(kept.path).catch(() => undefined);
    throw err;
  }
  nimbus.metrics?.uploaded(meta.size);
  if (kept) await recordVersion(nimbus, kept, { username, folder, file }, await keptContent(kept.path));
  // An overwrite is an edit, like an editor's atomic save: the file keeps its share link.
  return toFileEntry(nimbus, username, folder, file, meta);
}

/** What refuses an upload and what it holds meanwhile: the hooks storage calls at each of its steps. */
function uploadPolicy(nimbus: NimbusContext, req: UploadRequest, user: StoredUser): UploadHooks {
  const { username, folder, file } = req;
  const maxBytes = maxBytesOf(nimbus, user);
  // Replacing a file frees its old bytes once the new one is in place (known at checkTarget, before anything is held).
  let freed = 0;
  const quota = new QuotaHold(nimbus.quota, username, () => ({
    maxBytes,
    usedBytes: usedBytesOf(nimbus, username) - freed,
    freedBytes: freed,
  }));
  const checkRoom = (expectedSize: number | null) => {
    if (maxBytes >= 0 && usedBytesOf(nimbus, username) > maxBytes)
      throw quotaExceeded('The user is over their storage quota; delete files (and empty the trash) before uploading', {
        needed: expectedSize,
        available: 0,
      });
    if (expectedSize !== null) return holdGivingWay(nimbus, username, () => quota.cover(expectedSize, true));
  };
  return {
    checkTarget: (existing) => {
      // Before a byte is read; again under the name's lock (beforePlace).
      requireUnlockedTarget(nimbus, req, existing !== undefined);
      // Even with overwrite: on a case-insensitive disk it would replace the other file.
      if (!existing) assertNoCaseTwin(nimbus, username, folder, file);
      freed = req.overwrite && existing ? existing.size : 0;
    },
    beforeBody: (expectedSize) => {
      // Versions give way: the oldest go while the upload would not fit beside them.
      if (maxBytes >= 0 && versionBytes(nimbus, username) > 0)
        return makeRoom(nimbus, username, (expectedSize ?? 0) - freed).then(() => checkRoom(expectedSize));
      return checkRoom(expectedSize);
    },
    // A body of unknown length past the quota: the oldest versions give way first, then it is held again.
    reserve: (total) => holdGivingWay(nimbus, username, () => quota.cover(total)),
    lockName: (place) => nimbus.locks.run(fileLock(username, folder, file), place),
    // Again under the lock: a twin may have been uploaded or renamed in while this body streamed.
    beforePlace: () => {
      const existing = nimbus.index.getFile(username, folder, file);
      requireUnlockedTarget(nimbus, req, existing !== undefined);
      if (!existing) assertNoCaseTwin(nimbus, username, folder, file);
    },
    // The same user, not one deleted and made again with this name meanwhile, and a caller who may still write there.
    isCurrent: () => nimbus.store.users.get(username)?.createdAt === user.createdAt && (req.callerMayStill?.() ?? true),
    // Once the file is counted (or the upload failed): briefly counted twice, never zero times.
    release: () => quota.release(),
  };
}

/** An upload changes the file (its locks' tokens needed) and, when it is new, its folder's members (the folder's too). */
function requireUnlockedTarget(nimbus: NimbusContext, req: UploadRequest, exists: boolean): void {
  const path = joinFolder(req.folder, req.file);
  requireUnlocked(nimbus, req.username, exists ? [path] : [req.folder ?? '', path]);
}

export async function openDownload(nimbus: NimbusContext, username: string, folder: string | null, file: string): Promise<OpenedFile> {
  requireUser(nimbus, username);
  return nimbus.storage.openFile(username, folder, file);
}
