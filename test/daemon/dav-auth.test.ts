/** Issue 26: who may use /dav/ (docs/webdav.md, "Signing in"). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKey, makeUser, passwordOf, show, userSession } from '../helpers/accounts.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { dav } from '../helpers/dav.js';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.close());

describe('WebDAV sign-in', () => {
  it('takes the username and password over HTTP Basic', async () => {
    await makeUser(t, 'ana');
    const res = await dav(t, 'PROPFIND', '/dav/ana/', { auth: ['ana', passwordOf('ana')], headers: { Depth: '0' } });
    expect(res.status, show(res)).toBe(207);
    expect(res.text).toContain('<D:href>/dav/ana/</D:href>');
  });

  it('answers 401 with the realm for no credentials, a wrong password or an unknown user', async () => {
    await makeUser(t, 'bea');
    for (const auth of [null, ['bea', 'wrong-password'], ['nobody', 'whatever1']] as const) {
      const res = await dav(t, 'PROPFIND', '/dav/bea/', { auth: auth ? [...auth] : null, headers: { Depth: '0' } });
      expect(res.status, show(res)).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Basic realm="Nimbus", charset="UTF-8"');
    }
  });

  it('never takes the session cookie', async () => {
    const cookie = await userSession(t, 'cora');
    const res = await dav(t, 'PROPFIND', '/dav/cora/', { headers: { Depth: '0', Cookie: `nimbus_session=${cookie}` } });
    expect(res.status, show(res)).toBe(401);
  });

  it('refuses a request a page of another site makes (403), even with the right password', async () => {
    await makeUser(t, 'dina');
    const auth: [string, string] = ['dina', passwordOf('dina')];
    const foreign = await dav(t, 'PROPFIND', '/dav/dina/', { auth, origin: 'https://evil.example', headers: { Depth: '0' } });
    expect(foreign.status, show(foreign)).toBe(403);
    const fetchSite = await dav(t, 'PUT', '/dav/dina/x.txt', { auth, body: 'x', headers: { 'Sec-Fetch-Site': 'cross-site' } });
    expect(fetchSite.status, show(fetchSite)).toBe(403);
    const own = await dav(t, 'PROPFIND', '/dav/dina/', { auth, origin: t.url, headers: { Depth: '0' } });
    expect(own.status, show(own)).toBe(207);
  });

  it('takes a personal key as an app password: a write key writes, a read key only reads (403)', async () => {
    const cookie = await userSession(t, 'eva');
    const write = await makeKey(t, { cookie }, 'laptop', 'write');
    const read = await makeKey(t, { cookie }, 'phone', 'read');
    const put = await dav(t, 'PUT', '/dav/eva/notes.txt', { auth: ['eva', write], body: 'hello' });
    expect(put.status, show(put)).toBe(201);
    const readGet = await dav(t, 'GET', '/dav/eva/notes.txt', { auth: ['eva', read] });
    expect(readGet.status, show(readGet)).toBe(200);
    expect(readGet.text).toBe('hello');
    for (const method of ['PUT', 'DELETE', 'MKCOL']) {
      const res = await dav(t, method, method === 'MKCOL' ? '/dav/eva/new' : '/dav/eva/notes.txt', {
        auth: ['eva', read],
        body: method === 'PUT' ? 'x' : undefined,
      });
      expect(res.status, `${method}: ${show(res)}`).toBe(403);
    }
    // The key is Eva's: under another username it is no password at all.
    await makeUser(t, 'fay');
    const other = await dav(t, 'PROPFIND', '/dav/fay/', { auth: ['fay', write], headers: { Depth: '0' } });
    expect(other.status, show(other)).toBe(401);
  });

  it('stops taking a revoked key and a changed password at once', async () => {
    const cookie = await userSession(t, 'gil');
    const key = await makeKey(t, { cookie }, 'old', 'write');
    expect((await dav(t, 'PROPFIND', '/dav/gil/', { auth: ['gil', key], headers: { Depth: '0' } })).status).toBe(207);
    expect((await dav(t, 'PROPFIND', '/dav/gil/', { auth: ['gil', passwordOf('gil')], headers: { Depth: '0' } })).status).toBe(207);
    await t.api('POST', '/api/keys/delete', { label: 'old', username: 'gil' });
    expect((await dav(t, 'PROPFIND', '/dav/gil/', { auth: ['gil', key], headers: { Depth: '0' } })).status).toBe(401);
    const edit = await t.api('POST', '/api/user/edit', {
      username: 'gil',
      newusername: 'gil',
      newemail: 'gil@example.com',
      newpassword: 'Another-pw-123!',
    });
    expect(edit.status, edit.text).toBe(201);
    expect((await dav(t, 'PROPFIND', '/dav/gil/', { auth: ['gil', passwordOf('gil')], headers: { Depth: '0' } })).status).toBe(401);
    expect((await dav(t, 'PROPFIND', '/dav/gil/', { auth: ['gil', 'Another-pw-123!'], headers: { Depth: '0' } })).status).toBe(207);
  });

  it('takes the admin key under any username, and the admin sees every user', async () => {
    await makeUser(t, 'hal');
    const res = await dav(t, 'PROPFIND', '/dav/', { auth: ['anyone', t.key], headers: { Depth: '1' } });
    expect(res.status, show(res)).toBe(207);
    expect(res.text).toContain('<D:href>/dav/hal/</D:href>');
    expect(res.text).toContain('<D:href>/dav/ana/</D:href>');
    const inHal = await dav(t, 'PUT', '/dav/hal/from-admin.txt', { auth: ['admin', t.key], body: 'x' });
    expect(inHal.status, show(inHal)).toBe(201);
  });

  it('shows a user only their own root, and another user’s tree is 404', async () => {
    await makeUser(t, 'ivy');
    const auth: [string, string] = ['ivy', passwordOf('ivy')];
    const roots = await dav(t, 'PROPFIND', '/dav/', { auth, headers: { Depth: '1' } });
    expect(roots.status, show(roots)).toBe(207);
    expect(roots.text).toContain('<D:href>/dav/ivy/</D:href>');
    expect(roots.text).not.toContain('/dav/ana/');
    for (const path of ['/dav/ana/', '/dav/ana/anything.txt', '/dav/nobody-here/']) {
      const res = await dav(t, 'PROPFIND', path, { auth, headers: { Depth: '0' } });
      expect(res.status, `${path}: ${show(res)}`).toBe(404);
    }
    const put = await dav(t, 'PUT', '/dav/ana/planted.txt', { auth, body: 'x' });
    expect(put.status, show(put)).toBe(404);
  });

  it('throttles wrong passwords (429 with Retry-After), even for the right one then', async () => {
    await makeUser(t, 'jon');
    const from = '127.0.0.7';
    for (let i = 0; i < 5; i++) expect((await dav(t, 'PROPFIND', '/dav/jon/', { auth: ['jon', `wrong-${i}-pw`], from })).status).toBe(401);
    const res = await dav(t, 'PROPFIND', '/dav/jon/', { auth: ['jon', passwordOf('jon')], from, headers: { Depth: '0' } });
    expect(res.status, show(res)).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('takes the right password on many requests at once, as a client mounting the drive sends them', async () => {
    // Each request not yet remembered is a password check; sixteen at once are one guess, not sixteen (no 429).
    await makeUser(t, 'kim');
    const auth: [string, string] = ['kim', passwordOf('kim')];
    const answers = await Promise.all(Array.from({ length: 16 }, () => dav(t, 'PROPFIND', '/dav/kim/', { auth, headers: { Depth: '0' } })));
    expect(answers.map((res) => res.status)).toEqual(answers.map(() => 207));
    // The same wrong password sent at once is one failure: four more still do not block the right one.
    const wrong = await Promise.all(
      Array.from({ length: 16 }, () => dav(t, 'PROPFIND', '/dav/kim/', { auth: ['kim', 'not-it-1'], from: '127.0.0.9' })),
    );
    expect(wrong.map((res) => res.status)).toEqual(wrong.map(() => 401));
    for (let i = 0; i < 3; i++)
      expect((await dav(t, 'PROPFIND', '/dav/kim/', { auth: ['kim', `not-it-${i + 2}`], from: '127.0.0.9' })).status).toBe(401);
    const right = await dav(t, 'PROPFIND', '/dav/kim/', { auth, from: '127.0.0.9', headers: { Depth: '0' } });
    expect(right.status, show(right)).toBe(207);
  });

  it('answers wrong API-Key headers as the API does: per address, 429 past a flood, and a right key never refused', async () => {
    const from = '127.0.0.11';
    const withKey = (key: string, at = from) => dav(t, 'PROPFIND', '/dav/', { from: at, headers: { 'API-Key': key, Depth: '0' } });
    const statuses = [];
    for (let i = 0; i < 22; i++) statuses.push((await withKey(`wrong-key-${i}`)).status);
    expect(statuses).toEqual([...Array.from({ length: 21 }, () => 401), 429]);
    // Nor are keys a username's sign-ins: neither another address nor the right key is refused.
    expect((await withKey(t.key, '127.0.0.12')).status).toBe(207);
    expect((await withKey(t.key)).status).toBe(207);
    await makeUser(t, 'lea');
    for (let i = 0; i < 5; i++) await dav(t, 'PROPFIND', '/dav/lea/', { auth: ['lea', `wrong-${i}-pw`], from });
    expect((await dav(t, 'PROPFIND', '/dav/lea/', { auth: ['lea', passwordOf('lea')], from, headers: { Depth: '0' } })).status).toBe(429);
    expect((await dav(t, 'PROPFIND', '/dav/lea/', { auth: ['lea', t.key], from, headers: { Depth: '0' } })).status).toBe(207);
  });

  it('answers OPTIONS with the DAV classes, at /dav/ and at / (the Windows probe)', async () => {
    for (const path of ['/', '/dav/', '/dav/ana/']) {
      const res = await dav(t, 'OPTIONS', path);
      expect(res.status, `${path}: ${show(res)}`).toBe(200);
      expect(res.headers.dav).toBe('1, 2');
      expect(res.headers['ms-author-via']).toBe('DAV');
      expect(res.headers.allow).toContain('PROPFIND');
    }
  });
});

describe('WebDAV over plain http', () => {
  it('warns once in the log when the daemon listens beyond loopback without https, and not on loopback', async () => {
    const wide = await startTestDaemon({ host: '0.0.0.0' });
    try {
      const warnings = wide.logs.filter((line) => line.includes('passwords in clear'));
      expect(warnings).toHaveLength(1);
      expect(t.logs.filter((line) => line.includes('passwords in clear'))).toEqual([]);
    } finally {
      await wide.close();
    }
  });
});
