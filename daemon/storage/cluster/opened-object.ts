/** A file of object mode opened for reading: its row's size and ETag, its bytes read from the bucket on demand (ranged). */
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { notFound } from '../../errors.js';
import type { StoredFile } from '../../store/schema.js';
import type { OpenedFile } from '../file-storage.js';
import { ObjectMissing, type ObjectStore } from '../objects/object-store.js';
import { objectKey } from './ids.js';

/** The row named an object that is gone (deleted for good by another daemon a moment ago): as a file that is gone. */
const asMissing = (err: unknown): Error => (err instanceof ObjectMissing ? notFound('file_not_found', 'File not found') : (err as Error));

export function openObject(objects: ObjectStore, row: StoredFile): OpenedFile {
  const key = objectKey(row.id);
  let open: PassThrough | null = null;
  return {
    size: row.size,
    mtimeMs: row.mtimeMs,
    // The id never changes and the ETag changes with the bytes: no other version shares it.
    identity: `${row.id}:${row.etag}`,
    // An object is never written again under its id: an overwrite is a new object with a new id.
    identityIsStrong: true,
    etag: row.etag,
    stream(range?: { start: number; end: number }): Readable {
      // Handed out at once (callers set headers and pipe it); the ranged GET fills it.
      const out = new PassThrough({ highWaterMark: 1 << 20 });
      open = out;
      objects.get(key, range).then(
        (body) => pipeline(body, out).catch(() => undefined),
        (err: unknown) => out.destroy(asMissing(err)),
      );
      return out;
    },
    async read(): Promise<Buffer> {
      const body = await objects.get(key).catch((err: unknown) => {
        throw asMissing(err);
      });
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    async close(): Promise<void> {
      if (open && !open.destroyed) open.destroy();
      open = null;
    },
  };
}
