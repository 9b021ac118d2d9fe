/**
 * The bucket goes away and comes back under a cluster daemon (issue 23, items 2 and 4;
 * docs/scaling.md, "When something fails"): every request that needs the object store
 * answers 503 `storage_unavailable` with Retry-After and a JSON body — a download, a share
 * link, a zip and a thumbnail before their first byte, an upload, a copy (of a file or a folder) — and is logged at
 * error; an upload leaves no row and holds no quota. Once the bucket is back, all work again.
 * The daemon reaches the shared Swift through a TCP proxy the test cuts (the shared Swift
 * itself keeps serving the other test files).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser, startTestDaemon, upload, type ApiResponse, type TestDaemon } from '../helpers/daemon.js';
import { sharedS3 } from '../helpers/engines.js';
import { slowUpload } from '../helpers/slow-upload.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const KIB = 1024;
const MIB = 1024 * KIB;
/** A 1x1 RGB PNG (a thumbnail's source). */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC', 'base64');

let t: TestDaemon;
let proxy: TcpProxy;
let shareLink: string;

beforeAll(async () => {
  const s3 = await sharedS3();
  const endpoint = new URL(s3.endpoint);
  proxy = await startTcpProxy({ host: endpoint.hostname, port: Number(endpoint.port) });
  endpoint.port = String(proxy.port);
  t = await startTestDaemon({ backend: 'cluster', env: { NIMBUS_S3_ENDPOINT: endpoint.origin } });
  // A quota of 1 MiB: an upload's reservation still held would refuse the next one.
  await t.api('POST', '/api/role/create', { name: 'small', maxStorage: '1', badge: 'https://example.com/s.png' });
  await createUser(t, 'ana');
  await t.api('POST', '/api/user/role', { username: 'ana', name: 'small' });
  await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'docs' });
  await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'into' });
  await upload(t, 'ana', 'kept.txt', 'kept bytes');
  await upload(t, 'ana', 'picture.png', PNG);
  await upload(t, 'ana', 'inside.bin', 'inside bytes', { folder: 'docs' });
  const shared = await t.api('POST', '/api/files/share', { username: 'ana', file: 'kept.txt' });
  expect(shared.status, shared.text).toBe(201);
  shareLink = new URL(shared.body.file.shareUrl as string).pathname;
}, 120_000);

afterAll(async () => {
  await t?.close();
  await proxy?.close();
});

