/**
 * The S3 client every S3 user in Nimbus builds (the object store, the test engines): the
 * AWS SDK with the settings an S3 server that is not AWS needs (measured against OpenStack
 * Swift's s3api, docs/cluster.md):
 * - checksums only when an operation requires them: by default the SDK streams uploads as
 *   `aws-chunked` with trailing CRC32s, which Swift (and Ceph, older MinIO) refuse;
 * - a Content-MD5 header on DeleteObjects: the SDK (≥ 3.729) sends only a CRC32 there, and
 *   servers implementing the older S3 contract reject a batch delete without an MD5.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';

export interface S3Settings {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** `http://host/bucket/key` instead of `http://bucket.host/key` (Swift, MinIO: true). */
  forcePathStyle?: boolean;
  /** How long a connection may take to open, and a socket may stay silent (tests shorten them). */
  timeouts?: { connectMs: number; idleMs: number };
}

/**
 * Without these the SDK waits forever: a bucket that accepts a connection and then says
 * nothing (a stopped server behind a proxy) held an upload open until its client left. A
 * minute of silence is long enough for a client that reads a download slowly (the S3 stream
 * waits on it) and short enough that a stuck request ends in a 503 the client can retry.
 */
const DEFAULT_TIMEOUTS = { connectMs: 5_000, idleMs: 60_000 };

export function createS3Client(settings: S3Settings): S3Client {
  const timeouts = settings.timeouts ?? DEFAULT_TIMEOUTS;
  const client = new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle ?? true,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: timeouts.connectMs, socketTimeout: timeouts.idleMs },
  });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const request = args.request as { body?: unknown; headers?: Record<string, string> };
      if (
        context.commandName === 'DeleteObjectsCommand' &&
        request.headers &&
        (typeof request.body === 'string' || request.body instanceof Uint8Array)
      ) {
        request.headers['content-md5'] = createHash('md5').update(request.body).digest('base64');
      }
      return next(args);
    },
    { step: 'build', name: 'nimbusDeleteObjectsContentMd5', priority: 'low' },
  );
  return client;
}
