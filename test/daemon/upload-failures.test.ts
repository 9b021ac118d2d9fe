/**
 * Every way an upload can fail leaves nothing in `<dataDir>/tmp`, a refused target is
 * refused before the body is read, and names that merely start with ".." are ordinary.
 */
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { onDisk } from '../helpers/backend.js';
import { createUser, startTestDaemon, storedBytes, storedNames, upload, type TestDaemon } from '../helpers/daemon.js';
import { rawRequest } from '../helpers/raw-http.js';
import { slowUpload } from '../helpers/slow-upload.js';

let t: TestDaemon;
const tempFiles = () => readdir(path.join(t.dataDir, 'tmp')).catch(() => [] as string[]);
const expectNoTemp = () => vi.waitFor(async () => expect(await tempFiles()).toEqual([]), { timeout: 5000 });

beforeAll(async () => {
  t = await startTestDaemon();
  await t.api('POST', '/api/role/create', { name: 'small', maxStorage: '1', badge: 'https://example.com/s.png' });
  await createUser(t, 'ana');
  await createUser(t, 'tiny');
  await t.api('POST', '/api/user/role', { username: 'tiny', name: 'small' });
  await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'docs' });
  await upload(t, 'ana', 'taken.txt', 'first');
});
afterAll(() => t.close());

describe('a failing upload leaves no temp file', () => {
  const refusedKinds: [string, Record<string, string>, number][] = [
    ['a bad name', { username: 'ana', file: '../x' }, 400],
    ['a missing user', { username: 'nobody', file: 'a.txt' }, 404],
    ['a missing folder', { username: 'ana', folder: 'nope', file: 'a.txt' }, 404],
    ['an existing file without overwrite', { username: 'ana', file: 'taken.txt' }, 409],
  ];
  for (const [kind, params, status] of refusedKinds) {
    it(`${kind}: answered before the body is sent, no temp file`, async () => {
      const up = slowUpload(t.port, t.key, params, 1024 * 1024);
      await up.write(Buffer.alloc(1024, 97));
      // The rest of the body is never sent: the answer must not wait for it.
      const res = await up.response;
      up.abort();
      expect(res.status).toBe(status);
      await expectNoTemp();
    });
  }

  // A directory another program made in the storage folder: only an embedded daemon has one.
  onDisk(() => {
    it('a name that is a directory on disk (not in the index) is a 409 and its temp file is removed', async () => {
      await mkdir(path.join(t.storageDir, 'ana', 'sneaky'));
      const res = await t.api('POST', '/api/files/upload', { username: 'ana', file: 'sneaky' }, { body: 'payload' });
      expect(res.status).toBe(409);
      await expectNoTemp();
    });
  });

  it('a declared length over the quota is a 507 before the body is read', async () => {
    const up = slowUpload(t.port, t.key, { username: 'tiny', file: 'big.bin' }, 2 * 1024 * 1024);
    await up.write(Buffer.alloc(1024, 97));
    const res = await up.response;
    up.abort();
    expect(res.status).toBe(507);
    await expectNoTemp();
  });

  it('a chunked body that grows past the quota is a 507', async () => {
    const up = slowUpload(t.port, t.key, { username: 'tiny', file: 'big.bin' }, null);
    void (async () => {
      for (let i = 0; i < 40; i++) await up.write(Buffer.alloc(64 * 1024, 97));
      up.end();
    })();
    expect((await up.response).status).toBe(507);
    await expectNoTemp();
  });

  it('a body shorter than its Content-Length (the client goes away) leaves no temp file', async () => {
    const up = slowUpload(t.port, t.key, { username: 'ana', file: 'short.bin' }, 100_000);
    await up.write(Buffer.alloc(50_000, 97));
    up.abort();
    await expectNoTemp();
    expect((await t.api('GET', '/api/files', { username: 'ana' })).body.files.map((f: { name: string }) => f.name)).not.toContain(
      'short.bin',
    );
  });

  it('a body that ends early (half-closed socket) is a 400 or a dropped connection, and no temp file', async () => {
    const head = `POST /api/files/upload?username=ana&file=half.bin HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\nAPI-Key: ${t.key}\r\nContent-Length: 1000\r\n\r\n`;
    await rawRequest(t.port, head + 'x'.repeat(10), { endAfterWrite: true }).catch(() => null);
    await expectNoTemp();
  });

  it('a body longer than its Content-Length (the rest is a garbage next request) leaves no temp file', async () => {
    const head = `POST /api/files/upload?username=ana&file=long.bin HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\nAPI-Key: ${t.key}\r\nContent-Length: 5\r\n\r\n`;
    const res = await rawRequest(t.port, head + 'x'.repeat(50));
    // Node may answer the garbage with its own 400 first; either way no temp file stays.
    expect([201, 400]).toContain(res.status);
    await expectNoTemp();
  });
});

