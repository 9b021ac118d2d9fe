/**
 * The multipart uploads a bucket holds open (S3's ListMultipartUploads / AbortMultipartUpload,
 * which Swift's s3api supports): a put that failed aborts its own, and the sweeper aborts
 * those a killed daemon left (their parts are kept, and billed, until aborted; ListObjects
 * never shows them).
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { OpenUpload } from './object-store.js';

/** Every multipart upload open under `prefix`, page by page. */
export async function* listOpenUploads(client: S3Client, bucket: string, prefix: string): AsyncIterable<OpenUpload> {
  let keyMarker: string | undefined;
  let uploadIdMarker: string | undefined;
  for (;;) {
    const page = await client.send(
      new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }),
    );
    for (const upload of page.Uploads ?? []) {
      if (upload.Key === undefined || upload.UploadId === undefined) continue;
      yield { key: upload.Key, uploadId: upload.UploadId, initiated: upload.Initiated ?? new Date(0) };
    }
    if (!page.IsTruncated) return;
    keyMarker = page.NextKeyMarker;
    uploadIdMarker = page.NextUploadIdMarker;
  }
}

/** When the upload's newest part arrived (null: none yet), over every page of its parts. */
export async function lastPartAt(client: S3Client, bucket: string, upload: { key: string; uploadId: string }): Promise<Date | null> {
  let newest: Date | null = null;
  let marker: string | undefined;
  for (;;) {
    const page = await client.send(
      new ListPartsCommand({ Bucket: bucket, Key: upload.key, UploadId: upload.uploadId, PartNumberMarker: marker }),
    );
    for (const part of page.Parts ?? []) {
      if (part.LastModified && (newest === null || part.LastModified > newest)) newest = part.LastModified;
    }
    if (!page.IsTruncated) return newest;
    marker = page.NextPartNumberMarker;
  }
}

/** Aborts one; an upload completed or aborted meanwhile (its put's safety net, another sweeper) is not an error. */
export async function abortOpenUpload(client: S3Client, bucket: string, upload: { key: string; uploadId: string }): Promise<void> {
  try {
    await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.key, UploadId: upload.uploadId }));
  } catch (err) {
    const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if ((err as Error).name !== 'NoSuchUpload' && status !== 404) throw err;
  }
}

/** A safety net after a failed put: keys are new ids, so any multipart upload under this key is that put's. */
export async function abortUploadsOf(client: S3Client, bucket: string, key: string): Promise<void> {
  for await (const upload of listOpenUploads(client, bucket, key)) {
    if (upload.key === key) await abortOpenUpload(client, bucket, upload);
  }
}

/** A multipart upload whose parts arrive one request at a time (a resumable upload across daemons): its id. */
export async function beginParts(client: S3Client, bucket: string, key: string): Promise<string> {
  const begun = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: 'application/octet-stream' }));
  if (!begun.UploadId) throw new Error(`The bucket began no multipart upload for ${key}`);
  return begun.UploadId;
}

/** One part of it; its ETag. */
export async function putPart(
  client: S3Client,
  bucket: string,
  upload: { key: string; uploadId: string },
  number: number,
  bytes: Buffer,
): Promise<string> {
  const put = await client.send(
    new UploadPartCommand({
      Bucket: bucket,
      Key: upload.key,
      UploadId: upload.uploadId,
      PartNumber: number,
      Body: bytes,
      ContentLength: bytes.length,
    }),
  );
  if (!put.ETag) throw new Error(`The bucket answered part ${number} of ${upload.key} with no ETag`);
  return put.ETag;
}

/** Completes it from the parts named (ascending numbers; the bucket checks each ETag). */
export async function completeParts(
  client: S3Client,
  bucket: string,
  upload: { key: string; uploadId: string },
  parts: { number: number; etag: string }[],
): Promise<void> {
  await client.send(
    new CompleteMultipartUploadCommand({
      Bucket: bucket,
      Key: upload.key,
      UploadId: upload.uploadId,
      MultipartUpload: { Parts: parts.map((p) => ({ PartNumber: p.number, ETag: p.etag })) },
    }),
  );
}
