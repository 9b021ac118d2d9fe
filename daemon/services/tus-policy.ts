/**
 * What refuses a resumable upload, and what it holds, decided as `files.upload` decides them
 * (services/files.ts, `uploadPolicy`), but at two moments: at creation, before a byte is sent
 * (the user, the folder, a taken name, a case twin, a WebDAV lock, the quota for the whole
 * Upload-Length), and when the last byte is in (the same checks again, under the name's lock).
 */
import type { NimbusContext } from '../context.js';
import { fileTaken, quotaExceeded } from '../errors.js';
import type { UploadHooks } from '../storage/file-storage.js';
import { joinFolder } from '../storage/index-tree.js';
import type { StoredUser } from '../store/schema.js';
import type { Caller } from './keys.js';
import { requireUnlocked } from './lock-tokens.js';
import { assertNoCaseTwin, fileLock } from './name-locks.js';
import { QuotaHold } from './quota.js';
import { maxBytesOf, requireUser, usedBytesOf } from './records.js';
import { mayStillHave } from './standing.js';
import { holdGivingWay } from './versions.js';

/** Where a resumable upload goes, from its Upload-Metadata (checked by the shared rules of files.upload's parameters). */
export interface TusTarget {
  username: string;
  folder: string | null;
  file: string;
  overwrite: boolean;
}

/**
 * Checks, at creation, that the upload could land as files.upload would let it: the user and
 * the folder exist (404), the name is free or `overwrite` (409), no case twin (409), no WebDAV
 * lock on it (423). Answers the user, whose account the upload then belongs to.
 */
export function checkNewUpload(nimbus: NimbusContext, target: TusTarget): StoredUser {
  const { username, folder, file, overwrite } = target;
  const user = requireUser(nimbus, username);
  nimbus.storage.assertWritable();
  nimbus.storage.requireFolder(username, folder);
  const existing = nimbus.index.getFile(username, folder, file);
  if (existing && !overwrite) throw fileTaken();
  requireUnlockedTarget(nimbus, target, existing !== undefined);
  if (!existing) assertNoCaseTwin(nimbus, username, folder, file);
  return user;
}

/**
 * Holds the whole Upload-Length against the user's quota (507 when it does not fit, as a
 * files.upload whose Content-Length does not fit). An overwrite's old bytes count as freed.
 */
export async function holdQuota(nimbus: NimbusContext, user: StoredUser, target: TusTarget, length: number): Promise<QuotaHold> {
  const { username, folder, file, overwrite } = target;
  const maxBytes = maxBytesOf(nimbus, user);
  const existing = nimbus.index.getFile(username, folder, file);
  const freed = overwrite && existing ? existing.size : 0;
  if (maxBytes >= 0 && usedBytesOf(nimbus, username) > maxBytes)
    throw quotaExceeded('The user is over their storage quota; delete files (and empty the trash) before uploading', {
      needed: length,
      available: 0,
    });
  const hold = new QuotaHold(nimbus.quota, username, () => ({
    maxBytes,
    usedBytes: usedBytesOf(nimbus, username) - freed,
    freedBytes: freed,
  }));
  // Versions give way, as they do for files.upload (docs/versions.md).
  await holdGivingWay(nimbus, username, () => hold.cover(length, true));
  return hold;
}

/**
 * The hold of an upload read back at start: its bytes were promised before the restart, so
 * they are held again without a check (the quota may have shrunk meanwhile; the upload keeps
 * what it was given, as one in flight would).
 */
export async function holdAgain(nimbus: NimbusContext, username: string, length: number): Promise<QuotaHold> {
  const hold = new QuotaHold(nimbus.quota, username, () => ({ maxBytes: -1, usedBytes: 0, freedBytes: 0 }));
  await hold.cover(length, true);
  return hold;
}

/** What a finished upload is placed with: files.upload's checks again, the bytes already held. */
export interface PlacedUpload extends TusTarget {
  userCreatedAt: string;
}

/**
 * The hooks of the placement (storage/tus-placement.ts). The quota was held at creation and
 * the bytes are all in, so `beforeBody` and `reserve` hold nothing more; `release` lets go of
 * nothing either: the hold belongs to the upload, let go by tus-uploads.ts once the file is
 * counted, or when the upload is dropped.
 */
export function placementHooks(nimbus: NimbusContext, upload: PlacedUpload, caller: Caller): UploadHooks {
  const { username, folder, file } = upload;
  const check = (exists: boolean) => {
    requireUnlockedTarget(nimbus, upload, exists);
    // Even with overwrite: on a case-insensitive disk it would replace the other file.
    if (!exists) assertNoCaseTwin(nimbus, username, folder, file);
  };
  return {
    checkTarget: (existing) => check(existing !== undefined),
    beforeBody: () => undefined,
    reserve: () => undefined,
    lockName: (place) => nimbus.locks.run(fileLock(username, folder, file), place),
    // Under the lock: a twin may have come in since the upload was created.
    beforePlace: () => check(nimbus.index.getFile(username, folder, file) !== undefined),
    // The same account (not one made again under the name), and a caller who may still write there.
    isCurrent: () => nimbus.store.users.get(username)?.createdAt === upload.userCreatedAt && mayStillHave(nimbus, caller, username),
    release: () => Promise.resolve(),
  };
}

/** An upload changes the file (its locks' tokens needed) and, when it is new, its folder's members (the folder's too). */
function requireUnlockedTarget(nimbus: NimbusContext, target: TusTarget, exists: boolean): void {
  const path = joinFolder(target.folder, target.file);
  requireUnlocked(nimbus, target.username, exists ? [path] : [target.folder ?? '', path]);
}
