/**
 * The daemon's security over real HTTP (docs/architecture.md#a-request): the Host
 * allowlist, CORS, throttling of wrong keys, security headers, secrets that never leave,
 * and the key lifecycle.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../shared/endpoints.js';
import { createUser, nodeRequest, readDb, startTestDaemon, upload, type ApiResponse, type TestDaemon } from '../helpers/daemon.js';
import { readOutbox, verifyLink } from '../helpers/mail.js';
import { expectErrorBody } from '../helpers/records.js';

describe('the listening address', () => {
  it('is 127.0.0.1 by default', async () => {
    const t = await startTestDaemon();
    try {
      expect(t.daemon.host).toBe('127.0.0.1');
      expect(t.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await t.close();
    }
  });
});

describe('the Host header', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon();
  });
  afterAll(() => t.close());

  const hostGet = (host: string, route = '/api/user/all') =>
    nodeRequest(t.port, { path: route, headers: { Host: host, 'API-Key': t.key } });

  it.each([
    ['evil.example'],
    ['localhost.evil.example'],
    ['127.0.0.1.nip.io'],
    ['evil.example:PORT'],
    ['127.0.0.1.nip.io:PORT'],
    ['127.0.0.1:1'],
    ['localhost'],
    [''],
  ])('refuses Host %j with 403 forbidden_host', async (host) => {
    const res = await hostGet(host.replace('PORT', String(t.port)));
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text)).toMatchObject({ code: 'forbidden_host' });
  });

  it.each([['127.0.0.1:PORT'], ['localhost:PORT'], ['[::1]:PORT'], ['LocalHost:PORT']])('accepts Host %j', async (host) => {
    const res = await hostGet(host.replace('PORT', String(t.port)));
    expect(res.status, res.text).toBe(200);
  });

  it('refuses a foreign Host on the public routes too', async () => {
    for (const route of ['/verify?token=AAAAAAAAAAAAAAAAAAAAAAAA', '/s/AAAAAAAAAAAAAAAAAAAAAAAA', '/']) {
      expect((await nodeRequest(t.port, { path: route, headers: { Host: 'evil.example' } })).status, route).toBe(403);
    }
  });

  it('accepts the host of NIMBUS_PUBLIC_URL, where share links point', async () => {
    const behindProxy = await startTestDaemon({ env: { NIMBUS_PUBLIC_URL: 'https://files.example.com/' } });
    try {
      await createUser(behindProxy, 'ana');
      await upload(behindProxy, 'ana', 'a.txt', 'public');
      const shared = await behindProxy.api('POST', '/api/files/share', { username: 'ana', file: 'a.txt' });
      const link = new URL(shared.body.file.shareUrl);
      expect(link.origin).toBe('https://files.example.com');
      const res = await nodeRequest(behindProxy.port, { path: link.pathname, headers: { Host: 'files.example.com' } });
      expect(res.status, res.text).toBe(200);
      expect(res.text).toBe('public');
      expect(
        (await nodeRequest(behindProxy.port, { path: link.pathname, headers: { Host: 'files.example.com.evil.example' } })).status,
      ).toBe(403);
    } finally {
      await behindProxy.close();
    }
  });

  it('accepts a Host the operator configured', async () => {
    const extra = await startTestDaemon({ env: { NIMBUS_ALLOWED_HOSTS: 'nimbus.lan:8080' } });
    try {
      const res = await nodeRequest(extra.port, { path: '/api/dash', headers: { Host: 'nimbus.lan:8080', 'API-Key': extra.key } });
      expect(res.status).toBe(200);
      expect(
        (await nodeRequest(extra.port, { path: '/api/dash', headers: { Host: 'nimbus.lan.evil.example:8080', 'API-Key': extra.key } }))
          .status,
      ).toBe(403);
    } finally {
      await extra.close();
    }
  });
});

describe('CORS', () => {
  let t: TestDaemon;
  let granted: TestDaemon;
  beforeAll(async () => {
    [t, granted] = await Promise.all([startTestDaemon(), startTestDaemon({ env: { NIMBUS_CORS_ORIGINS: 'http://app.example' } })]);
  });
  afterAll(() => Promise.all([t.close(), granted.close()]));

  it('sends no Access-Control-Allow-Origin to a foreign origin, on requests and preflights', async () => {
    const res = await t.api('GET', '/api/user/all', {}, { headers: { Origin: 'http://evil.example' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('Access-Control-Allow-Origin')).toBeNull();
    const preflight = await t.api(
      'OPTIONS',
      '/api/user/create',
      {},
      { key: null, headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST' } },
    );
    expect(preflight.headers.get('Access-Control-Allow-Origin')).toBeNull();
    expect(preflight.headers.get('Access-Control-Allow-Methods')).toBeNull();
    const own = await t.api('GET', '/api/user/all', {}, { headers: { Origin: t.url } });
    expect(own.headers.get('Access-Control-Allow-Origin')).toBeNull();
  });

  it('grants exactly a configured origin, never "*"', async () => {
    const res = await granted.api('GET', '/api/user/all', {}, { headers: { Origin: 'http://app.example' } });
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('http://app.example');
    expect(res.headers.get('Vary')).toMatch(/Origin/);
    const other = await granted.api('GET', '/api/user/all', {}, { headers: { Origin: 'http://app.example.evil.example' } });
    expect(other.headers.get('Access-Control-Allow-Origin')).toBeNull();
  });

  it('lets a configured origin’s tus client PATCH, HEAD and DELETE its uploads, and only there', async () => {
    const ask = (daemon: TestDaemon, path: string, origin: string) =>
      daemon.api('OPTIONS', path, {}, { key: null, headers: { Origin: origin, 'Access-Control-Request-Method': 'PATCH' } });
    const tus = await ask(granted, '/api/uploads/0123456789abcdef0123456789abcdef', 'http://app.example');
    expect(tus.headers.get('Access-Control-Allow-Methods')).toBe('GET, POST, HEAD, PATCH, DELETE');
    expect(tus.headers.get('Access-Control-Allow-Headers')).toMatch(/Upload-Offset/);
    expect((await ask(granted, '/api/files/upload', 'http://app.example')).headers.get('Access-Control-Allow-Methods')).toBe('GET, POST');
    expect((await ask(granted, '/api/uploads/', 'http://evil.example')).headers.get('Access-Control-Allow-Methods')).toBeNull();
  });
});

describe('throttling of wrong keys', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon();
  });
  afterAll(() => t.close());

  it('answers 429 with Retry-After after many wrong keys, while the right key still works', async () => {
    const statuses: number[] = [];
    let limited: ApiResponse | undefined;
    for (let i = 0; i < 40 && !limited; i++) {
      const res = await t.api('GET', '/api/user/all', {}, { key: `wrong-${i}` });
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    expect(limited, `statuses: ${statuses.join(',')}`).toBeDefined();
    expect(statuses.slice(0, -1).every((s) => s === 401)).toBe(true);
    expectErrorBody(limited!, 429, 'too_many_requests');
    expect(Number(limited!.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect((await t.api('GET', '/api/user/all')).status).toBe(200);
    expect((await t.api('POST', '/api/user/create', { username: 'still', email: 's@example.com', password: 'password123' })).status).toBe(
      201,
    );
    expect((await t.api('GET', '/api/user/all', {}, { key: 'wrong-again' })).status).toBe(429);
    expect(t.logs.filter((l) => l.includes('429'))).toHaveLength(1);
  });
});

describe('security headers', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon();
    await createUser(t, 'ana');
    await upload(t, 'ana', 'page.html', '<script>alert(1)</script>');
  });
  afterAll(() => t.close());

  it.each([
    ['a JSON answer', () => t.api('GET', '/api/user/all')],
    ['an error', () => t.api('GET', '/api/user', { username: 'nobody' })],
    ['a 401', () => t.api('GET', '/api/user/all', {}, { key: null })],
    ['a download', () => t.api('GET', '/api/files/download', { username: 'ana', file: 'page.html' })],
    // Issue 15's one-step JSON answer (daemon/http/response.ts), and the ways around it.
    ['a 201', () => t.api('POST', '/api/folders/create', { username: 'ana', folder: `f${Date.now()}` })],
    ['a HEAD', () => t.raw('HEAD', '/api/user/all')],
    ['a page with its own header (X-Total-Count)', () => t.api('GET', '/api/files', { username: 'ana', limit: '1' })],
    ['an unknown route', () => t.api('GET', '/api/nope')],
  ])('are set on %s, each once, with a request id', async (_what, call) => {
    const res = await call();
    // fetch joins a repeated header with ", ": an exact value also says it came once.
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(res.headers.get('X-Frame-Options')).toBe('DENY');
    expect(res.headers.get('Referrer-Policy')).toBe('no-referrer');
    expect(res.headers.get('Cross-Origin-Resource-Policy')).toBe('same-origin');
    expect(res.headers.get('Cross-Origin-Opener-Policy')).toBe('same-origin');
    expect(res.headers.get('Content-Security-Policy')).toMatch(/^default-src 'none'; [^,]*$/);
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    expect(res.headers.get('X-Request-Id')).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
  });

  it('gives a JSON answer its exact length, also to HEAD', async () => {
    const get = await t.raw('GET', '/api/user?username=ana');
    const head = await t.raw('HEAD', '/api/user?username=ana');
    expect(get.headers.get('Content-Type')).toBe('application/json; charset=utf-8');
    expect(Number(get.headers.get('Content-Length'))).toBe(Buffer.byteLength(get.text));
    expect(head.headers.get('Content-Length')).toBe(get.headers.get('Content-Length'));
    expect(head.text).toBe('');
  });

  it('serves a shared HTML file as an inert attachment', async () => {
    const shared = await t.api('POST', '/api/files/share', { username: 'ana', file: 'page.html' });
    const res = await t.raw('GET', new URL(shared.body.file.shareUrl).pathname, { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Disposition')).toMatch(/^attachment;/);
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(res.headers.get('Content-Security-Policy')).toMatch(/sandbox/);
    expect(res.headers.get('Content-Security-Policy')).not.toMatch(/script-src/);
  });
});

describe('secrets', () => {
  let t: TestDaemon;
  const seen: { route: string; res: ApiResponse }[] = [];
  const passwords = ['correct horse battery', 'hunter2-hunter2', 'n3w-passw0rd!'];
  beforeAll(async () => {
    t = await startTestDaemon();
    const api = t.api.bind(t);
    const raw = t.raw.bind(t);
    t.api = async (method, route, params, init) => {
      const res = await api(method, route, params, init);
      seen.push({ route, res });
      return res;
    };
    t.raw = async (method, route, init) => {
      const res = await raw(method, route, init);
      seen.push({ route, res });
      return res;
    };
  });
  afterAll(() => t.close());

  it('never sends a password hash, key, key hash or token outside the share link and the new key', async () => {
    await t.api('POST', '/api/user/create', { username: 'ana', email: 'ana@example.com', password: passwords[0] });
    await t.api('POST', '/api/user/create', { username: 'bob', email: 'bob@example.com', password: passwords[1] });
    await t.api('POST', '/api/user/edit', { username: 'bob', newusername: 'bob', newemail: 'bob@example.com', newpassword: passwords[2] });
    await upload(t, 'ana', 'a.txt', 'x');
    await t.api('POST', '/api/files/share', { username: 'ana', file: 'a.txt' });
    await t.api('POST', '/api/user/verify', { username: 'ana' });
    const created = await t.api('POST', '/api/keys/create', { label: 'ci', scope: 'admin' });
    const newKey = created.body.key as string;
    // Read every GET endpoint that takes nothing or a username.
    for (const e of ENDPOINTS.filter((x) => x.method === 'GET' && !x.raw)) {
      await t.api('GET', e.path, 'username' in e.params ? { username: 'ana' } : 'name' in e.params ? { name: 'user' } : {});
    }
    await t.api('GET', '/api/user/all', {}, { key: 'wrong' });
    await t.api('GET', '/api/files/download', { username: 'ana', file: 'a.txt' });

    const db = await readDb(t.dataDir);
    const hashes = [...db.keys.map((k: { hash: string }) => k.hash), ...db.verifications.map((v: { hash: string }) => v.hash)];
    const passwordHashes = db.users.map((u: { passwordHash: string }) => u.passwordHash);
    const shareTokens = db.shares.map((s: { token: string }) => s.token);
    const verifyToken = verifyLink((await readOutbox(t.dataDir))[0])!.searchParams.get('token')!;
    expect(hashes.length).toBeGreaterThanOrEqual(2);
    expect(shareTokens).toHaveLength(1);
    for (const { route, res } of seen) {
      const headers = JSON.stringify([...res.headers]);
      // The link itself is the one place a token belongs: a file's `shareUrl`, a link's `url` in GET /api/shares.
      const text = res.text.replace(/"shareUrl":"[^"]*"/g, '"shareUrl":"…"').replace(/"url":"[^"]*\/s\/[^"]*"/g, '"url":"…"');
      for (const secret of [t.key, ...passwords, ...hashes, ...passwordHashes, ...shareTokens, verifyToken, '$argon2id$', 'passwordHash']) {
        expect(text.includes(secret), `${route} leaks ${secret.slice(0, 12)}`).toBe(false);
        expect(headers.includes(secret), `${route} headers leak ${secret.slice(0, 12)}`).toBe(false);
      }
      if (res !== created) expect(text.includes(newKey), `${route} leaks the new key`).toBe(false);
    }
  });

  it('keeps no plain password, key or token in db.json, and no key in the logs', async () => {
    const text = await readFile(path.join(t.dataDir, 'db.json'), 'utf8');
    expect(text).toContain('$argon2id$');
    const verifyToken = verifyLink((await readOutbox(t.dataDir))[0])!.searchParams.get('token')!;
    for (const secret of [t.key, ...passwords, verifyToken]) expect(text.includes(secret), secret).toBe(false);
    const created = seen.find((s) => s.route === '/api/keys/create')!.res.body.key as string;
    expect(text.includes(created)).toBe(false);
    for (const line of t.logs) {
      expect(line.includes(t.key)).toBe(false);
      expect(line.includes(created)).toBe(false);
    }
  });
});

describe('API keys', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon({ apiKey: undefined, env: { NIMBUS_KEYCHAIN: 'off' } });
    await createUser(t, 'ana');
  });
  afterAll(() => t.close());

  it('lets a created admin key mutate and a read key only read', async () => {
    const admin = (await t.api('POST', '/api/keys/create', { label: 'ops', scope: 'admin' })).body.key as string;
    const read = (await t.api('POST', '/api/keys/create', { label: 'dash', scope: 'read' })).body.key as string;
    expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'by-ops' }, { key: admin })).status).toBe(201);
    expect((await t.api('GET', '/api/folders', { username: 'ana' }, { key: read })).status).toBe(200);
    expect((await t.api('GET', '/api/files/download', { username: 'ana', file: 'none' }, { key: read })).status).toBe(404);
    expectErrorBody(
      await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'by-dash' }, { key: read }),
      403,
      'insufficient_scope',
    );
    expectErrorBody(await t.api('GET', '/api/keys', {}, { key: read }), 403, 'insufficient_scope');
    expect((await t.api('GET', '/api/folders', { username: 'ana' })).body.folders.map((f: { name: string }) => f.name)).toEqual(['by-ops']);
  });

  it('stops a deleted key at once', async () => {
    const key = (await t.api('POST', '/api/keys/create', { label: 'temp', scope: 'read' })).body.key as string;
    expect((await t.api('GET', '/api/dash', {}, { key })).status).toBe(200);
    expect((await t.api('POST', '/api/keys/delete', { label: 'temp' })).status).toBe(200);
    expectErrorBody(await t.api('GET', '/api/dash', {}, { key }), 401, 'unauthorized');
    expect((await t.api('GET', '/api/keys')).body.keys.map((k: { label: string }) => k.label)).not.toContain('temp');
  });

  it('rotates the admin key: the old one fails at once, the new one works and survives a restart', async () => {
    const old = t.key;
    const rotated = await t.api('POST', '/api/keys/rotate');
    expect(rotated.status).toBe(201);
    const fresh = rotated.body.key as string;
    expect(fresh).not.toBe(old);
    expectErrorBody(await t.api('GET', '/api/dash', {}, { key: old }), 401, 'unauthorized');
    expect((await t.api('GET', '/api/dash', {}, { key: fresh })).status).toBe(200);
    t.key = fresh;
    await t.stop();
    await t.restart();
    expect((await t.api('GET', '/api/dash', {}, { key: fresh })).status).toBe(200);
    expect((await t.api('GET', '/api/dash', {}, { key: old })).status).toBe(401);
    expect((await readFile(path.join(t.dataDir, 'admin.key'), 'utf8')).trim()).toBe(fresh);
  });

  it('keeps created keys across a restart', async () => {
    const key = (await t.api('POST', '/api/keys/create', { label: 'durable', scope: 'read' })).body.key as string;
    await t.stop();
    await t.restart();
    expect((await t.api('GET', '/api/dash', {}, { key })).status).toBe(200);
  });
});
