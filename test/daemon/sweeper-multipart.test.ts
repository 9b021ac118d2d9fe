/**
 * Incomplete multipart uploads of killed uploads (issue 23): a daemon SIGKILLed while it
 * streams a multi-part body to the bucket leaves the multipart upload open in Swift (its parts
 * kept, billed, invisible to ListObjects). The sweeper's leader aborts those initiated longer
 * ago than the orphan age, and leaves alone a younger one and an older one still given parts
 * (other daemons' uploads in flight).
 */
import {
  AbortMultipartUploadCommand,
  CreateMultipartUploadCommand,
  ListMultipartUploadsCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Sweeper } from '../../daemon/storage/cluster/sweeper.js';
import { S3ObjectStore } from '../../daemon/storage/objects/s3-store.js';
import { Store } from '../../daemon/store/store.js';
import { childEnv, spawnDaemon, type CliRun } from '../helpers/child.js';
import { bucketOf, type Bucket } from '../helpers/cluster.js';
import { TEST_KEY } from '../helpers/daemon.js';
import { clusterEnv } from '../helpers/engines.js';

const MIB = 1024 * 1024;
/** The sweeper's orphan age in this test; the killed upload is waited on until twice as old. */
const AGE_MS = 5_000;

let env: Record<string, string>;
let dataDir = '';
let daemon: (CliRun & { url: string }) | undefined;
let bucket: Bucket;
let store: Store | undefined;

async function openUploads(): Promise<{ key: string; uploadId: string; initiated: Date }[]> {
  const listed = await bucket.client.send(new ListMultipartUploadsCommand({ Bucket: bucket.name }));
  return (listed.Uploads ?? []).map((u) => ({ key: u.Key!, uploadId: u.UploadId!, initiated: u.Initiated! }));
}

beforeAll(async () => {
  env = await clusterEnv();
  bucket = bucketOf(env);
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-multipart-'));
  daemon = await spawnDaemon(dataDir, childEnv({ ...env, NIMBUS_API_KEY: TEST_KEY, NIMBUS_KEYCHAIN: 'off' }));
  const created = await fetch(`${daemon.url}/api/user/create?username=ana&email=ana%40example.com&password=password123`, {
    method: 'POST',
    headers: { 'API-Key': TEST_KEY },
  });
  expect(created.status, await created.text()).toBe(201);
}, 120_000);

afterAll(async () => {
  if (daemon && daemon.child.exitCode === null && daemon.child.signalCode === null) {
    daemon.child.kill('SIGKILL');
    await daemon.exited;
  }
  await store?.close();
  bucket?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('the sweeper and incomplete multipart uploads', () => {
  it('aborts the upload a SIGKILLed daemon left open, not one begun since nor one still given parts', async () => {
    const a = daemon!;
    // 12 MiB declared, 7 sent (more than one 5 MiB part), then the body waits: A is mid-upload.
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent >= 7 * MIB) await new Promise(() => undefined);
        controller.enqueue(new Uint8Array(randomBytes(MIB)));
        sent += MIB;
      },
    });
    const cut = fetch(`${a.url}/api/files/upload?username=ana&file=cut.bin`, {
      method: 'POST',
      headers: { 'API-Key': TEST_KEY, 'Content-Length': String(12 * MIB) },
      body,
      duplex: 'half',
    } as RequestInit).catch((err: Error) => err);
    await vi.waitFor(async () => expect(await openUploads()).toHaveLength(1), { timeout: 30_000, interval: 100 });
    a.child.kill('SIGKILL');
    expect(await a.exited).toBe('SIGKILL');
    await cut;
    const [left] = await openUploads();
    expect(left.key).toMatch(/^files\//);
    // A long upload of another daemon, begun as long ago, that is still sending parts: it must stay.
    const slowKey = `files/${randomBytes(16).toString('hex')}`;
    const slow = await bucket.client.send(new CreateMultipartUploadCommand({ Bucket: bucket.name, Key: slowKey }));

    // The sweeper of another daemon, made now so that the sweep below follows the young upload at once.
    store = await Store.openPostgres(env.NIMBUS_DATABASE_URL);
    const objects = new S3ObjectStore({
      endpoint: env.NIMBUS_S3_ENDPOINT,
      region: env.NIMBUS_S3_REGION,
      accessKeyId: env.NIMBUS_S3_ACCESS_KEY_ID,
      secretAccessKey: env.NIMBUS_S3_SECRET_ACCESS_KEY,
      forcePathStyle: true,
      bucket: env.NIMBUS_S3_BUCKET,
    });
    const lines: string[] = [];
    const sweeper = new Sweeper({ objects, store, database: store.database, log: (l) => lines.push(l), minAgeMs: AGE_MS });

    // Old enough by the bucket's own clock (Initiated is Swift's), with a margin of the age itself.
    await vi.waitFor(async () => expect(Date.now() - left.initiated.getTime()).toBeGreaterThan(2 * AGE_MS), {
      timeout: 30_000,
      interval: 200,
    });
    await bucket.client.send(
      new UploadPartCommand({ Bucket: bucket.name, Key: slowKey, UploadId: slow.UploadId, PartNumber: 1, Body: Buffer.alloc(1024) }),
    );
    // Another daemon's upload that has just begun: younger than the age, it must stay.
    const youngKey = `files/${randomBytes(16).toString('hex')}`;
    const young = await bucket.client.send(new CreateMultipartUploadCommand({ Bucket: bucket.name, Key: youngKey }));

    try {
      expect(await sweeper.sweep()).toMatchObject({ ran: true });
    } finally {
      objects.close();
    }
    expect((await openUploads()).map((u) => u.key).sort()).toEqual([slowKey, youngKey].sort());
    expect(lines.join('\n')).toMatch(/aborted 1 incomplete multipart upload/);
    await bucket.client.send(new AbortMultipartUploadCommand({ Bucket: bucket.name, Key: youngKey, UploadId: young.UploadId }));
    await bucket.client.send(new AbortMultipartUploadCommand({ Bucket: bucket.name, Key: slowKey, UploadId: slow.UploadId }));
  }, 120_000);
});
