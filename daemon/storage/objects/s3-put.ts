/**
 * How S3ObjectStore writes a body to a new object. A body the client declared to fit in one
 * part is read whole and sent as one PutObject; any other streams through lib-storage's Upload
 * (5 MiB parts, 3 at a time), so memory stays flat whatever the size.
 *
 * Why two ways: for a body of one part, Upload also gathers it whole and sends one PutObject,
 * but on the way it runs its part machinery and needs the body piped through a counting
 * Transform by `stream.pipeline`, whose AbortController is aborted at every end (a DOMException
 * and its listeners: ~55 µs a call here). Measured on the cluster bench's 4 KiB uploads
 * (bench/NOTES.md, issue 30). The bytes sent, their signing and the memory held are the same.
 */
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { pipeline, Readable, Transform } from 'node:stream';
import { asStoreFailure, type PutOptions, type StoredObject } from './object-store.js';
import { abortUploadsOf } from './s3-multipart.js';
import { partSizeFor } from './s3-parts.js';

export interface PutTarget {
  client: S3Client;
  bucket: string;
  key: string;
  /** A multipart upload's part size and how many are sent at once. */
  partSize: number;
  partsInFlight: number;
}

/** Writes `body` to the object `t.key`: one PutObject when the client declared at most a part, else a multipart upload. */
export function putObject(t: PutTarget, body: Readable, options: PutOptions): Promise<StoredObject> {
  const declared = options.expectedBytes;
  return declared !== undefined && declared <= t.partSize ? putWhole(t, body, options) : putStreamed(t, body, options);
}

/**
 * Reads the body whole, counting as `onBytes` wants, then sends it in one PutObject. A body
 * longer than a part after all (a declared length is the client's word, and only node:http's
 * parser holds a request to it) goes on as a multipart upload, its first bytes included.
 */
async function putWhole(t: PutTarget, body: Readable, options: PutOptions): Promise<StoredObject> {
  const chunks: Buffer[] = [];
  let total = 0;
  const reading = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  try {
    for (let next = await reading.next(); !next.done; next = await reading.next()) {
      total += next.value.length;
      options.onBytes?.(total);
      chunks.push(next.value);
      if (total > t.partSize) return await putStreamed(t, Readable.from(gathered(chunks, reading)), { ...options, onBytesFrom: total });
    }
  } catch (err) {
    // The body's own failure (the client went away) or onBytes refusing: nothing was sent (past
    // a part, the multipart upload was aborted before putStreamed rejected). The source stops
    // being read, as a failed pipeline would leave it.
    body.destroy();
    throw err;
  }
  try {
    const Body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
    const put = await t.client.send(
      new PutObjectCommand({ Bucket: t.bucket, Key: t.key, Body, ContentLength: total, ContentType: options.contentType }),
    );
    return { size: total, etag: put.ETag ?? '', lastModified: new Date() };
  } catch (err) {
    // The bucket failed it (a 503 for the client), never the client's bytes: they were all here.
    throw asStoreFailure(err);
  }
}

/** The chunks read so far, then the rest of the body. */
async function* gathered(chunks: Buffer[], rest: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  yield* chunks;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
}

/** Streams the body through lib-storage's Upload; `onBytesFrom` counts bytes a caller already reported (putWhole's). */
async function putStreamed(t: PutTarget, body: Readable, options: PutOptions & { onBytesFrom?: number }): Promise<StoredObject> {
  const counted = options.onBytesFrom ?? 0;
  let total = 0;
  let failure: unknown;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      total += chunk.length;
      try {
        if (total > counted) options.onBytes?.(total);
      } catch (err) {
        failure = err;
        return callback(err as Error);
      }
      callback(null, chunk);
    },
  });
  // An error on either side (the source failing, onBytes throwing) destroys both streams: the
  // source stops being read and Upload's read of the counter throws.
  pipeline(body, counter, (err) => {
    if (err && failure === undefined) failure = err;
  });
  const upload = new Upload({
    client: t.client,
    params: { Bucket: t.bucket, Key: t.key, Body: counter, ContentType: options.contentType },
    partSize: partSizeFor(options.expectedBytes, t.partSize),
    queueSize: t.partsInFlight,
    leavePartsOnError: false,
  });
  // Why not Upload.abort(): it makes done() reject at once, while parts still in flight finish
  // and AbortMultipartUpload runs later — a caller could see the upload's parts after put
  // rejected. A failed stream makes Upload abort the multipart upload itself, and done()
  // settles only after that.
  try {
    const result = await upload.done();
    return { size: total, etag: result.ETag ?? '', lastModified: new Date() };
  } catch (err) {
    await abortUploadsOf(t.client, t.bucket, t.key).catch(() => undefined);
    // The body's own failure (the client went away, onBytes refused) when that is what
    // stopped the upload; otherwise the bucket failed it, the server's failure (a 503), never
    // the client's. Upload never destroys its body, so a bucket failure leaves `failure` unset.
    throw failure ?? asStoreFailure(err);
  }
}
