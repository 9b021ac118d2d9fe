/**
 * A daemon's start waits for its bucket while the S3 server is still starting
 * (daemon/storage/objects/bucket-at-start.ts): the run's real Swift, reached through a TCP proxy
 * that drops every connection until it is mended, as a server not yet listening does. A wrong
 * key ends the start at once.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ensureBucketAtStart, mayPassLater } from '../../daemon/storage/objects/bucket-at-start.js';
import { S3ObjectStore } from '../../daemon/storage/objects/s3-store.js';
import { sharedS3 } from '../helpers/engines.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

let proxy: TcpProxy | null = null;
afterEach(async () => {
  await proxy?.close();
  proxy = null;
});

async function storeThroughProxy(secret?: string): Promise<S3ObjectStore> {
  const s3 = await sharedS3();
  const target = new URL(s3.endpoint);
  proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) });
  return new S3ObjectStore({
    ...s3,
    secretAccessKey: secret ?? s3.secretAccessKey,
    endpoint: `http://127.0.0.1:${proxy.port}`,
    forcePathStyle: true,
    bucket: `nimbus-start-${Date.now().toString(16)}`,
  });
}

describe('the bucket at start', () => {
  it('waits while the S3 server drops connections, says so once, and starts when it answers', async () => {
    const objects = await storeThroughProxy();
    proxy!.cut();
    const lines: string[] = [];
    const started = ensureBucketAtStart(objects, (line) => lines.push(line), 30_000);
    await vi.waitFor(() => expect(lines[0]).toMatch(/the bucket does not answer yet .*trying again for up to 30 s/), { timeout: 10_000 });
    proxy!.mend();
    await started;
    expect(lines.slice(1)).toEqual(['Nimbus: the bucket answers now; starting.']);
    await objects.check();
    objects.close();
  });

  it('gives up after its wait, with the last failure', async () => {
    const objects = await storeThroughProxy();
    proxy!.cut();
    await expect(ensureBucketAtStart(objects, () => undefined, 1_000)).rejects.toThrow();
    objects.close();
  });

  it('ends the start at once on an answer that names a mistake (a wrong key: 403)', async () => {
    const objects = await storeThroughProxy('not-the-secret');
    const lines: string[] = [];
    const failure = await ensureBucketAtStart(objects, (line) => lines.push(line), 30_000).catch((err: unknown) => err);
    expect(mayPassLater(failure)).toBe(false);
    // Not one wait: a wait is said in the log.
    expect(lines).toEqual([]);
    objects.close();
  });

  it('counts no answer and a 5xx as passing later, a 4xx as not', () => {
    expect(mayPassLater(new Error('connect ECONNREFUSED'))).toBe(true);
    expect(mayPassLater(Object.assign(new Error('Please reduce your request rate.'), { $metadata: { httpStatusCode: 503 } }))).toBe(true);
    expect(mayPassLater(Object.assign(new Error('UnknownError'), { $metadata: { httpStatusCode: 500 } }))).toBe(true);
    expect(mayPassLater(Object.assign(new Error('AccessDenied'), { $metadata: { httpStatusCode: 403 } }))).toBe(false);
  });
});
