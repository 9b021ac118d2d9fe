/**
 * tus 1.0 on /api/uploads/ (docs/uploads.md), black-box: discovery, creation with and without
 * upload, HEAD offsets, PATCHes to the end and the file placed as files.upload places one
 * (events included), termination, and every bad input a clear 4xx that changes nothing.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestDaemon, storedBytes, upload, type TestDaemon } from '../helpers/daemon.js';
import { openEventStream } from '../helpers/events.js';
import { call } from '../helpers/accounts.js';
import { create, head, leftovers, locationOf, OCTETS, patch, terminate, TUS, tus } from '../helpers/tus.js';

let t: TestDaemon;
const bytes = (n: number, seed = 7) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) % 251));

beforeAll(async () => {
  t = await startTestDaemon();
  await createUser(t, 'ana');
  await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'docs' });
});
afterAll(() => t.close());

describe('discovery', () => {
  it('OPTIONS answers the version and extensions without credentials', async () => {
    const res = await call(t, '/api/uploads/', { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers['tus-version']).toBe('1.0.0');
    expect(res.headers['tus-resumable']).toBe('1.0.0');
    expect(String(res.headers['tus-extension']).split(',')).toEqual(
      expect.arrayContaining(['creation', 'creation-with-upload', 'termination', 'expiration']),
    );
  });

  it('a request without Tus-Resumable 1.0.0 is 412 naming the version, and creates nothing', async () => {
    const res = await create(t, { username: 'ana', filename: 'v.bin' }, 3, undefined, { headers: { 'Tus-Resumable': '0.2.2' } });
    expect(res.status).toBe(412);
    expect(res.headers['tus-version']).toBe('1.0.0');
    expect((await leftovers(t)).tus).toEqual([]);
  });
});

describe('creation, offsets and the finished file', () => {
  it('creation without upload, HEAD, PATCHes to the end: the file is placed and announced', async () => {
    const data = bytes(300_000);
    const events = await openEventStream(t.url, { 'API-Key': t.key });
    const created = await create(t, { username: 'ana', folder: 'docs', filename: 'three.bin' }, data.length);
    const location = locationOf(created);
    expect(location).toMatch(/^\/api\/uploads\/[0-9a-f]{32}$/);
    expect(new Date(String(created.headers['upload-expires'])).getTime()).toBeGreaterThan(Date.now());
    let state = await head(t, location);
    expect([state.status, state.headers['upload-offset'], state.headers['upload-length']]).toEqual([200, '0', String(data.length)]);
    expect(state.headers['cache-control']).toBe('no-store');
    expect((await patch(t, location, 0, data.subarray(0, 100_000))).headers['upload-offset']).toBe('100000');
    state = await head(t, location);
    expect(state.headers['upload-offset']).toBe('100000');
    const last = await patch(t, location, 100_000, data.subarray(100_000));
    expect([last.status, last.headers['upload-offset']]).toEqual([204, String(data.length)]);
    // Durable and listed by the time the last PATCH is answered.
    expect((await storedBytes(t, 'ana', 'docs/three.bin')).equals(data)).toBe(true);
    const listed = await t.api('GET', '/api/files', { username: 'ana', folder: 'docs' });
    expect(listed.body.files.map((f: { name: string }) => f.name)).toContain('three.bin');
    await expect.poll(() => events.messages.some((m) => m.data.file === 'three.bin' && m.data.folder === 'docs')).toBe(true);
    await events.close();
    // A client whose last answer was lost learns it is done.
    state = await head(t, location);
    expect([state.status, state.headers['upload-offset']]).toEqual([200, String(data.length)]);
    expect(state.headers['upload-expires']).toBeUndefined();
    expect(await leftovers(t)).toEqual({ tus: [`${location.slice(-32)}.json`], tmp: [] });
  });

  it('creation with upload: the whole file in the POST', async () => {
    const data = bytes(5000, 3);
    const res = await create(t, { username: 'ana', filename: 'once.bin' }, data.length, data);
    expect([res.status, res.headers['upload-offset']]).toEqual([201, '5000']);
    expect((await storedBytes(t, 'ana', 'once.bin')).equals(data)).toBe(true);
  });

  it('creation with a first part, then the rest', async () => {
    const data = bytes(9000, 5);
    const res = await create(t, { username: 'ana', filename: 'twice.bin' }, data.length, data.subarray(0, 4000));
    expect(res.headers['upload-offset']).toBe('4000');
    expect((await patch(t, locationOf(res), 4000, data.subarray(4000))).status).toBe(204);
    expect((await storedBytes(t, 'ana', 'twice.bin')).equals(data)).toBe(true);
  });

  it('an empty upload is placed at creation', async () => {
    const res = await create(t, { username: 'ana', filename: 'empty.txt' }, 0);
    expect([res.status, res.headers['upload-offset']]).toEqual([201, '0']);
    expect((await storedBytes(t, 'ana', 'empty.txt')).length).toBe(0);
  });

  it('termination removes the bytes; the upload is then unknown', async () => {
    const location = locationOf(await create(t, { username: 'ana', filename: 'gone.bin' }, 10, bytes(4)));
    expect((await terminate(t, location)).status).toBe(204);
    expect((await head(t, location)).status).toBe(404);
    expect((await patch(t, location, 4, bytes(6))).status).toBe(404);
    expect((await leftovers(t)).tus.filter((n) => n.startsWith(location.slice(-32)))).toEqual([]);
  });
});

/** A PATCH whose body is sent chunked (no Content-Length): its length is known only as it streams. */
function chunkedPatch(location: string, offset: number, parts: Buffer[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = { ...TUS, ...OCTETS, 'Upload-Offset': String(offset), 'API-Key': t.key };
    const req = http.request({ host: '127.0.0.1', port: t.port, method: 'PATCH', path: location, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    for (const part of parts) req.write(part);
    req.end();
  });
}

describe('bad input changes nothing', () => {
  let location: string;
  beforeAll(async () => {
    location = locationOf(await create(t, { username: 'ana', filename: 'careful.bin' }, 100, bytes(40)));
  });
  const offsetIs = async (n: number) => expect((await head(t, location)).headers['upload-offset']).toBe(String(n));

  it('a PATCH at the wrong offset is 409', async () => {
    const res = await patch(t, location, 30, bytes(10));
    expect([res.status, res.body.code]).toEqual([409, 'upload_offset_mismatch']);
    await offsetIs(40);
  });

  it('a PATCH of another Content-Type is 415', async () => {
    const res = await tus(t, 'PATCH', location, { 'Content-Type': 'application/octet-stream', 'Upload-Offset': '40' }, { body: bytes(10) });
    expect(res.status).toBe(415);
    await offsetIs(40);
  });

  it('a PATCH past Upload-Length is 413, declared or streamed', async () => {
    expect((await patch(t, location, 40, bytes(61))).status).toBe(413);
    expect(await chunkedPatch(location, 40, [bytes(30), bytes(40)])).toBe(413);
    await offsetIs(40);
  });

  it('a PATCH without Upload-Offset, or with a malformed one, is 400', async () => {
    expect((await tus(t, 'PATCH', location, OCTETS, { body: bytes(1) })).status).toBe(400);
    expect((await tus(t, 'PATCH', location, { ...OCTETS, 'Upload-Offset': '-1' }, { body: bytes(1) })).status).toBe(400);
    await offsetIs(40);
  });

  it('creation without Upload-Length, or deferring it, is 400', async () => {
    const meta = 'username YW5h,filename eC5iaW4=';
    expect((await tus(t, 'POST', '/api/uploads/', { 'Upload-Metadata': meta })).status).toBe(400);
    const deferred = await tus(t, 'POST', '/api/uploads/', { 'Upload-Metadata': meta, 'Upload-Defer-Length': '1' });
    expect(deferred.status).toBe(400);
    expect(deferred.body.error).toMatch(/Upload-Defer-Length/);
  });

  it('a part of a concatenation (tus-js-client parallelUploads) is 400 naming it, and nothing is made', async () => {
    const meta = 'username YW5h,filename cGFydHMuYmlu';
    const parts: Record<string, string>[] = [
      { 'Upload-Concat': 'partial', 'Upload-Length': '10' },
      { 'Upload-Concat': 'final;/api/uploads/a /api/uploads/b', 'Upload-Metadata': meta },
    ];
    for (const headers of parts) {
      const res = await tus(t, 'POST', '/api/uploads/', headers);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/Upload-Concat.*parallelUploads 1/);
      expect(res.headers.location).toBeUndefined();
    }
  });

  it('an id that is no upload is 404, another method 405', async () => {
    expect((await head(t, '/api/uploads/0123456789abcdef0123456789abcdef')).status).toBe(404);
    expect((await head(t, '/api/uploads/..%2f..%2fdb.json')).status).toBe(404);
    expect((await tus(t, 'GET', location, {})).status).toBe(405);
    expect((await tus(t, 'PATCH', '/api/uploads/', OCTETS)).status).toBe(405);
  });

  it('the file is not there until the last byte', async () => {
    expect((await t.api('GET', '/api/files/download', { username: 'ana', file: 'careful.bin' })).status).toBe(404);
    await upload(t, 'ana', 'elsewhere.txt', 'x'); // other uploads go on meanwhile
    expect((await patch(t, location, 40, bytes(60))).status).toBe(204);
  });
});
