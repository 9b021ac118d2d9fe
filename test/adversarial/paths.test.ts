/**
 * Path traversal and hostile names through every endpoint that takes a name, symlinks in a
 * user's directory, Unicode tricks, and a property test: arbitrary strings in every
 * parameter of every endpoint never yield a 500 and never touch anything outside storage.
 */
import { mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../shared/endpoints.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { rawRequest } from '../helpers/raw-http.js';

let t: TestDaemon;
let outside: string;

/** Everything under the data directory except the store's own files, which legitimately change. */
async function tree(): Promise<string> {
  const entries = await readdir(t.dataDir, { recursive: true });
  return entries
    .filter((e) => !/^(db\.json|\.db\.json\.tmp|outbox)/.test(e))
    .sort()
    .join('\n');
}

beforeAll(async () => {
  t = await startTestDaemon();
  outside = path.join(t.dataDir, 'outside');
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'top secret');
  for (const username of ['u1', 'u1_backup']) {
    await t.api('POST', '/api/user/create', { username, email: `${username}@example.com`, password: 'password1' });
  }
  await t.api('POST', '/api/folders/create', { username: 'u1', folder: 'docs' });
  await t.api('POST', '/api/files/upload', { username: 'u1', file: 'a.txt' }, { body: 'mine' });
  await t.api('POST', '/api/files/upload', { username: 'u1_backup', file: 'f' }, { body: 'not yours' });
});
afterAll(() => t.close());

const HOSTILE = [
  '../x',
  '..\\x',
  '%2e%2e/',
  '%252e%252e/',
  '/etc/passwd',
  'C:\\x',
  '\\\\srv\\share',
  'a\u0000.txt',
  'bar/../../u1/f',
  '../u1_backup/f',
  '..',
  '.',
  'CON',
  'nul.txt',
  'COM1.',
  'con.tar.gz',
  'a.',
  'a ',
  'a:b',
  '<>:"|?*',
  'a\u0001b',
  'tab\there',
  'new\nline',
  '\u202egnp.exe',
  'zero\u200bwidth',
  'x'.repeat(256),
  'é'.repeat(128),
  `${'d/'.repeat(2048)}x`,
];

const NAME_PARAMS: [string, string, Record<string, string>][] = [
  ['/api/files/upload', 'file', { username: 'u1' }],
  ['/api/files/upload', 'folder', { username: 'u1', file: 'n.txt' }],
  ['/api/files/download', 'file', { username: 'u1' }],
  ['/api/files/download', 'folder', { username: 'u1', file: 'a.txt' }],
  ['/api/files/rename', 'file', { username: 'u1', newname: 'z.txt' }],
  ['/api/files/rename', 'newname', { username: 'u1', file: 'a.txt' }],
  ['/api/files/delete', 'file', { username: 'u1' }],
  ['/api/files/share', 'file', { username: 'u1' }],
  ['/api/files/noshare', 'file', { username: 'u1' }],
  ['/api/files', 'folder', { username: 'u1' }],
  ['/api/folders/create', 'folder', { username: 'u1' }],
  ['/api/folders/delete', 'folder', { username: 'u1' }],
  ['/api/folders/files', 'folder', { username: 'u1' }],
  ['/api/folders/files/rename', 'newname', { username: 'u1', folder: 'docs', file: 'a.txt' }],
  ['/api/folders/files/delete', 'file', { username: 'u1', folder: 'docs' }],
  ['/api/user', 'username', {}],
  ['/api/user/create', 'username', { email: 'x@example.com', password: 'password1' }],
  ['/api/user/edit', 'newusername', { username: 'u1', newemail: 'u1@example.com', newpassword: 'password1' }],
  ['/api/user/delete', 'username', {}],
  ['/api/folders', 'username', {}],
  ['/api/role/create', 'name', { maxStorage: '1', badge: 'https://example.com/b.png' }],
  ['/api/keys/create', 'label', { scope: 'read' }],
];

describe('hostile names', () => {
  it('are a 400 on every endpoint that takes a name, and change nothing on disk', async () => {
    const before = await tree();
    for (const [route, param, base] of NAME_PARAMS) {
      const endpoint = ENDPOINTS.find((e) => e.path === route)!;
      for (const name of HOSTILE) {
        const res = await t.api(
          endpoint.method,
          route,
          { ...base, [param]: name },
          { body: endpoint.bodyIsContent ? 'payload' : undefined },
        );
        expect({ route, param, name, status: res.status }).toEqual({ route, param, name, status: 400 });
        expect(res.body.code).toMatch(/parameter/);
      }
    }
    expect(await tree()).toBe(before);
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
  });

  it('a 4,097-byte URL path or parameter is refused without a 500', async () => {
    const res = await t.api('GET', '/api/files/download', { username: 'u1', file: 'a'.repeat(4097) });
    expect(res.status).toBe(400);
    const longPath = await t.api('GET', `/api/${'a/'.repeat(2049)}`);
    expect([400, 404, 414, 431]).toContain(longPath.status);
  });

  it('treats NFC and NFD spellings of a name as the same file', async () => {
    const nfc = 'caf\u00e9.txt';
    const nfd = 'cafe\u0301.txt';
    expect((await t.api('POST', '/api/files/upload', { username: 'u1', file: nfd }, { body: 'coffee' })).status).toBe(201);
    const listed = await t.api('GET', '/api/files', { username: 'u1' });
    expect(listed.body.files.map((f: { name: string }) => f.name)).toContain(nfc);
    expect((await t.api('GET', '/api/files/download', { username: 'u1', file: nfc })).text).toBe('coffee');
    expect((await t.api('POST', '/api/files/upload', { username: 'u1', file: nfc }, { body: 'again' })).status).toBe(409);
  });
});

