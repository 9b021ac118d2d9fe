/**
 * Resumable uploads (docs/uploads.md) under races and failures: a PATCH still streaming when
 * its client has moved on (a newer PATCH, a DELETE), a folder deleted while the last byte is
 * being placed, and the daemon failing between placing the file and recording it.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { armFailpoint, disarmFailpoint } from '../../daemon/util/failpoints.js';
import { codeOf } from '../helpers/accounts.js';
import { createUser, startTestDaemon, storedBytes, type TestDaemon } from '../helpers/daemon.js';
import { create, head, leftovers, locationOf, OCTETS, patch, terminate, TUS } from '../helpers/tus.js';

let t: TestDaemon;
const KB700 = 700_000;

beforeAll(async () => {
  t = await startTestDaemon();
  await t.api('POST', '/api/role/create', { name: 'small', maxStorage: '1', badge: 'https://example.com/s.png' });
  await createUser(t, 'tiny');
  await t.api('POST', '/api/user/role', { username: 'tiny', name: 'small' });
});
afterAll(() => t.close());

/** A PATCH that sends `first` of a body declared `length` long and keeps its connection open; `closed` settles when the daemon ends it. */
function streamingPatch(location: string, offset: number, length: number, first: Buffer) {
  const headers = { ...TUS, ...OCTETS, 'Upload-Offset': String(offset), 'Content-Length': String(length), 'API-Key': t.key };
  const req = http.request({ host: '127.0.0.1', port: t.port, method: 'PATCH', path: location, headers });
  const closed = new Promise<void>((resolve) => {
    req.on('error', () => resolve());
    req.on('response', (res) => {
      res.resume();
      res.on('close', () => resolve());
    });
    req.on('close', () => resolve());
  });
  req.write(first);
  return { closed, end: () => req.destroy() };
}

const waitUntil = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 100 && !(await check()); i++) await new Promise((r) => setTimeout(r, 20));
};

describe('a PATCH still streaming', () => {
  it('is stopped by a newer PATCH, which then finds the offset it kept (409) and goes on from there', async () => {
    const data = Buffer.alloc(KB700, 5);
    const location = locationOf(await create(t, { username: 'tiny', filename: 'two.bin' }, KB700));
    const old = streamingPatch(location, 0, KB700, data.subarray(0, 100_000));
    // The daemon has the bytes in hand (not yet acknowledged: HEAD still answers 0).
    await new Promise((r) => setTimeout(r, 200));
    expect((await head(t, location)).headers['upload-offset']).toBe('0');
    const newer = await patch(t, location, 0, data);
    expect([newer.status, codeOf(newer)]).toEqual([409, 'upload_offset_mismatch']);
    await old.closed;
    const kept = Number((await head(t, location)).headers['upload-offset']);
    expect(kept).toBe(100_000);
    expect((await patch(t, location, kept, data.subarray(kept))).status).toBe(204);
    expect((await storedBytes(t, 'tiny', 'two.bin')).equals(data)).toBe(true);
    await t.api('POST', '/api/files/delete', { username: 'tiny', file: 'two.bin', permanent: 'true' });
  });

  it('is stopped by a DELETE: the bytes go, the quota is free again', async () => {
    const location = locationOf(await create(t, { username: 'tiny', filename: 'ended.bin' }, KB700));
    const old = streamingPatch(location, 0, KB700, Buffer.alloc(50_000, 1));
    await new Promise((r) => setTimeout(r, 100));
    expect((await terminate(t, location)).status).toBe(204);
    await old.closed;
    expect((await head(t, location)).status).toBe(404);
    expect((await leftovers(t)).tus.filter((n) => n.startsWith(location.slice(-32)))).toEqual([]);
    await terminate(t, locationOf(await create(t, { username: 'tiny', filename: 'fits.bin' }, KB700)));
  });
});

describe('a folder deleted while the last byte is placed', () => {
  it('ends either placed (then deleted with its folder) or 404, and never leaves bytes behind', async () => {
    const outcomes = new Set<number>();
    for (let round = 0; round < 12; round++) {
      const folder = `race${round}`;
      await t.api('POST', '/api/folders/create', { username: 'tiny', folder });
      const location = locationOf(await create(t, { username: 'tiny', folder, filename: 'f.bin' }, 20_000, Buffer.alloc(10_000, 2)));
      const [last, deleted] = await Promise.all([
        patch(t, location, 10_000, Buffer.alloc(10_000, 3)),
        new Promise((r) => setTimeout(r, round % 4)).then(() =>
          t.api('POST', '/api/folders/delete', { username: 'tiny', folder, permanent: 'true' }),
        ),
      ]);
      expect(deleted.status).toBe(200);
      expect([204, 404]).toContain(last.status);
      outcomes.add(last.status);
      expect((await leftovers(t)).tmp).toEqual([]);
      await waitUntil(async () => !(await leftovers(t)).tus.some((n) => n === `${location.slice(-32)}.part`));
      expect((await leftovers(t)).tus).not.toContain(`${location.slice(-32)}.part`);
    }
    // Nothing is held: a whole quota's upload fits again.
    await terminate(t, locationOf(await create(t, { username: 'tiny', filename: 'after.bin' }, KB700)));
  });
});

describe('the daemon failing between placing the file and recording it', () => {
  it('is recognised (the target is the partial file itself): done, not placed twice, its quota not held', async () => {
    const data = Buffer.alloc(KB700, 9);
    const location = locationOf(await create(t, { username: 'tiny', filename: 'placed.bin' }, KB700, data.subarray(0, 1000)));
    armFailpoint('tus.placed', 'EIO');
    try {
      // (The error handler words an unexpected error after a body read whole as "the client went away", 400.)
      expect((await patch(t, location, 1000, data.subarray(1000))).status).toBeGreaterThanOrEqual(400);
    } finally {
      disarmFailpoint('tus.placed');
    }
    await t.stop();
    await t.restart();
    const state = await head(t, location);
    expect([state.status, state.headers['upload-offset']]).toEqual([200, String(KB700)]);
    expect((await storedBytes(t, 'tiny', 'placed.bin')).equals(data)).toBe(true);
    expect((await leftovers(t)).tus.filter((n) => n.startsWith(location.slice(-32)))).toEqual([`${location.slice(-32)}.json`]);
    await t.api('POST', '/api/files/delete', { username: 'tiny', file: 'placed.bin', permanent: 'true' });
    await terminate(t, locationOf(await create(t, { username: 'tiny', filename: 'fits.bin' }, KB700)));
  });
});
