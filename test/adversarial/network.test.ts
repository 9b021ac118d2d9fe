/**
 * Attacks over the network: DNS rebinding (Host header), foreign origins, key guessing,
 * key leaks, and a read key trying every mutation. Model: Syncthing's TestAddressIsLocalhost.
 */
import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../shared/endpoints.js';
import { startTestDaemon, TEST_KEY, type TestDaemon } from '../helpers/daemon.js';
import { getWithHost, rawRequest } from '../helpers/raw-http.js';

let t: TestDaemon;
let port: number;

beforeAll(async () => {
  t = await startTestDaemon();
  port = t.daemon.port;
  await t.api('POST', '/api/user/create', { username: 'u1', email: 'u1@example.com', password: 'password1' });
  await t.api('POST', '/api/files/upload', { username: 'u1', file: 'a.txt' }, { body: 'hello' });
});
afterAll(() => t.close());

describe('Host header (DNS rebinding)', () => {
  const refused = () => [
    'evil.example',
    `evil.example:${port}`,
    'localhost.evil.example',
    `localhost.evil.example:${port}`,
    '127.0.0.1.nip.io',
    `127.0.0.1.nip.io:${port}`,
    `0.0.0.0:${port}`,
    `[::]:${port}`,
    `0177.0.0.1:${port}`,
    `2130706433:${port}`,
    '127.0.0.1',
    'localhost',
    `127.0.0.1:${port + 1}`,
    `127.0.0.2:${port}`,
    '',
  ];
  const accepted = () => [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`];

  it('refuses every Host that is not the daemon’s own, on API, share, verify and UI routes', async () => {
    for (const host of refused()) {
      for (const path of ['/api/dash', '/s/AAAAAAAAAAAAAAAAAAAAAA', '/verify?token=AAAAAAAAAAAAAAAAAAAA', '/']) {
        const res = await getWithHost(port, path, host, { 'API-Key': TEST_KEY });
        expect({ host, path, status: res.status }).toEqual({ host, path, status: 403 });
        expect(res.body).not.toContain(TEST_KEY);
      }
    }
  });

  it('refuses a request with no Host header at all (HTTP/1.0)', async () => {
    const res = await getWithHost(port, '/api/dash', null, { 'API-Key': TEST_KEY }, '1.0');
    expect(res.status).toBe(403);
  });

  it('accepts the loopback names with the daemon’s port', async () => {
    for (const host of accepted()) {
      const res = await getWithHost(port, '/api/dash', host, { 'API-Key': TEST_KEY });
      expect({ host, status: res.status }).toEqual({ host, status: 200 });
    }
  });
});

describe('CORS', () => {
  it('grants nothing to a foreign origin, on preflight or on a simple request', async () => {
    const preflight = await fetch(`${t.url}/api/user/all`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'api-key' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-headers')).toBeNull();
    const simple = await t.api('GET', '/api/user/all', {}, { headers: { Origin: 'https://evil.example' } });
    expect(simple.headers.get('access-control-allow-origin')).toBeNull();
    const nullOrigin = await t.api('GET', '/api/user/all', {}, { headers: { Origin: 'null' } });
    expect(nullOrigin.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('unauthenticated responses', () => {
  it('never contain the key or its hash', async () => {
    const hash = createHash('sha256').update(TEST_KEY).digest('hex');
    const responses = await Promise.all([
      t.api('GET', '/api/user/all', {}, { key: null }),
      t.api('GET', '/api/user/all', {}, { key: 'wrong-key-wrong-key-wrong-key' }),
      t.api('GET', '/api/nope', {}, { key: null }),
      t.api('GET', '/s/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', {}, { key: null }),
      t.api('GET', '/verify', { token: 'AAAAAAAAAAAAAAAAAAAAAAAA' }, { key: null }),
      t.api('GET', '/', {}, { key: null }),
      t.api('GET', '/api/openapi.json', {}, { key: null }),
    ]);
    for (const res of responses) {
      const all = `${res.text}\n${JSON.stringify([...res.headers])}`;
      expect(all).not.toContain(TEST_KEY);
      expect(all).not.toContain(hash);
    }
  });
});

describe('key guessing', () => {
  it('throttles 1,000 wrong keys with 429 + Retry-After, logs it once, and keeps the right key working', async () => {
    const logsBefore = t.logs.length;
    const statuses: number[] = [];
    for (let i = 0; i < 1000; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: 50 }, (_, j) => t.api('GET', '/api/dash', {}, { key: `guess-${i + j}-xxxxxxxxxxxxxxxx` })),
      );
      statuses.push(...batch.map((r) => r.status));
      const throttled = batch.find((r) => r.status === 429);
      if (throttled) expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(900);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    const throttleLines = t.logs.slice(logsBefore).filter((l) => l.includes('wrong API keys'));
    expect(throttleLines).toHaveLength(1);
    expect(t.logs.join('\n')).not.toContain('guess-');
    const right = await t.api('GET', '/api/dash');
    expect(right.status).toBe(200);
  });
});

describe('key lifecycle', () => {
  it('a deleted key fails at once; a key from NIMBUS_API_KEY cannot be rotated through the API', async () => {
    const created = await t.api('POST', '/api/keys/create', { label: 'temp', scope: 'admin' });
    expect(created.status).toBe(201);
    const tempKey = created.body.key as string;
    expect((await t.api('GET', '/api/dash', {}, { key: tempKey })).status).toBe(200);
    expect((await t.api('POST', '/api/keys/delete', { label: 'temp' })).status).toBe(200);
    expect((await t.api('GET', '/api/dash', {}, { key: tempKey })).status).not.toBe(200);

    // A key set by NIMBUS_API_KEY is the operator's to change, not the API's.
    expect((await t.api('POST', '/api/keys/rotate')).status).toBe(409);
  });

  it('a rotated admin key (kept in the key file) fails at once', async () => {
    const own = await startTestDaemon({ apiKey: undefined, env: { NIMBUS_KEYCHAIN: 'off' } });
    try {
      const oldKey = own.daemon.adminKey();
      own.key = oldKey;
      const rotated = await own.api('POST', '/api/keys/rotate');
      expect(rotated.status).toBe(201);
      const newKey = rotated.body.key as string;
      expect(newKey).not.toBe(oldKey);
      expect((await own.api('GET', '/api/dash', {}, { key: oldKey })).status).toBe(401);
      expect((await own.api('GET', '/api/dash', {}, { key: newKey })).status).toBe(200);
      expect(own.daemon.adminKey()).toBe(newKey);
      // The new key is what the next start uses.
      await own.stop();
      await own.restart();
      expect((await own.api('GET', '/api/dash', {}, { key: newKey })).status).toBe(200);
    } finally {
      await own.close();
    }
  });
});

describe('a read key', () => {
  it('is refused with 403 on every POST of the endpoint table, and nothing changes', async () => {
    const created = await t.api('POST', '/api/keys/create', { label: 'reader', scope: 'read' });
    const readKey = created.body.key as string;
    const snapshot = async () => [
      await readFile(`${t.dataDir}/db.json`, 'utf8'),
      (await readdir(t.storageDir, { recursive: true })).sort().join('|'),
    ];
    const before = await snapshot();
    const sample: Record<string, string> = {
      username: 'u1',
      email: 'x@example.com',
      password: 'password1',
      newusername: 'u2',
      newemail: 'y@example.com',
      newpassword: 'password2',
      name: 'user',
      newname: 'b.txt',
      folder: 'docs',
      file: 'a.txt',
      maxStorage: '5',
      badge: 'https://example.com/b.png',
      label: 'other',
      scope: 'admin',
    };
    const posts = ENDPOINTS.filter((e) => e.method === 'POST');
    expect(posts.length).toBeGreaterThan(15);
    for (const endpoint of posts) {
      const params = Object.fromEntries(Object.keys(endpoint.params).map((p) => [p, sample[p] ?? 'x']));
      const res = await t.api('POST', endpoint.path, params, { key: readKey, body: endpoint.bodyIsContent ? 'payload' : undefined });
      expect({ route: endpoint.path, status: res.status }).toEqual({ route: endpoint.path, status: 403 });
    }
    expect(await snapshot()).toEqual(before);
    expect((await t.api('GET', '/api/user/all', {}, { key: readKey })).status).toBe(200);
  });
});

describe('malformed HTTP', () => {
  it('answers a garbage request line with a 4xx and stays up', async () => {
    const res = await rawRequest(port, 'GARBAGE\r\n\r\n', { endAfterWrite: true }).catch(() => ({ status: 400 }));
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect((await t.api('GET', '/api/dash')).status).toBe(200);
  });
});
