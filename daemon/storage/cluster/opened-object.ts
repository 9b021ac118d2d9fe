/** A file of object mode opened for reading: its row's size and ETag, its bytes read from the bucket on demand (ranged). */
import { PassThrough, type Readable } from 'node:stream';
import { notFound } from '../../errors.js';
import type { StoredFile } from '../../store/schema.js';
import type { OpenedFile } from '../file-storage.js';
import { asStoreFailure, ObjectMissing, type ObjectStore } from '../objects/object-store.js';
import { objectKey } from './ids.js';

/** The row named an object that is gone (deleted for good by another daemon a moment ago): as a file that is gone. */
const asMissing = (err: unknown): Error => (err instanceof ObjectMissing ? notFound('file_not_found', 'File not found') : (err as Error));

/** What names an object's bytes (OpenedFile.identity): a download's and a WebDAV listing's alike. */
export function objectIdentity(row: StoredFile): { identity: string; identityIsStrong: boolean } {
  return {
    // The id never changes and the ETag changes with the bytes: no other version shares it.
    identity: `${row.id}:${row.etag}`,
    // An object is never written again under its id: an overwrite is a new object with a new id.
    identityIsStrong: true,
  };
}

export function openObject(objects: ObjectStore, row: StoredFile): OpenedFile {
  const key = objectKey(row.id);
  let open: Readable | null = null;
  let closed = false;
  return {
    size: row.size,
    mtimeMs: row.mtimeMs,
    ...objectIdentity(row),
    etag: row.etag,
    async stream(range?: { start: number; end: number }): Promise<Readable> {
      // The ranged GET is answered before the caller sends a header: a bucket that cannot be
      // read is a 503 (object-store.ts asStoreFailure), not a response cut off before its first byte.
      const body = await objects.get(key, range).catch((err: unknown) => {
        throw asMissing(err);
      });
      // A read failing midway (the bucket lost) fails the stream with a 503: a copy, whose
      // upload reads it, says so (pipe-from-client.ts passes a source's ApiError on); a download
      // already under way is cut off (Koa destroys the response).
      const out = new PassThrough({ highWaterMark: 1 << 20 });
      body.once('error', (err) => out.destroy(asStoreFailure(err)));
      out.once('close', () => body.destroy());
      body.pipe(out);
      // Closed while the GET was under way (the client went away): nobody will read it.
      if (closed) out.destroy();
      open = out;
      return out;
    },
    async read(): Promise<Buffer> {
      const body = await objects.get(key).catch((err: unknown) => {
        throw asMissing(err);
      });
      const chunks: Buffer[] = [];
      try {
        for await (const chunk of body) chunks.push(chunk as Buffer);
      } catch (err) {
        // The bucket lost midway: a 503, as a stream's failure is (a small download reads this way).
        throw asStoreFailure(err);
      }
      return Buffer.concat(chunks);
    },
    async close(): Promise<void> {
      closed = true;
      if (open && !open.destroyed) open.destroy();
      open = null;
    },
  };
}