type LogLine = { level: string; url?: string; status?: number; reqId?: string };
const requestLines = async (): Promise<LogLine[]> =>
  (await readFile(path.join(t.dataDir, 'logs', 'nimbus.log'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as LogLine)
    .filter((line) => line.reqId !== undefined);

/** A 503 storage_unavailable with Retry-After and a JSON body, logged at error. */
async function expectUnavailable(res: ApiResponse): Promise<void> {
  expect(res.status, res.text).toBe(503);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body.code).toBe('storage_unavailable');
  expect(res.body.error).toEqual(expect.any(String));
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  const id = res.headers.get('x-request-id');
  await vi.waitFor(
    async () => expect((await requestLines()).find((line) => line.reqId === id)).toMatchObject({ level: 'error', status: 503 }),
    {
      timeout: 5000,
    },
  );
}

const download = (file: string, folder?: string) =>
  t.api('GET', '/api/files/download', { username: 'ana', file, ...(folder ? { folder } : {}) });
const names = async () => ((await t.api('GET', '/api/files', { username: 'ana' })).body.files as { name: string }[]).map((f) => f.name);

describe('a cluster daemon with its bucket unreachable', () => {
  beforeAll(() => proxy.cut());
  afterAll(() => proxy.mend());

  it('answers a download 503 storage_unavailable with Retry-After, never an empty reply, and logs it at error', async () => {
    await expectUnavailable(await download('kept.txt'));
    // A range too: the first read is the ranged one.
    await expectUnavailable(
      await t.api('GET', '/api/files/download', { username: 'ana', file: 'kept.txt' }, { headers: { Range: 'bytes=2-5' } }),
    );
  });

  it('still answers a HEAD of a file, which reads no bytes', async () => {
    const head = await t.api('HEAD', '/api/files/download', { username: 'ana', file: 'kept.txt' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String('kept bytes'.length));
  });

  it('answers a share link 503 the same', async () => {
    await expectUnavailable(await t.raw('GET', `${shareLink}?download=true`, { key: null }));
  });

  it('answers a zip whose first file cannot be read 503, before its first byte', async () => {
    await expectUnavailable(await t.api('GET', '/api/folders/download', { username: 'ana', folder: 'docs' }));
  });

  it('answers a thumbnail of an object 503', async () => {
    await expectUnavailable(await t.api('GET', '/api/files/thumbnail', { username: 'ana', file: 'picture.png' }));
  });

  it('answers an upload 503 (not 400), leaving no row and holding no quota', async () => {
    const res = await t.api('POST', '/api/files/upload', { username: 'ana', file: 'during.bin' }, { body: new Uint8Array(700 * KIB) });
    await expectUnavailable(res);
    expect(await names()).not.toContain('during.bin');
  });

  it('answers a copy 503 (not 500), leaving no row', async () => {
    const res = await t.api('POST', '/api/files/copy', { username: 'ana', file: 'kept.txt', to: 'docs' });
    await expectUnavailable(res);
    const inDocs = await t.api('GET', '/api/files', { username: 'ana', folder: 'docs' });
    expect((inDocs.body.files as { name: string }[]).map((f) => f.name)).toEqual(['inside.bin']);
  });

  it('answers a folder copy 503, leaving no row and holding no quota', async () => {
    const res = await t.api('POST', '/api/folders/copy', { username: 'ana', folder: 'docs', to: 'into' });
    await expectUnavailable(res);
    expect((await t.api('GET', '/api/folders', { username: 'ana', folder: 'into' })).body.folders).toEqual([]);
  });

  it('keeps answering what needs no bucket: listings and renames', async () => {
    expect(await names()).toEqual(expect.arrayContaining(['kept.txt', 'picture.png']));
    const renamed = await t.api('POST', '/api/files/rename', { username: 'ana', file: 'picture.png', newname: 'photo.png' });
    expect(renamed.status, renamed.text).toBe(201);
  });
});

describe('a bucket cut in the middle of an upload', () => {
  it('answers 503 storage_unavailable (the store failed, not the client) and leaves no row', async () => {
    await createUser(t, 'bo');
    const size = 12 * MIB;
    const up = slowUpload(t.port, t.key, { username: 'bo', file: 'cut.bin' }, size);
    // Past the first 5 MiB part: the multipart upload is under way when the bucket goes.
    await up.write(Buffer.alloc(6 * MIB, 1));
    proxy.cut();
    try {
      up.end(Buffer.alloc(size - 6 * MIB, 2));
      const res = await up.response;
      expect(res.status, res.text).toBe(503);
      expect(JSON.parse(res.text).code).toBe('storage_unavailable');
    } finally {
      proxy.mend();
    }
    const listed = await t.api('GET', '/api/files', { username: 'bo' });
    expect(listed.body.files).toEqual([]);
  });
});

describe('a bucket lost in the middle of a copy', () => {
  it('answers 503 storage_unavailable (not 400 or 500) and leaves no row', async () => {
    await createUser(t, 'co');
    await t.api('POST', '/api/folders/create', { username: 'co', folder: 'to' });
    await upload(t, 'co', 'big.bin', Buffer.alloc(24 * MIB, 3));
    // A copy reads the source from the bucket and writes the copy to it: cut a third of the way through the read.
    proxy.cutAfter(8 * MIB);
    try {
      const res = await t.api('POST', '/api/files/copy', { username: 'co', file: 'big.bin', to: 'to' });
      expect(res.status, res.text).toBe(503);
      expect(res.body.code).toBe('storage_unavailable');
    } finally {
      proxy.mend();
    }
    expect((await t.api('GET', '/api/files', { username: 'co', folder: 'to' })).body.files).toEqual([]);
  });
});

describe('a bucket lost while a zip streams', () => {
  it('cuts the connection: the client sees a truncated zip, never a clean end', async () => {
    // Far more than the socket buffers between a paused client and the daemon hold: the first
    // file cannot be read to its end, nor the second opened, before the bucket is cut.
    await createUser(t, 'zo');
    await upload(t, 'zo', 'a.bin', Buffer.alloc(24 * MIB, 7));
    await upload(t, 'zo', 'b.bin', 'second');
    const res = await fetch(`${t.url}/api/folders/download?username=zo&files=a.bin/b.bin`, { headers: { 'API-Key': t.key } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let received = (await reader.read()).value?.length ?? 0;
    proxy.cut();
    try {
      const rest = (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return 'ended';
          received += value.length;
        }
      })();
      await expect(rest).rejects.toThrow();
      expect(received).toBeLessThan(24 * MIB);
    } finally {
      proxy.mend();
    }
  });
});

describe('once the bucket is back', () => {
  it('downloads, shares, zips, thumbnails, uploads and copies work again', async () => {
    const got = await vi.waitFor(
      async () => {
        const res = await download('kept.txt');
        expect(res.status).toBe(200);
        return res;
      },
      { timeout: 20_000, interval: 200 },
    );
    expect(got.text).toBe('kept bytes');
    const linked = await t.raw('GET', `${shareLink}?download=true`, { key: null });
    expect(linked.status).toBe(200);
    expect(linked.text).toBe('kept bytes');
    const zip = await fetch(`${t.url}/api/folders/download?username=ana&folder=docs`, { headers: { 'API-Key': t.key } });
    expect(zip.status).toBe(200);
    expect(Buffer.from(await zip.arrayBuffer()).includes(Buffer.from('inside bytes'))).toBe(true);
    const thumb = await fetch(`${t.url}/api/files/thumbnail?username=ana&file=photo.png`, { headers: { 'API-Key': t.key } });
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('content-type')).toBe('image/webp');
    // 700 KiB more fits the 1 MiB quota only if the failed upload's reservation was released.
    await upload(t, 'ana', 'after.bin', Buffer.alloc(700 * KIB));
    const copied = await t.api('POST', '/api/files/copy', { username: 'ana', file: 'kept.txt', to: 'docs' });
    expect(copied.status, copied.text).toBe(201);
    expect((await download('kept.txt', 'docs')).text).toBe('kept bytes');
    const folderCopied = await t.api('POST', '/api/folders/copy', { username: 'ana', folder: 'docs', to: 'into' });
    expect(folderCopied.status, folderCopied.text).toBe(201);
    expect((await download('inside.bin', 'into/docs')).text).toBe('inside bytes');
  });
});
