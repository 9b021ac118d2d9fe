/**
 * Cross-site requests (docs/accounts.md, "Cross-site requests"): a cookie-authenticated POST
 * must carry one of the daemon's own origins (or, with no Origin, Sec-Fetch-Site:
 * same-origin), else 403 cross_site_request and nothing changes; public auth POSTs that
 * carry an Origin are held to the same rule; keys are not affected; the Host check stays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotState, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { readOutbox } from '../helpers/mail.js';
import { call, codeOf, login, makeUser, passwordOf, sessionCookie, show, signIn, uploadAs, type Resp } from '../helpers/accounts.js';

let t: TestDaemon;
let cookie: string;
beforeAll(async () => {
  t = await startTestDaemon({ env: { NIMBUS_KEYCHAIN: 'off' } });
  await makeUser(t, 'ana');
  cookie = await signIn(t, 'ana', passwordOf('ana'));
});
afterAll(() => t.close());

function expectCrossSite(res: Resp, what: string) {
  expect(res.status, `${what}: ${show(res)}`).toBe(403);
  expect(codeOf(res), what).toBe('cross_site_request');
}

const foreignOrigins = () => [
  'http://evil.example',
  'null',
  `http://127.0.0.1:${t.port + 1}`,
  `https://127.0.0.1:${t.port}`,
  `http://127.0.0.1.evil.example:${t.port}`,
  `http://localhost:${t.port}.evil.example`,
  `http://evil.example/http://127.0.0.1:${t.port}`,
];

describe('a cookie POST from another origin', () => {
  it('is refused 403 cross_site_request for every foreign Origin, and nothing changes', async () => {
    const before = await snapshotState(t);
    for (const origin of foreignOrigins()) {
      const res = await call(t, '/api/folders/create', { cookie, origin, body: { username: 'ana', folder: 'csrf' } });
      expectCrossSite(res, `Origin ${origin}`);
    }
    expect(await snapshotState(t)).toEqual(before);
  });

  it('refuses an upload before storing anything', async () => {
    const before = await snapshotState(t);
    const res = await uploadAs(t, { cookie }, 'ana', 'planted.html', '<script>1</script>', {});
    expect(res.status, 'the same upload from the own origin works (control)').toBe(201);
    const after = await snapshotState(t);
    const evil = await call(t, '/api/files/upload', {
      cookie,
      origin: 'http://evil.example',
      method: 'POST',
      query: { username: 'ana', file: 'evil.html' },
      body: 'x'.repeat(10_000),
    });
    expectCrossSite(evil, 'a cross-site upload');
    expect(await snapshotState(t)).toEqual(after);
    expect(after).not.toEqual(before);
  });

  it('cannot change the password, make a key, end the session or delete sessions', async () => {
    const evil = { cookie, origin: 'http://evil.example' };
    expectCrossSite(
      await call(t, '/api/auth/password', { ...evil, body: { password: passwordOf('ana'), newpassword: 'Evil-chosen-pw-1' } }),
      'auth.password',
    );
    expectCrossSite(await call(t, '/api/keys/create', { ...evil, body: { label: 'evil', scope: 'write' } }), 'keys.create');
    expectCrossSite(await call(t, '/api/auth/logout', { ...evil, method: 'POST' }), 'auth.logout');
    expectCrossSite(await call(t, '/api/auth/sessions/delete', { ...evil, body: { id: '0'.repeat(32) } }), 'auth.sessions.delete');
    expectCrossSite(await call(t, '/api/files/share', { ...evil, body: { username: 'ana', file: 'planted.html' } }), 'files.share');
    expectCrossSite(
      await call(t, '/api/user/edit', { ...evil, body: { username: 'ana', newusername: 'ana', newemail: 'evil@evil.example' } }),
      'user.edit',
    );
    // Still signed in, same password, no key, no share, same e-mail.
    expect((await call(t, '/api/auth/me', { cookie })).body.user).toMatchObject({ username: 'ana', email: 'ana@example.com' });
    expect((await login(t, 'ana', passwordOf('ana'))).res.status).toBe(200);
    const keys = await call(t, '/api/keys', { cookie });
    expect(keys.text).not.toContain('"evil"');
    const files = await call(t, '/api/files', { cookie, query: { username: 'ana' } });
    expect(files.body.files.find((f: { name: string }) => f.name === 'planted.html').shared).toBe(false);
  });

  it('with no Origin needs Sec-Fetch-Site: same-origin', async () => {
    const before = await snapshotState(t);
    for (const site of ['cross-site', 'same-site', 'none']) {
      const res = await call(t, '/api/folders/create', {
        cookie,
        origin: null,
        headers: { 'Sec-Fetch-Site': site },
        body: { username: 'ana', folder: 'csrf2' },
      });
      expectCrossSite(res, `no Origin, Sec-Fetch-Site: ${site}`);
    }
    const bare = await call(t, '/api/folders/create', { cookie, origin: null, body: { username: 'ana', folder: 'csrf2' } });
    expectCrossSite(bare, 'no Origin and no Sec-Fetch-Site');
    expect(await snapshotState(t)).toEqual(before);
    const same = await call(t, '/api/folders/create', {
      cookie,
      origin: null,
      headers: { 'Sec-Fetch-Site': 'same-origin' },
      body: { username: 'ana', folder: 'csrf2' },
    });
    expect(same.status, show(same)).toBe(201);
  });

  it('a foreign Origin wins over Sec-Fetch-Site: same-origin', async () => {
    const res = await call(t, '/api/folders/create', {
      cookie,
      origin: 'http://evil.example',
      headers: { 'Sec-Fetch-Site': 'same-origin' },
      body: { username: 'ana', folder: 'csrf3' },
    });
    expectCrossSite(res, 'foreign Origin with Sec-Fetch-Site: same-origin');
  });
});

describe('a cookie POST from the daemon’s own origin', () => {
  it('works from each own origin (127.0.0.1, localhost, [::1] with the port)', async () => {
    let i = 0;
    for (const origin of [t.url, `http://localhost:${t.port}`, `http://[::1]:${t.port}`]) {
      const res = await call(t, '/api/folders/create', { cookie, origin, body: { username: 'ana', folder: `own-${i++}` } });
      expect(res.status, `Origin ${origin}: ${show(res)}`).toBe(201);
    }
  });

  it('works from NIMBUS_PUBLIC_URL’s origin', async () => {
    const proxied = await startTestDaemon({ env: { NIMBUS_PUBLIC_URL: 'https://files.example.com' } });
    try {
      await makeUser(proxied, 'ana');
      const c = await signIn(proxied, 'ana', passwordOf('ana'), { host: 'files.example.com' });
      const res = await call(proxied, '/api/folders/create', {
        cookie: c,
        host: 'files.example.com',
        origin: 'https://files.example.com',
        body: { username: 'ana', folder: 'x' },
      });
      expect(res.status, show(res)).toBe(201);
      const evil = await call(proxied, '/api/folders/create', {
        cookie: c,
        host: 'files.example.com',
        origin: 'https://files.example.com.evil.example',
        body: { username: 'ana', folder: 'y' },
      });
      expectCrossSite(evil, 'a look-alike of the public origin');
    } finally {
      await proxied.close();
    }
  });

  it('GETs with a cookie are not refused for their Origin (they change nothing)', async () => {
    const res = await call(t, '/api/auth/me', { cookie, origin: 'http://evil.example' });
    expect(res.status, show(res)).toBe(200);
  });
});

describe('key-authenticated requests', () => {
  it('are not affected by a foreign Origin (tools)', async () => {
    const res = await call(t, '/api/folders/create', {
      key: t.key,
      origin: 'http://evil.example',
      body: { username: 'ana', folder: 'by-key' },
    });
    expect(res.status, show(res)).toBe(201);
    const personal = await call(t, '/api/keys/create', {
      cookie,
      body: { label: 'ana-tool', scope: 'write', password: passwordOf('ana') },
    });
    expect(personal.status, show(personal)).toBe(201);
    const byPersonal = await call(t, '/api/folders/create', {
      key: personal.body.key,
      origin: 'http://evil.example',
      headers: { 'Sec-Fetch-Site': 'cross-site' },
      body: { username: 'ana', folder: 'by-personal-key' },
    });
    expect(byPersonal.status, show(byPersonal)).toBe(201);
  });

  it('a key sent with a cookie is a key request (the cookie is ignored)', async () => {
    const res = await call(t, '/api/folders/create', {
      key: t.key,
      cookie,
      origin: 'http://evil.example',
      body: { username: 'ana', folder: 'key-and-cookie' },
    });
    expect(res.status, show(res)).toBe(201);
  });
});

describe('public auth POSTs with an Origin', () => {
  it('login from a foreign Origin is 403 and makes no session; with none or its own, it works', async () => {
    const evil = await login(t, 'ana', passwordOf('ana'), { origin: 'http://evil.example' });
    expectCrossSite(evil.res, 'a cross-site login');
    expect(sessionCookie(evil.res)).toBeNull();
    expect((await login(t, 'ana', passwordOf('ana'), { origin: null })).res.status).toBe(200);
    expect((await login(t, 'ana', passwordOf('ana'), { origin: t.url })).res.status).toBe(200);
  });

  it('reset from a foreign Origin is 403 and sends no mail', async () => {
    const before = (await readOutbox(t.dataDir)).length;
    const res = await call(t, '/api/auth/reset', { origin: 'http://evil.example', body: { username: 'ana' } });
    expectCrossSite(res, 'a cross-site reset');
    expect((await readOutbox(t.dataDir)).length).toBe(before);
  });

  it('register from a foreign Origin is 403 even when registration is open', async () => {
    const open = await startTestDaemon({ env: { NIMBUS_REGISTRATION: 'open', NIMBUS_KEYCHAIN: 'off' } });
    try {
      const res = await call(open, '/api/auth/register', {
        origin: 'http://evil.example',
        body: { username: 'mallory', email: 'm@evil.example', password: 'Mallory-pw-8812' },
      });
      expectCrossSite(res, 'a cross-site registration');
      expect(sessionCookie(res)).toBeNull();
      expect((await call(open, '/api/user', { key: open.key, query: { username: 'mallory' } })).status).toBe(404);
    } finally {
      await open.close();
    }
  });
});

describe('other configured origins', () => {
  it('an origin granted CORS is not the daemon’s own: cookie POSTs from it are refused, and no credentials are granted', async () => {
    const cors = await startTestDaemon({ env: { NIMBUS_CORS_ORIGINS: 'http://app.example' } });
    try {
      await makeUser(cors, 'ana');
      const c = await signIn(cors, 'ana', passwordOf('ana'));
      const res = await call(cors, '/api/folders/create', {
        cookie: c,
        origin: 'http://app.example',
        body: { username: 'ana', folder: 'x' },
      });
      expectCrossSite(res, 'a cookie POST from a CORS origin');
      const read = await call(cors, '/api/auth/me', { cookie: c, origin: 'http://app.example' });
      expect(read.headers['access-control-allow-credentials'], 'cookies are never shared with another origin').toBeUndefined();
      const preflight = await call(cors, '/api/auth/me', {
        method: 'OPTIONS',
        origin: 'http://app.example',
        headers: { 'Access-Control-Request-Method': 'POST' },
      });
      expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
    } finally {
      await cors.close();
    }
  });

  it('a host of NIMBUS_ALLOWED_HOSTS is an own origin over http', async () => {
    const lan = await startTestDaemon({ env: { NIMBUS_ALLOWED_HOSTS: 'nimbus.lan:8080' } });
    try {
      await makeUser(lan, 'ana');
      const c = await signIn(lan, 'ana', passwordOf('ana'));
      const res = await call(lan, '/api/folders/create', {
        cookie: c,
        host: 'nimbus.lan:8080',
        origin: 'http://nimbus.lan:8080',
        body: { username: 'ana', folder: 'lan' },
      });
      expect(res.status, show(res)).toBe(201);
    } finally {
      await lan.close();
    }
  });
});

describe('the Host check', () => {
  it('stays in front of everything: a foreign Host is 403 forbidden_host with a valid cookie and own Origin', async () => {
    const before = await snapshotState(t);
    const res = await call(t, '/api/folders/create', {
      cookie,
      host: 'evil.example',
      origin: 'http://evil.example',
      body: { username: 'ana', folder: 'rebinding' },
    });
    expect(res.status, show(res)).toBe(403);
    expect(codeOf(res)).toBe('forbidden_host');
    const own = await call(t, '/api/folders/create', {
      cookie,
      host: `evil.example:${t.port}`,
      origin: t.url,
      body: { username: 'ana', folder: 'rebinding' },
    });
    expect(own.status).toBe(403);
    expect(codeOf(own)).toBe('forbidden_host');
    const signInThere = await login(t, 'ana', passwordOf('ana'), { host: 'evil.example' });
    expect(signInThere.res.status).toBe(403);
    expect(sessionCookie(signInThere.res)).toBeNull();
    expect(await snapshotState(t)).toEqual(before);
  });
});

describe('cookie tossing from another port of this machine', () => {
  // Cookies are not kept apart by port: a page on localhost:<other port> can set its own
  // nimbus_session (with Path=/api, which the browser sends first) beside the user's.
  it('refuses a request that carries two different session cookies, whichever comes first', async () => {
    await makeUser(t, 'mallory');
    const planted = await signIn(t, 'mallory', passwordOf('mallory'));
    for (const header of [`nimbus_session=${planted}; nimbus_session=${cookie}`, `nimbus_session=${cookie}; nimbus_session=${planted}`]) {
      const read = await call(t, '/api/auth/me', { headers: { Cookie: header } });
      expect(read.status, show(read)).toBe(401);
      const write = await call(t, '/api/folders/create', { headers: { Cookie: header }, body: { username: 'mallory', folder: 'tossed' } });
      expect(write.status, show(write)).toBe(401);
    }
    // The same cookie twice is still one session.
    const same = await call(t, '/api/auth/me', { headers: { Cookie: `nimbus_session=${cookie}; nimbus_session=${cookie}` } });
    expect(same.status, show(same)).toBe(200);
  });
});