describe('symlinks in a user’s directory', () => {
  beforeAll(async () => {
    const home = path.join(t.storageDir, 'u1');
    await symlink('/etc', path.join(home, 'etc'));
    await symlink(path.join(outside, 'secret.txt'), path.join(home, 'secret.txt'));
    await symlink(path.join(outside, 'not-there-yet'), path.join(home, 'dangling'));
    await symlink(path.join(home, 'loop'), path.join(home, 'loop'));
    await symlink(outside, path.join(home, 'docs', 'out'));
    await t.api('POST', '/api/dash/rescan');
  });

  it('are neither listed nor followed', async () => {
    const files = await t.api('GET', '/api/files', { username: 'u1' });
    const names = files.body.files.map((f: { name: string }) => f.name);
    for (const link of ['etc', 'secret.txt', 'dangling', 'loop']) expect(names).not.toContain(link);
    const folders = await t.api('GET', '/api/folders', { username: 'u1' });
    expect(folders.body.folders.map((f: { name: string }) => f.name)).toEqual(['docs']);
  });

  it('cannot be read, listed, written, renamed onto, shared or deleted through', async () => {
    const u = { username: 'u1' };
    expect((await t.api('GET', '/api/files/download', { ...u, file: 'secret.txt' })).status).toBe(404);
    expect((await t.api('GET', '/api/files/download', { ...u, file: 'passwd', folder: 'etc' })).status).toBe(404);
    expect((await t.api('GET', '/api/folders/files', { ...u, folder: 'etc' })).status).toBe(404);
    expect((await t.api('GET', '/api/files/download', { ...u, file: 'loop' })).status).toBe(404);
    expect((await t.api('POST', '/api/files/upload', { ...u, file: 'dangling' }, { body: 'pwn' })).status).toBe(409);
    expect((await t.api('POST', '/api/files/upload', { ...u, file: 'dangling', overwrite: 'true' }, { body: 'pwn' })).status).toBe(409);
    expect((await t.api('POST', '/api/files/upload', { ...u, file: 'secret.txt', overwrite: 'true' }, { body: 'pwn' })).status).toBe(409);
    expect((await t.api('POST', '/api/files/upload', { ...u, folder: 'etc', file: 'x' }, { body: 'pwn' })).status).toBe(404);
    expect((await t.api('POST', '/api/files/rename', { ...u, file: 'a.txt', newname: 'dangling' })).status).toBe(409);
    expect((await t.api('POST', '/api/files/share', { ...u, file: 'secret.txt' })).status).toBe(404);
    expect((await t.api('POST', '/api/files/delete', { ...u, file: 'etc' })).status).toBe(404);
    expect((await t.api('POST', '/api/folders/delete', { ...u, folder: 'etc' })).status).toBe(404);
    expect((await t.api('POST', '/api/folders/create', { ...u, folder: 'etc' })).status).toBe(409);
    await expect(stat(path.join(outside, 'not-there-yet'))).rejects.toThrow();
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
    expect((await stat('/etc/passwd')).isFile()).toBe(true);
  });
});

describe('the share route', () => {
  it('refuses dot segments and anything but a bare token', async () => {
    const shared = await t.api('POST', '/api/files/share', { username: 'u1', file: 'a.txt' });
    const token = new URL(shared.body.file.shareUrl).pathname.split('/')[2];
    const port = t.daemon.port;
    for (const p of [`/s/${token}/../x`, `/s/${token}/..%2fx`, `/s/../api/dash`, `/s/${token}%00`, `/s/${token}/`]) {
      const res = await rawRequest(port, `GET ${p} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
      if (p.endsWith('/')) expect(res.status).toBe(200);
      else expect({ p, status: res.status }).toEqual({ p, status: 404 });
    }
  });
});

describe('property: arbitrary strings in every parameter', () => {
  it('never yield a 500 and never touch anything outside storage', async () => {
    const before = await readdir(outside);
    const endpoints = ENDPOINTS.filter((e) => e.raw !== 'events' && e.id !== 'share.download' && Object.keys(e.params).length > 0);
    const value = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constantFrom('u1', 'docs', 'a.txt', '..', '../u1_backup', '/etc', 'user', '-1', 'true'),
      fc.string({ unit: 'grapheme', maxLength: 10 }),
    );
    for (const endpoint of endpoints) {
      const names = Object.keys(endpoint.params);
      await fc.assert(
        fc.asyncProperty(fc.tuple(...names.map(() => value)), async (values) => {
          const params = Object.fromEntries(names.map((n, i) => [n, values[i]]));
          const res = await t.api(endpoint.method, endpoint.path, params, { body: endpoint.bodyIsContent ? 'p' : undefined });
          return res.status < 500;
        }),
        { numRuns: 40 },
      );
    }
    expect(await readdir(outside)).toEqual(before);
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
  }, 120_000);
});
