/**
 * A delete wins over an upload still streaming into the user or folder it removes: after
 * the delete's 200, nothing of that user or folder comes back, the upload is refused and
 * its temp file removed, and a new user (or folder) of the same name starts empty.
 */
import { access, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { slowUpload } from '../helpers/slow-upload.js';

const ROUNDS = 50;
let t: TestDaemon;

const tempFiles = () => readdir(path.join(t.dataDir, 'tmp')).catch(() => [] as string[]);
const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );
const names = async (username: string, folder?: string) =>
  (await t.api('GET', '/api/files', folder ? { username, folder } : { username })).body.files.map(
    (f: { name: string }) => f.name,
  ) as string[];

beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.close());

describe('an upload streaming while its user is deleted', () => {
  it(`is refused, and the user does not come back (${ROUNDS} rounds)`, async () => {
    for (let i = 0; i < ROUNDS; i++) {
      await createUser(t, 'racer');
      const up = slowUpload(t.port, t.key, { username: 'racer', file: `f${i}.bin` }, 8192);
      await up.write(Buffer.alloc(4096, 97));
      expect((await t.api('POST', '/api/user/delete', { username: 'racer' })).status).toBe(200);
      up.end(Buffer.alloc(4096, 98));
      const res = await up.response;
      expect({ round: i, status: res.status }).toEqual({ round: i, status: 404 });
      expect(await exists(path.join(t.storageDir, 'racer'))).toBe(false);
      await vi.waitFor(async () => expect(await tempFiles()).toEqual([]));
      await createUser(t, 'racer');
      expect(await names('racer')).toEqual([]);
      expect(await readdir(path.join(t.storageDir, 'racer'))).toEqual([]);
      expect((await t.api('POST', '/api/user/delete', { username: 'racer' })).status).toBe(200);
    }
  }, 120_000);

  it(`racing the end of the body: whichever wins, nothing is left after the delete (${ROUNDS} rounds)`, async () => {
    for (let i = 0; i < ROUNDS; i++) {
      await createUser(t, 'racer2');
      const up = slowUpload(t.port, t.key, { username: 'racer2', file: `g${i}.bin` }, 8192);
      await up.write(Buffer.alloc(4096, 97));
      up.end(Buffer.alloc(4096, 98));
      const del = await t.api('POST', '/api/user/delete', { username: 'racer2' });
      const res = await up.response;
      expect(del.status).toBe(200);
      expect([201, 404]).toContain(res.status);
      expect(await exists(path.join(t.storageDir, 'racer2'))).toBe(false);
      await vi.waitFor(async () => expect(await tempFiles()).toEqual([]));
      await createUser(t, 'racer2');
      expect(await names('racer2')).toEqual([]);
      expect((await t.api('POST', '/api/user/delete', { username: 'racer2' })).status).toBe(200);
    }
  }, 120_000);
});

describe('an upload streaming while its folder is deleted', () => {
  it(`is refused, and the folder does not come back (${ROUNDS} rounds)`, async () => {
    await createUser(t, 'owner');
    for (let i = 0; i < ROUNDS; i++) {
      expect((await t.api('POST', '/api/folders/create', { username: 'owner', folder: 'box' })).status).toBe(201);
      const up = slowUpload(t.port, t.key, { username: 'owner', folder: 'box', file: `f${i}.bin` }, 8192);
      await up.write(Buffer.alloc(4096, 97));
      expect((await t.api('POST', '/api/folders/delete', { username: 'owner', folder: 'box' })).status).toBe(200);
      up.end(Buffer.alloc(4096, 98));
      const res = await up.response;
      expect({ round: i, status: res.status }).toEqual({ round: i, status: 404 });
      expect(await exists(path.join(t.storageDir, 'owner', 'box'))).toBe(false);
      await vi.waitFor(async () => expect(await tempFiles()).toEqual([]));
      // A folder made again with the same name does not inherit the upload either.
      expect((await t.api('POST', '/api/folders/create', { username: 'owner', folder: 'box' })).status).toBe(201);
      expect(await names('owner', 'box')).toEqual([]);
      expect(await readdir(path.join(t.storageDir, 'owner', 'box'))).toEqual([]);
      expect((await t.api('POST', '/api/folders/delete', { username: 'owner', folder: 'box' })).status).toBe(200);
    }
  }, 120_000);

  it(`a folder deleted and made again while the upload streams does not get the file (${ROUNDS} rounds)`, async () => {
    for (let i = 0; i < ROUNDS; i++) {
      expect((await t.api('POST', '/api/folders/create', { username: 'owner', folder: 'again' })).status).toBe(201);
      const up = slowUpload(t.port, t.key, { username: 'owner', folder: 'again', file: `h${i}.bin` }, 8192);
      await up.write(Buffer.alloc(4096, 97));
      expect((await t.api('POST', '/api/folders/delete', { username: 'owner', folder: 'again' })).status).toBe(200);
      expect((await t.api('POST', '/api/folders/create', { username: 'owner', folder: 'again' })).status).toBe(201);
      up.end(Buffer.alloc(4096, 98));
      expect((await up.response).status).toBe(404);
      expect(await readdir(path.join(t.storageDir, 'owner', 'again'))).toEqual([]);
      await vi.waitFor(async () => expect(await tempFiles()).toEqual([]));
      expect((await t.api('POST', '/api/folders/delete', { username: 'owner', folder: 'again' })).status).toBe(200);
    }
  }, 120_000);
});
