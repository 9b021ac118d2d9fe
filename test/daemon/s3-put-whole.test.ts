/**
 * S3ObjectStore.put of a body declared to fit in one part (daemon/storage/objects/s3-put.ts),
 * against the shared Swift: the bytes, onBytes' totals, a body longer than declared still
 * stored whole, and a refusal or a failing source leaving nothing behind.
 */
import { ListMultipartUploadsCommand, type S3Client } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Client } from '../../daemon/storage/objects/s3-client.js';
import { S3ObjectStore } from '../../daemon/storage/objects/s3-store.js';
import { sharedS3 } from '../helpers/engines.js';

const MiB = 1024 * 1024;
/** Small parts, so that "longer than a part" is a few MiB (S3's least part is 5 MiB). */
const PART = 5 * MiB;

let bucket: string;
let store: S3ObjectStore;
let raw: S3Client;

beforeAll(async () => {
  const engine = await sharedS3();
  bucket = await engine.createBucket();
  store = new S3ObjectStore({ ...engine, bucket, forcePathStyle: true, partSize: PART });
  raw = createS3Client({ ...engine, forcePathStyle: true });
}, 120_000);

afterAll(() => {
  store?.close();
  raw?.destroy();
});

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const chunksOf = (bytes: Buffer, size: number) =>
  Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));

async function multipartUploadsLeft(): Promise<number> {
  const listed = await raw.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
  return (listed.Uploads ?? []).length;
}

describe('S3ObjectStore.put of a body declared to fit in a part', () => {
  it('stores the bytes of many chunks, onBytes counting up to the size', async () => {
    const bytes = randomBytes(300_000);
    const seen: number[] = [];
    const put = await store.put('files/declared', Readable.from(chunksOf(bytes, 16_384)), {
      contentType: 'application/octet-stream',
      expectedBytes: bytes.length,
      onBytes: (n) => seen.push(n),
    });
    expect(put).toMatchObject({ size: bytes.length, etag: expect.stringMatching(/^".+"$/) });
    expect(seen.at(-1)).toBe(bytes.length);
    expect(seen).toEqual([...new Set(seen)].sort((a, b) => a - b));
    expect(await store.head('files/declared')).toMatchObject({ size: bytes.length, etag: put.etag });
    expect(sha256(await readAll(await store.get('files/declared')))).toBe(sha256(bytes));
  });

  it('a body longer than declared, past a part, is stored whole through parts, each total counted once', async () => {
    const bytes = randomBytes(PART * 2 + 12_345);
    const seen: number[] = [];
    const put = await store.put('files/longer', Readable.from(chunksOf(bytes, MiB)), {
      contentType: 'application/octet-stream',
      expectedBytes: 4096,
      onBytes: (n) => seen.push(n),
    });
    expect(put.size).toBe(bytes.length);
    expect(seen.at(-1)).toBe(bytes.length);
    // Strictly rising: the bytes read before the switch to parts are not counted again.
    expect(seen).toEqual([...new Set(seen)].sort((a, b) => a - b));
    expect(sha256(await readAll(await store.get('files/longer')))).toBe(sha256(bytes));
    expect(await multipartUploadsLeft()).toBe(0);
  });

  it('onBytes refusing rejects put with its error, stops the source, and stores nothing', async () => {
    const quota = new Error('over quota');
    const source = Readable.from(chunksOf(randomBytes(64 * 1024), 8192));
    await expect(
      store.put('files/refused', source, {
        contentType: 'application/octet-stream',
        expectedBytes: 64 * 1024,
        onBytes: (n) => {
          if (n > 20_000) throw quota;
        },
      }),
    ).rejects.toBe(quota);
    expect(source.destroyed).toBe(true);
    expect(await store.head('files/refused')).toBeNull();
  });

  it('a source failing before its end rejects put with its error and stores nothing', async () => {
    const broken = new Error('client went away');
    let sent = 0;
    const source = new Readable({
      read() {
        if (sent >= 3) return void this.destroy(broken);
        sent++;
        this.push(randomBytes(4096));
      },
    });
    await expect(store.put('files/broken', source, { contentType: 'application/octet-stream', expectedBytes: 65_536 })).rejects.toBe(
      broken,
    );
    expect(await store.head('files/broken')).toBeNull();
  });
});