describe('uploads past the writeback step (an fdatasync every 64 MiB while the body streams)', () => {
  const MIB = 1024 * 1024;
  // Each on a user of its own: both sizes fit the user role's 128 MiB quota, not together
  // (a deleted file stays counted in the trash).
  beforeAll(async () => {
    await createUser(t, 'bulk');
    await createUser(t, 'gone');
  });
  /** 1 MiB pieces that differ from each other, so a piece written twice or out of place shows. */
  const piece = (i: number) => Buffer.alloc(MIB, `piece ${i} `);

  it('keep every byte, in order', async () => {
    const pieces = 80;
    const up = slowUpload(t.port, t.key, { username: 'bulk', file: 'big-sync.bin' }, pieces * MIB);
    for (let i = 0; i < pieces; i++) await up.write(piece(i));
    up.end();
    expect((await up.response).status).toBe(201);
    const stored = await storedBytes(t, 'bulk', 'big-sync.bin');
    expect(stored.length).toBe(pieces * MIB);
    for (let i = 0; i < pieces; i++) expect(stored.subarray(i * MIB, (i + 1) * MIB).equals(piece(i)), `piece ${i}`).toBe(true);
    await expectNoTemp();
  });

  it('a client that goes away after a sync started leaves no temp file and no file', async () => {
    const up = slowUpload(t.port, t.key, { username: 'gone', file: 'gone-sync.bin' }, 100 * MIB);
    for (let i = 0; i < 70; i++) await up.write(piece(i));
    up.abort();
    await expectNoTemp();
    expect(await storedNames(t, 'gone')).not.toContain('gone-sync.bin');
  });
});

describe('names that start with ".."', () => {
  it('upload, list, download, rename and delete like any other name', async () => {
    for (const name of ['..x', '..notes']) {
      const res = await t.api('POST', '/api/files/upload', { username: 'ana', file: name }, { body: `body of ${name}` });
      expect({ name, status: res.status }).toEqual({ name, status: 201 });
    }
    const listed = (await t.api('GET', '/api/files', { username: 'ana' })).body.files.map((f: { name: string }) => f.name);
    expect(listed).toEqual(expect.arrayContaining(['..x', '..notes']));
    expect((await t.api('GET', '/api/files/download', { username: 'ana', file: '..x' })).text).toBe('body of ..x');
    expect((await t.api('POST', '/api/files/rename', { username: 'ana', file: '..x', newname: '..y' })).status).toBe(201);
    expect((await t.api('GET', '/api/files/download', { username: 'ana', file: '..y' })).text).toBe('body of ..x');
    expect((await t.api('POST', '/api/files/delete', { username: 'ana', file: '..y' })).status).toBe(200);
    expect((await t.api('POST', '/api/files/delete', { username: 'ana', file: '..notes' })).status).toBe(200);
    expect(await storedNames(t, 'ana')).not.toEqual(expect.arrayContaining(['..x', '..y', '..notes']));
    await expectNoTemp();
  });

  it('work as a folder name', async () => {
    expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder: '..notes' })).status).toBe(201);
    expect((await t.api('POST', '/api/files/upload', { username: 'ana', folder: '..notes', file: '..x' }, { body: 'deep' })).status).toBe(
      201,
    );
    expect((await t.api('GET', '/api/files/download', { username: 'ana', folder: '..notes', file: '..x' })).text).toBe('deep');
    expect((await t.api('POST', '/api/folders/delete', { username: 'ana', folder: '..notes' })).status).toBe(200);
    await expectNoTemp();
  });

  it('repeated uploads of such names, and repeated refused ones, never pile up temp files', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await t.api('POST', '/api/files/upload', { username: 'ana', file: `..rep${i}` }, { body: 'x' })).status).toBe(201);
      expect((await t.api('POST', '/api/files/upload', { username: 'ana', file: 'taken.txt' }, { body: 'x' })).status).toBe(409);
      expect((await t.api('POST', '/api/files/upload', { username: 'ana', folder: 'nope', file: '..x' }, { body: 'x' })).status).toBe(404);
    }
    await expectNoTemp();
  });
});
