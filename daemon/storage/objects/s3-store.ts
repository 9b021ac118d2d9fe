/**
 * ObjectStore on an S3 bucket (docs/cluster.md, "Bytes"), through the AWS SDK with the
 * settings S3 servers other than AWS need (s3-client.ts). Uploads: s3-put.ts (one PutObject for
 * a body declared to fit in a part, else lib-storage's multipart Upload).
 */
import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { asStoreFailure, ObjectMissing, type ObjectStore, type OpenUpload, type PutOptions, type StoredObject } from './object-store.js';
import { createS3Client, type S3Settings } from './s3-client.js';
import { abortOpenUpload, beginParts, completeParts, lastPartAt, listOpenUploads, putPart } from './s3-multipart.js';
import { PART_SIZE, PARTS_IN_FLIGHT, partSizeFor } from './s3-parts.js';
import { putObject } from './s3-put.js';

export { partSizeFor };

export interface S3ObjectStoreSettings extends S3Settings {
  bucket: string;
  /** Keys per ListObjectsV2 page (S3's default, 1000, unless set: tests page with fewer). */
  listPageSize?: number;
  /** Keys per DeleteObjects call (at most S3's limit, 1000: tests batch with fewer). */
  deleteBatchSize?: number;
  /** A multipart upload's part size and how many are sent at once (PART_SIZE, PARTS_IN_FLIGHT unless set: measurements try others). */
  partSize?: number;
  partsInFlight?: number;
}

/** DeleteObjects takes at most 1000 keys. */
const DELETE_BATCH = 1000;

export class S3ObjectStore implements ObjectStore {
  readonly bucket: string;
  private readonly client: S3Client;
  private readonly listPageSize: number | undefined;
  private readonly deleteBatchSize: number;
  private readonly partSize: number;
  private readonly partsInFlight: number;

  constructor(settings: S3ObjectStoreSettings) {
    this.partSize = settings.partSize ?? PART_SIZE;
    this.partsInFlight = settings.partsInFlight ?? PARTS_IN_FLIGHT;
    this.bucket = settings.bucket;
    this.listPageSize = settings.listPageSize;
    this.deleteBatchSize = Math.min(settings.deleteBatchSize ?? DELETE_BATCH, DELETE_BATCH);
    this.client = createS3Client(settings);
  }

  async ensureBucket(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      return;
    } catch (err) {
      if (!isStatus404(err)) throw err;
    }
    try {
      await this.client.send(new CreateBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      // Another daemon starting at the same moment created it first.
      if ((err as Error).name !== 'BucketAlreadyOwnedByYou' && (err as Error).name !== 'BucketAlreadyExists') throw err;
    }
  }

  put(key: string, body: Readable, options: PutOptions): Promise<StoredObject> {
    return putObject(
      { client: this.client, bucket: this.bucket, key, partSize: this.partSize, partsInFlight: this.partsInFlight },
      body,
      options,
    );
  }

  async get(key: string, range?: { start: number; end: number }): Promise<Readable> {
    try {
      const result = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      );
      return result.Body as Readable;
    } catch (err) {
      if (isNoSuchKey(err)) throw new ObjectMissing(key);
      throw asStoreFailure(err);
    }
  }

  async head(key: string): Promise<StoredObject | null> {
    try {
      const result = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: result.ContentLength ?? 0, etag: result.ETag ?? '', lastModified: result.LastModified ?? new Date(0) };
    } catch (err) {
      // HEAD answers carry no error code: a 404 is the object's absence (a missing bucket
      // shows in check()).
      if (isStatus404(err)) return null;
      throw asStoreFailure(err);
    }
  }

  async copy(from: string, to: string): Promise<StoredObject> {
    try {
      await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: to, CopySource: `${this.bucket}/${encodeKey(from)}` }));
    } catch (err) {
      if (isNoSuchKey(err)) throw new ObjectMissing(from);
      throw asStoreFailure(err);
    }
    // CopyObject's answer has no size: ask for the new object's metadata.
    const copied = await this.head(to);
    if (!copied) throw new ObjectMissing(to);
    return copied;
  }

  async delete(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += this.deleteBatchSize) {
      const batch = keys.slice(i, i + this.deleteBatchSize);
      const result = await this.client.send(
        new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
      );
      const errors = (result.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (errors.length > 0) {
        throw new Error(`Could not delete ${errors.length} object(s), e.g. ${errors[0].Key}: ${errors[0].Code} ${errors[0].Message ?? ''}`);
      }
    }
  }

  async *list(prefix: string): AsyncIterable<{ key: string } & StoredObject> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token, MaxKeys: this.listPageSize }),
      );
      for (const item of page.Contents ?? []) {
        if (item.Key === undefined) continue;
        yield { key: item.Key, size: item.Size ?? 0, etag: item.ETag ?? '', lastModified: item.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  listOpenUploads(prefix: string): AsyncIterable<OpenUpload> {
    return listOpenUploads(this.client, this.bucket, prefix);
  }

  lastPartAt(upload: OpenUpload): Promise<Date | null> {
    return lastPartAt(this.client, this.bucket, upload);
  }

  abortOpenUpload(upload: OpenUpload): Promise<void> {
    return abortOpenUpload(this.client, this.bucket, upload);
  }

  beginParts(key: string): Promise<string> {
    return beginParts(this.client, this.bucket, key).catch((err: unknown) => Promise.reject(asStoreFailure(err)));
  }

  putPart(upload: { key: string; uploadId: string }, number: number, bytes: Buffer): Promise<string> {
    return putPart(this.client, this.bucket, upload, number, bytes).catch((err: unknown) => Promise.reject(asStoreFailure(err)));
  }

  completeParts(upload: { key: string; uploadId: string }, parts: { number: number; etag: string }[]): Promise<void> {
    // Not a store failure when the upload is gone (completed before, or aborted): the caller asks the bucket what is there.
    return completeParts(this.client, this.bucket, upload, parts).catch((err: unknown) =>
      Promise.reject((err as Error).name === 'NoSuchUpload' ? err : asStoreFailure(err)),
    );
  }

  async check(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
  }

  close(): void {
    this.client.destroy();
  }
}

function isNoSuchKey(err: unknown): boolean {
  return (err as Error)?.name === 'NoSuchKey';
}

function isStatus404(err: unknown): boolean {
  return (err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode === 404;
}

/** CopySource is a URL path: each segment encoded, the slashes kept. */
function encodeKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}
