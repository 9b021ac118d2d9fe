/**
 * Signing in (docs/accounts.md, "The auth API", "Sessions", "Guessing passwords"): the
 * session cookie's flags and strength, the same answer for an unknown user and a wrong
 * password (and roughly the same time), passwords refused in the query, and `auth.me` for
 * every kind of caller.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passwordVerificationsRun } from '../../daemon/keys/secrets.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { expectUser } from '../helpers/records.js';
import {
  call,
  codeOf,
  login,
  makeKey,
  makeUser,
  passwordOf,
  sessionCookie,
  setRole,
  show,
  signIn,
  userSession,
  type Resp,
} from '../helpers/accounts.js';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
  await makeUser(t, 'ana');
});
afterAll(() => t.close());

const me = (cred: { cookie?: string; key?: string }) => call(t, '/api/auth/me', cred);

describe('the session cookie', () => {
  it('is HttpOnly, SameSite=Strict, Path=/, Max-Age 30 days, not Secure over http', async () => {
    const { res, cookie } = await login(t, 'ana', passwordOf('ana'));
    expect(res.status, show(res)).toBe(200);
    const c = sessionCookie(res)!;
    expect(c, 'a nimbus_session Set-Cookie').not.toBeNull();
    expect(cookie).not.toBeNull();
    expect(c.attrs.has('httponly'), c.raw).toBe(true);
    expect(c.attrs.get('samesite')?.toLowerCase(), c.raw).toBe('strict');
    expect(c.attrs.get('path'), c.raw).toBe('/');
    expect(c.attrs.get('max-age'), c.raw).toBe('2592000');
    expect(c.attrs.has('secure'), c.raw).toBe(false);
    expect(c.attrs.has('domain'), `${c.raw}: no Domain (host-only)`).toBe(false);
  });

  it('holds at least 128 random bits, differs on every sign-in, and is never in a body', async () => {
    const values = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const { res, cookie } = await login(t, 'ana', passwordOf('ana'), { from: `127.0.0.${40 + i}` });
      expect(res.status, show(res)).toBe(200);
      expect(cookie).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(Buffer.from(cookie!, 'base64url').length).toBeGreaterThanOrEqual(16);
      expect(res.text).not.toContain(cookie!);
      for (const [name, value] of Object.entries(res.headers)) {
        if (name !== 'set-cookie') expect(String(value), name).not.toContain(cookie!);
      }
      const who = await me({ cookie: cookie! });
      expect(who.text).not.toContain(cookie!);
      const sessions = await call(t, '/api/auth/sessions', { cookie: cookie! });
      expect(sessions.status, show(sessions)).toBe(200);
      expect(sessions.text).not.toContain(cookie!);
      values.add(cookie!);
    }
    expect(values.size).toBe(3);
  });

  it('answers {user, admin} with the user record (GET /api/user’s shape), without secrets', async () => {
    const { res } = await login(t, 'ana', passwordOf('ana'));
    expect(res.status, show(res)).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['admin', 'user']);
    expect(res.body.admin).toBe(false);
    expectUser(res.body.user);
    expect(res.body.user.username).toBe('ana');
    expect(res.text).not.toContain(passwordOf('ana'));
    expect(res.text).not.toMatch(/scrypt|hash/i);
  });

  it('accepts an urlencoded body as well', async () => {
    const res = await call(t, '/api/auth/login', { body: { username: 'ana', password: passwordOf('ana') }, form: true });
    expect(res.status, show(res)).toBe(200);
    expect(sessionCookie(res)).not.toBeNull();
  });

  it('is Secure when NIMBUS_PUBLIC_URL is https', async () => {
    const https = await startTestDaemon({ env: { NIMBUS_PUBLIC_URL: 'https://files.example.com' } });
    try {
      await makeUser(https, 'ana');
      const { res } = await login(https, 'ana', passwordOf('ana'));
      expect(res.status, show(res)).toBe(200);
      const c = sessionCookie(res)!;
      expect(c.attrs.has('secure'), c.raw).toBe(true);
      expect(c.attrs.has('httponly'), c.raw).toBe(true);
      expect(c.attrs.get('samesite')?.toLowerCase(), c.raw).toBe('strict');
    } finally {
      await https.close();
    }
  });

  it('is not Secure when NIMBUS_PUBLIC_URL is plain http', async () => {
    const plain = await startTestDaemon({ env: { NIMBUS_PUBLIC_URL: 'http://files.example.com' } });
    try {
      await makeUser(plain, 'ana');
      const { res } = await login(plain, 'ana', passwordOf('ana'));
      expect(res.status, show(res)).toBe(200);
      expect(sessionCookie(res)!.attrs.has('secure')).toBe(false);
    } finally {
      await plain.close();
    }
  });
});

describe('a refused sign-in', () => {
  const expectRefused = (res: Resp) => {
    expect(res.status, show(res)).toBe(401);
    expect(codeOf(res)).toBe('invalid_credentials');
    expect(Object.keys(res.body).sort()).toEqual(['code', 'error']);
    expect(sessionCookie(res), 'no session cookie on a refusal').toBeNull();
  };

  it('answers the same status and body for an unknown user and a wrong password', async () => {
    await makeUser(t, 'bea');
    const wrong = (await login(t, 'bea', 'not-her-password', { from: '127.0.0.50' })).res;
    const unknown = (await login(t, 'nobody-here', 'not-her-password', { from: '127.0.0.51' })).res;
    expectRefused(wrong);
    expectRefused(unknown);
    expect(unknown.text).toBe(wrong.text);
    expect(unknown.headers['content-type']).toBe(wrong.headers['content-type']);
    expect(unknown.headers['www-authenticate']).toBe(wrong.headers['www-authenticate']);
    // The right password still works (one failure is no lock-out).
    expect((await login(t, 'bea', passwordOf('bea'))).res.status).toBe(200);
  });

  it('answers the same for an empty password and a missing user as for a wrong one (no 400 that tells names apart)', async () => {
    const a = (await login(t, 'bea', 'x', { from: '127.0.0.52' })).res;
    const b = (await login(t, 'nobody-here', 'x', { from: '127.0.0.53' })).res;
    expect(a.status).toBe(b.status);
    expect(a.text).toBe(b.text);
  });

  it('verifies a password for an unknown user as for a wrong one (scrypt runs for both)', async () => {
    // Not a timing: the work itself. The daemon runs in this process, so its count of password
    // verifications is the one read here.
    await makeUser(t, 'tim0');
    const verifications = async (username: string, from: string) => {
      const before = passwordVerificationsRun();
      const { res } = await login(t, username, 'wrong-password-123', { from });
      expect(res.status, show(res)).toBe(401);
      return passwordVerificationsRun() - before;
    };
    expect(await verifications('tim0', '127.0.1.1')).toBe(1);
    expect(await verifications('ghost-0', '127.0.1.2')).toBe(1);
  });
});

describe('passwords only in the body', () => {
  it('refuses a password in the query string of login with 400 password_in_query and makes no session', async () => {
    const res = await call(t, '/api/auth/login', { method: 'POST', query: { username: 'ana', password: passwordOf('ana') } });
    expect(res.status, show(res)).toBe(400);
    expect(codeOf(res)).toBe('password_in_query');
    expect(sessionCookie(res)).toBeNull();
  });

  it('refuses it even when the body carries the same credentials', async () => {
    const res = await call(t, '/api/auth/login', {
      query: { password: passwordOf('ana') },
      body: { username: 'ana', password: passwordOf('ana') },
    });
    expect(res.status, show(res)).toBe(400);
    expect(codeOf(res)).toBe('password_in_query');
    expect(sessionCookie(res)).toBeNull();
  });

  it('refuses newpassword or password in the query of auth.password, and keeps the password', async () => {
    await makeUser(t, 'cid');
    const cookie = await signIn(t, 'cid', passwordOf('cid'));
    const inQuery = await call(t, '/api/auth/password', {
      cookie,
      method: 'POST',
      query: { password: passwordOf('cid'), newpassword: 'Another-pw-991' },
    });
    expect(inQuery.status, show(inQuery)).toBe(400);
    expect(codeOf(inQuery)).toBe('password_in_query');
    const half = await call(t, '/api/auth/password', {
      cookie,
      query: { newpassword: 'Another-pw-991' },
      body: { password: passwordOf('cid') },
    });
    expect(half.status, show(half)).toBe(400);
    expect(codeOf(half)).toBe('password_in_query');
    expect((await login(t, 'cid', passwordOf('cid'))).res.status).toBe(200);
    expect((await login(t, 'cid', 'Another-pw-991', { from: '127.0.0.60' })).res.status).toBe(401);
  });

  it('refuses newpassword in the query of auth.reset.confirm', async () => {
    const res = await call(t, '/api/auth/reset/confirm', {
      method: 'POST',
      query: { token: 'A'.repeat(43), newpassword: 'Another-pw-991' },
    });
    expect(res.status, show(res)).toBe(400);
    expect(codeOf(res)).toBe('password_in_query');
  });
});

describe('auth.me', () => {
  let anaCookie: string;
  beforeAll(async () => {
    anaCookie = await signIn(t, 'ana', passwordOf('ana'));
  });

  it('answers a session with its user', async () => {
    const res = await me({ cookie: anaCookie });
    expect(res.status, show(res)).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['admin', 'canWrite', 'user']);
    expectUser(res.body.user);
    expect(res.body).toMatchObject({ user: { username: 'ana', role: 'user' }, admin: false });
  });

  it('answers the admin key and a machine key with user null, admin true', async () => {
    expect((await me({ key: t.key })).body).toEqual({ user: null, admin: true, canWrite: true });
    const machineRead = await makeKey(t, { key: t.key }, 'me-machine-read', 'read');
    const res = await me({ key: machineRead });
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toEqual({ user: null, admin: true, canWrite: false });
  });

  it('answers a personal key (write or read) as its user', async () => {
    for (const scope of ['write', 'read']) {
      const key = await makeKey(t, { cookie: anaCookie }, `ana-me-${scope}`, scope);
      const res = await me({ key });
      expect(res.status, show(res)).toBe(200);
      expect(res.body).toMatchObject({ user: { username: 'ana' }, admin: false });
    }
  });

  it('answers the session of a user with role admin as an admin', async () => {
    const cookie = await userSession(t, 'root');
    await setRole(t, 'root', 'admin');
    const res = await me({ cookie });
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toMatchObject({ user: { username: 'root', role: 'admin' }, admin: true });
  });

  it('answers 401 with no credential, a made-up cookie, or an empty one', async () => {
    expect((await me({})).status).toBe(401);
    expect((await me({ cookie: 'A'.repeat(43) })).status).toBe(401);
    const odd = await call(t, '/api/auth/me', { headers: { Cookie: 'nimbus_session=; other=1' } });
    expect(odd.status, show(odd)).toBe(401);
  });

  it('lets a key win over a cookie: the cookie is ignored when a key is sent', async () => {
    const both = await me({ key: t.key, cookie: anaCookie });
    expect(both.body).toEqual({ user: null, admin: true, canWrite: true });
    const wrongKey = await call(t, '/api/auth/me', { key: 'not-a-key-at-all', cookie: anaCookie, from: '127.0.0.70' });
    expect(wrongKey.status, `a wrong key with a good cookie: ${show(wrongKey)}`).toBe(401);
  });

  it('reads the session cookie among other cookies', async () => {
    const res = await call(t, '/api/auth/me', { headers: { Cookie: `theme=dark; nimbus_session=${anaCookie}; x=y` } });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.user.username).toBe('ana');
  });
});

describe('an attacker’s tricks at sign-in', () => {
  it('never adopts a session value the client brings (no session fixation)', async () => {
    const planted = 'PlantedByAttacker_PlantedByAttacker_0123456';
    const res = await call(t, '/api/auth/login', { cookie: planted, body: { username: 'ana', password: passwordOf('ana') } });
    expect(res.status, show(res)).toBe(200);
    expect(sessionCookie(res)!.value).not.toBe(planted);
    expect((await me({ cookie: planted })).status).toBe(401);
  });

  it('signing in as B while holding A’s session gives a new session; A’s cookie stays A’s', async () => {
    await makeUser(t, 'fixa');
    await makeUser(t, 'fixb');
    const a = await signIn(t, 'fixa', passwordOf('fixa'));
    const res = await call(t, '/api/auth/login', { cookie: a, body: { username: 'fixb', password: passwordOf('fixb') } });
    expect(res.status, show(res)).toBe(200);
    const b = sessionCookie(res)!.value;
    expect(b).not.toBe(a);
    expect((await me({ cookie: b })).body.user.username).toBe('fixb');
    const old = await me({ cookie: a });
    expect(old.status === 401 || old.body.user.username === 'fixa', `A’s cookie now: ${show(old)}`).toBe(true);
  });

  it('does not take one kind of credential for another', async () => {
    const cookie = await signIn(t, 'ana', passwordOf('ana'));
    const key = await makeKey(t, { cookie }, 'ana-confusion', 'write');
    const sessionId = ((await call(t, '/api/auth/sessions', { cookie })).body.sessions as { id: string; current: boolean }[]).find(
      (s) => s.current,
    )!.id;
    expect((await call(t, '/api/auth/me', { key: cookie, from: '127.0.0.80' })).status, 'the cookie value as an API key').toBe(401);
    expect((await call(t, '/api/auth/me', { headers: { Authorization: `Bearer ${cookie}` }, from: '127.0.0.80' })).status).toBe(401);
    expect((await me({ cookie: key })).status, 'a personal key as the cookie').toBe(401);
    expect((await me({ cookie: t.key })).status, 'the admin key as the cookie').toBe(401);
    expect((await me({ cookie: sessionId })).status, 'the public session id as the cookie').toBe(401);
  });

  it('refuses a password in the query of any /api/auth/* request, but not on the admin API’s rows', async () => {
    const cookie = await signIn(t, 'ana', passwordOf('ana'));
    for (const [method, route] of [
      ['GET', '/api/auth/me'],
      ['GET', '/api/auth/sessions'],
      ['POST', '/api/auth/logout'],
      ['POST', '/api/auth/reset'],
      ['POST', '/api/auth/register'],
    ]) {
      const res = await call(t, route, { cookie, method, query: { password: 'Leaky-pw-3141' } });
      expect(res.status, `${method} ${route}: ${show(res)}`).toBe(400);
      expect(codeOf(res)).toBe('password_in_query');
    }
    expect((await me({ cookie })).status, 'the refused logout ended nothing').toBe(200);
    const created = await call(t, '/api/user/create', {
      key: t.key,
      method: 'POST',
      query: { username: 'querypw', email: 'q@example.com', password: 'password123' },
    });
    expect(created.status, `DaneeCloud’s user.create with the password in the query: ${show(created)}`).toBe(201);
  });
});
