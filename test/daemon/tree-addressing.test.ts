/**
 * Issue 25, addressing: wherever an endpoint takes `folder` (and the move/copy target `to`),
 * it takes a folder path. Each refused form is a 400 naming the rule, before any disk
 * access; a well-formed path that names nothing is a 404; a plain name is what it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, snapshotState, startTestDaemon, upload, type ApiResponse, type TestDaemon } from '../helpers/daemon.js';
import { expectErrorBody } from '../helpers/records.js';

let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon();
  await createUser(t, 'ana');
  await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'docs' });
  await upload(t, 'ana', 'a.txt', 'root file');
  await upload(t, 'ana', 'in.txt', 'in docs', { folder: 'docs' });
});
afterAll(() => t.close());

/** Each refused path, and a piece of the message that says which rule it broke. */
const REFUSED: [string, string, RegExp][] = [
  ['an empty component', 'docs//june', /empty/],
  ['a leading slash', '/docs', /start or end with/],
  ['a trailing slash', 'docs/', /start or end with/],
  ['a "." component', 'docs/./june', /"\." or "\.\."/],
  ['a ".." component', 'docs/../etc', /"\." or "\.\."/],
  ['".." alone', '..', /"\." or "\.\."/],
  ['a backslash', 'docs\\june', /\\/],
  ['a bad component', 'docs/CON', /reserved device name/],
  ['65 levels', Array.from({ length: 65 }, () => 'd').join('/'), /64 levels/],
  ['4,097 bytes', [...Array.from({ length: 16 }, () => 'n'.repeat(240)), 'n'.repeat(241)].join('/'), /4,096 bytes/],
];

/** The calls that take a folder path, with `folder` (or `to`) set to `path`. */
const CALLS: [string, (path: string) => Promise<ApiResponse>][] = [
  ['folders.create', (p) => t.api('POST', '/api/folders/create', { username: 'ana', folder: p })],
  ['folders.files', (p) => t.api('GET', '/api/folders/files', { username: 'ana', folder: p })],
  ['files.list', (p) => t.api('GET', '/api/files', { username: 'ana', folder: p })],
  ['files.upload', (p) => t.api('POST', '/api/files/upload', { username: 'ana', file: 'n.txt', folder: p }, { body: 'x' })],
  ['files.download', (p) => t.api('GET', '/api/files/download', { username: 'ana', file: 'in.txt', folder: p })],
  ['files.move to', (p) => t.api('POST', '/api/files/move', { username: 'ana', file: 'a.txt', to: p })],
  ['files.copy to', (p) => t.api('POST', '/api/files/copy', { username: 'ana', file: 'a.txt', to: p })],
  ['folders.delete', (p) => t.api('POST', '/api/folders/delete', { username: 'ana', folder: p })],
];

describe('a folder path', () => {
  for (const [what, bad, message] of REFUSED) {
    it(`with ${what} is a 400 naming the rule, everywhere, and changes nothing`, async () => {
      const before = await snapshotState(t);
      for (const [call, send] of CALLS) {
        const res = await send(bad);
        expect({ call, status: res.status, code: res.body.code }).toEqual({ call, status: 400, code: 'invalid_parameter' });
        expectErrorBody(res, 400, 'invalid_parameter');
        expect(res.body.error).toMatch(message);
      }
      expect(await snapshotState(t)).toEqual(before);
    });
  }

  it('of 64 levels and of 4,096 bytes is well formed: a folder that is not there is a 404, not a 400', async () => {
    const deepest = Array.from({ length: 64 }, () => 'd').join('/');
    const longest = Array.from({ length: 17 }, () => 'n'.repeat(240)).join('/');
    expect(new TextEncoder().encode(longest).length).toBe(4096);
    for (const p of [deepest, longest, 'docs/june']) {
      const res = await t.api('GET', '/api/folders/files', { username: 'ana', folder: p });
      expect({ p: p.slice(0, 20), status: res.status }, res.text).toEqual({ p: p.slice(0, 20), status: 404 });
      expectErrorBody(res, 404, 'folder_not_found');
    }
  });

  it('that names nothing is a 404 everywhere (a missing parent too), and changes nothing', async () => {
    const before = await snapshotState(t);
    for (const [call, send] of CALLS) {
      for (const p of ['nope/june', 'docs/nope/june', 'docs/in.txt/june']) {
        const res = await send(p);
        expect({ call, p, status: res.status }, res.text).toEqual({ call, p, status: 404 });
        expect(res.body.code).toBe('folder_not_found');
      }
    }
    expect(await snapshotState(t)).toEqual(before);
  });

  it('of one name behaves as before', async () => {
    const files = await t.api('GET', '/api/folders/files', { username: 'ana', folder: 'docs' });
    expect(files.status).toBe(200);
    expect(files.body.files.map((f: { name: string; folder: string }) => [f.name, f.folder])).toEqual([['in.txt', 'docs']]);
    expect((await t.api('GET', '/api/files/download', { username: 'ana', file: 'in.txt', folder: 'docs' })).text).toBe('in docs');
  });
});
