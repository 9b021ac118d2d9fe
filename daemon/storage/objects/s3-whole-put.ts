/**
 * A body declared no longer than one part, sent as one PutObject. lib-storage's Upload sends
 * such a body as one PutObject too, after gathering it into a part through its generic
 * machinery (a byte-counting stream, async chunking, copies), which cost a small upload more
 * CPU than the request itself (bench/NOTES.md, issue 30: the cluster upload row).
 */
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { asStoreFailure, type PutOptions, type StoredObject } from './object-store.js';

/**
 * Gathers `body` (at most `limit` bytes: a longer one fails, put nowhere), calling `onBytes` with
 * the running total, then puts it whole. A body failing, or `onBytes` throwing, rejects with
 * that error and sends nothing; a bucket failure rejects as the store's failure (a 503).
 */
export async function putWhole(
  client: S3Client,
  bucket: string,
  key: string,
  body: Readable,
  options: PutOptions,
  limit: number,
): Promise<StoredObject> {
  const chunks: Buffer[] = [];
  let total = 0;
  // Leaving the loop by a throw destroys the body, as the streamed path's pipeline does.
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limit) throw new Error(`The body is longer than the ${limit} bytes it declared`);
    options.onBytes?.(total);
    chunks.push(chunk);
  }
  try {
    const put = await client.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: Buffer.concat(chunks, total),
        ContentLength: total,
        ContentType: options.contentType,
      }),
    );
    return { size: total, etag: put.ETag ?? '', lastModified: new Date() };
  } catch (err) {
    throw asStoreFailure(err);
  }
}
