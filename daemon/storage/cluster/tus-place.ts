/**
 * A resumable upload's object, complete in the bucket, placed as files.upload places a file
 * (docs/uploads.md, "Several daemons"): through `runUpload` (upload-call.ts) with the object's
 * own upload steps but for the body, which is already `files/<objectId>`, so the same checks
 * run in the same order with the caller's hooks, and the row naming it commits under the same
 * locks. Nothing is copied. A failure leaves the object to the upload (it may be placed again,
 * or is deleted when the upload is dropped).
 */
import { Readable } from 'node:stream';
import type { FileMeta } from '../index-tree.js';
import type { ObjectStore } from '../objects/object-store.js';
import { runUpload, type KeepReplaced, type UploadHooks, type UploadSteps } from '../upload-call.js';
import { objectKey } from './ids.js';
import type { ObjectStorage } from './object-storage.js';
import { placeObject, type ReceivedObject } from './object-uploads.js';
import type { TusRow } from './tus-rows.js';

/**
 * Completes the row's multipart upload into its object (an upload completed before, by a
 * daemon that died before placing it, is found in the bucket) and answers the object; an
 * empty file is one empty object. Null when the bucket holds no such object of the right size.
 */
export async function completeObject(objects: ObjectStore, row: TusRow): Promise<ReceivedObject | null> {
  const key = objectKey(row.objectId);
  if (row.length === 0) await objects.put(key, Readable.from([]), { contentType: 'application/octet-stream' });
  else if (row.multipartId) {
    const parts = [...row.parts].sort((a, b) => a.n - b.n).map((p) => ({ number: p.n, etag: p.etag }));
    await objects.completeParts({ key, uploadId: row.multipartId }, parts).catch((err: Error) => {
      // Completed already (the answer lost, or its daemon died before placing): the bucket says below.
      if (err.name !== 'NoSuchUpload') throw err;
    });
  }
  const stored = await objects.head(key);
  if (!stored || stored.size !== row.length) return null;
  return { id: row.objectId, ref: key, size: stored.size, etag: stored.etag };
}

/** Places the complete object at the row's target, with the caller's hooks (tus-policy.ts placementHooks). */
export function placeCompleteObject(
  storage: ObjectStorage,
  row: TusRow,
  object: ReceivedObject,
  hooks: UploadHooks,
  keep?: KeepReplaced,
): Promise<FileMeta> {
  const { folder, file, overwrite } = row.target;
  const steps: UploadSteps<ReceivedObject> = {
    index: storage.index,
    requireFolder: (username, inFolder) => storage.requireFolder(username, inFolder),
    beginUpload: (username, inFolder) => storage.beginUpload(username, inFolder),
    endUpload: (ticket) => storage.endUpload(ticket),
    checkUploadTarget: (username, inFolder, name, replace) => storage.checkUploadTarget(username, inFolder, name, replace),
    receive: async (_body, onBytes) => {
      await onBytes(object.size);
      return object;
    },
    placeUpload: (_received, ticket, name, replace, isCurrent, kept) =>
      placeObject(storage, object, {
        username: ticket.username,
        folder: ticket.folder,
        file: name,
        overwrite: replace,
        isCurrent,
        ticket,
        keep: kept,
        ownedByUpload: true,
      }),
    // The upload's own object: its drop deletes it, not a refusal that may pass.
    discardUpload: async () => undefined,
  };
  return runUpload(
    steps,
    { username: row.username, folder, file, overwrite, body: Readable.from([]), expectedSize: object.size, keep },
    hooks,
  );
}
