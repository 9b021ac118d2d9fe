/**
 * A finished resumable upload placed as `files.upload` places a file (docs/uploads.md): through
 * `runUpload` (upload-call.ts), so it passes the same steps in the same order (the target checked,
 * the name's lock, the case-twin check under it, the no-clobber link or the rename over, the
 * directory fsync, the index updated and its events published), with the caller's hooks.
 *
 * On disk nothing is copied: the "receive" step hard-links the fsynced partial file into
 * `<data-dir>/tmp` as the upload's temp file, and `placeUpload` (uploads.ts) links that into the
 * folder opened without following links (safe-dir.ts), as it does any upload's. Another
 * FileStorage (objects) gets the partial file streamed as the body: a copy.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, link, lstat, mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { FileStorage } from './file-storage.js';
import type { FileMeta } from './index-tree.js';
import { lstatIn } from './safe-ops.js';
import { Storage } from './storage.js';
import { within } from './storage-parts.js';
import { runUpload, type KeepReplaced, type ReceivedUpload, type UploadHooks, type UploadSteps } from './upload-call.js';

/** Where a finished upload goes and the file holding its bytes. */
export interface FinishedUpload {
  username: string;
  folder: string | null;
  file: string;
  overwrite: boolean;
  /** The partial file: exactly `size` bytes, fsynced. */
  partPath: string;
  size: number;
  /** With `overwrite`: the version to keep of the replaced file (StorageUpload.keep). */
  keep?: KeepReplaced;
}

/** Whether placing costs no copy here (the storage folder), or a copy of every byte (an object store). */
export const placesByLink = (storage: FileStorage): storage is Storage => storage instanceof Storage;

/** Places the finished upload; the partial file keeps its own name (the caller removes it once placed). */
export function placeFinished(storage: FileStorage, upload: FinishedUpload, hooks: UploadHooks): Promise<FileMeta> {
  const request = { ...upload, expectedSize: upload.size };
  if (!placesByLink(storage)) return storage.upload({ ...request, body: createReadStream(upload.partPath) }, hooks);
  return runUpload(linkedSteps(storage, upload), { ...request, body: Readable.from([]) }, hooks);
}

/** The disk's own upload steps, but for the body: a second name of the partial file, counted at once. */
function linkedSteps(storage: Storage, upload: FinishedUpload): UploadSteps<ReceivedUpload> {
  return {
    index: storage.index,
    requireFolder: (username, folder) => storage.requireFolder(username, folder),
    beginUpload: (username, folder) => storage.beginUpload(username, folder),
    endUpload: (ticket) => storage.endUpload(ticket),
    checkUploadTarget: (username, folder, file, overwrite) => storage.checkUploadTarget(username, folder, file, overwrite),
    receive: async (_body, onBytes) => {
      storage.assertWritable();
      const ref = path.join(storage.tmpDir, `upload-${randomBytes(12).toString('hex')}`);
      await mkdir(storage.tmpDir, { recursive: true });
      await link(upload.partPath, ref).catch(async (err: NodeJS.ErrnoException) => {
        // The data directory's tmp on another file system than its tus folder: a copy, fsynced before it is placed.
        if (err.code !== 'EXDEV') throw err;
        await copyFile(upload.partPath, ref);
        const copy = await open(ref, 'r');
        await copy.sync().finally(() => copy.close());
      });
      const size = (await lstat(ref)).size;
      try {
        await onBytes(size);
      } catch (err) {
        await storage.discardUpload({ ref, size });
        throw err;
      }
      return { ref, size };
    },
    placeUpload: (received, ticket, file, overwrite, isCurrent, keep) =>
      storage.placeUpload(received, ticket, file, overwrite, isCurrent, keep),
    discardUpload: (received) => storage.discardUpload(received),
  };
}

/**
 * Whether the upload's target already is its partial file (the same inode): the daemon died
 * after placing it and before recording that. Only a placement by link can be recognised so;
 * anything else is false, and the upload is placed again.
 */
export async function isPlaced(storage: FileStorage, upload: FinishedUpload): Promise<boolean> {
  if (!placesByLink(storage)) return false;
  const part = await lstat(upload.partPath).catch(() => null);
  if (!part) return false;
  try {
    return await within(storage.storageDir, upload.username, upload.folder, 'folder_not_found', async (dir) => {
      const target = await lstatIn(dir, upload.file);
      return target !== null && target.isFile() && target.ino === part.ino && target.dev === part.dev;
    });
  } catch {
    return false;
  }
}
