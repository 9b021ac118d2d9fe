/**
 * Sessions (docs/accounts.md, "Sessions"): revoked at once on logout, on auth.sessions.delete,
 * on a password change (the others), when an admin sets the password, renames or deletes the
 * user; what they opened (event streams) closes with them; they survive a restart; a user
 * lists and ends only their own.
 */
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { onDisk } from '../helpers/backend.js';
import { editDb, readDb, readDbText, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { openEventStream, type EventStream } from '../helpers/events.js';
import { call, codeOf, COOKIE, login, makeKey, makeUser, passwordOf, setCookies, show, signIn, userSession } from '../helpers/accounts.js';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.close());

const setRoleByAdmin = async (username: string, name: string) => {
  const res = await call(t, '/api/user/role', { key: t.key, body: { username, name } });
  expect(res.status, show(res)).toBe(201);
};

const me = (cookie: string) => call(t, '/api/auth/me', { cookie });
const alive = async (cookie: string) => (await me(cookie)).status === 200;
const sessions = (cookie: string) => call(t, '/api/auth/sessions', { cookie });

async function expectDead(cookie: string, what: string) {
  const res = await me(cookie);
  expect(res.status, `${what}: ${show(res)}`).toBe(401);
}

const streams: EventStream[] = [];
async function stream(cookie: string): Promise<EventStream> {
  const s = await openEventStream(t.url, { Cookie: `${COOKIE}=${cookie}` });
  streams.push(s);
  expect(s.status, 'the event stream opens for a session').toBe(200);
  return s;
}
afterAll(async () => {
  await Promise.all(streams.map((s) => s.close()));
});

async function expectClosed(s: EventStream, what: string) {
  await vi.waitFor(() => expect(s.ended(), `${what}: the stream ended`).toBe(true), { timeout: 3000, interval: 20 });
}

describe('logout', () => {
  it('answers {msg}, clears the cookie with Max-Age=0, and the old cookie is refused at once', async () => {
    const cookie = await userSession(t, 'lou');
    const res = await call(t, '/api/auth/logout', { cookie, method: 'POST' });
    expect(res.status, show(res)).toBe(200);
    expect(Object.keys(res.body)).toEqual(['msg']);
    const cleared = setCookies(res).find((c) => c.name === COOKIE);
    expect(cleared, 'a Set-Cookie that clears nimbus_session').toBeDefined();
    expect(cleared!.attrs.get('max-age')).toBe('0');
    expect(cleared!.attrs.has('httponly')).toBe(true);
    expect(cleared!.attrs.get('path')).toBe('/');
    expect(cleared!.attrs.get('samesite')?.toLowerCase()).toBe('strict');
    expect(cleared!.value).not.toBe(cookie);
    await expectDead(cookie, 'right after logout');
    const again = await call(t, '/api/auth/logout', { cookie, method: 'POST' });
    expect(again.status, `logging out with a dead cookie: ${show(again)}`).toBe(401);
  });

  it('closes an event stream opened with that session', async () => {
    const cookie = await userSession(t, 'lea');
    const s = await stream(cookie);
    expect(s.ended()).toBe(false);
    expect((await call(t, '/api/auth/logout', { cookie, method: 'POST' })).status).toBe(200);
    await expectClosed(s, 'after logout');
  });

  it('ends only that session: the user’s other sessions go on', async () => {
    await makeUser(t, 'lyn');
    const a = await signIn(t, 'lyn', passwordOf('lyn'));
    const b = await signIn(t, 'lyn', passwordOf('lyn'));
    expect((await call(t, '/api/auth/logout', { cookie: a, method: 'POST' })).status).toBe(200);
    await expectDead(a, 'the one logged out');
    expect(await alive(b)).toBe(true);
  });

  it('answers 200 for a key, which keeps working', async () => {
    const res = await call(t, '/api/auth/logout', { key: t.key, method: 'POST' });
    expect(res.status, show(res)).toBe(200);
    expect((await call(t, '/api/auth/me', { key: t.key })).status).toBe(200);
  });

  it('answers 401 with no credential', async () => {
    expect((await call(t, '/api/auth/logout', { method: 'POST' })).status).toBe(401);
  });
});

describe('auth.password', () => {
  it('revokes every other session of the user (and their streams) but not the current one', async () => {
    await makeUser(t, 'pam');
    const current = await signIn(t, 'pam', passwordOf('pam'));
    const other = await signIn(t, 'pam', passwordOf('pam'));
    const third = await signIn(t, 'pam', passwordOf('pam'));
    const otherStream = await stream(other);
    const currentStream = await stream(current);
    const bystander = await userSession(t, 'pia');
    const res = await call(t, '/api/auth/password', {
      cookie: current,
      body: { password: passwordOf('pam'), newpassword: 'Fresh-pw-8812' },
    });
    expect(res.status, show(res)).toBe(200);
    expect(Object.keys(res.body)).toEqual(['msg']);
    expect(await alive(current), 'the session that changed it').toBe(true);
    await expectDead(other, 'another session');
    await expectDead(third, 'a third session');
    await expectClosed(otherStream, 'the other session’s stream');
    expect(currentStream.ended(), 'the current session’s stream stays open').toBe(false);
    expect(await alive(bystander), 'another user’s session').toBe(true);
    expect((await login(t, 'pam', 'Fresh-pw-8812')).res.status).toBe(200);
    expect((await login(t, 'pam', passwordOf('pam'), { from: '127.0.5.1' })).res.status).toBe(401);
  });

  it('answers 401 invalid_credentials for a wrong current password and changes nothing', async () => {
    await makeUser(t, 'pol');
    const current = await signIn(t, 'pol', passwordOf('pol'));
    const other = await signIn(t, 'pol', passwordOf('pol'));
    const res = await call(t, '/api/auth/password', {
      cookie: current,
      body: { password: 'not-the-current-1', newpassword: 'Fresh-pw-8812' },
      from: '127.0.5.2',
    });
    expect(res.status, show(res)).toBe(401);
    expect(codeOf(res)).toBe('invalid_credentials');
    expect(await alive(current)).toBe(true);
    expect(await alive(other), 'no revocation on a refused change').toBe(true);
    expect((await login(t, 'pol', passwordOf('pol'))).res.status).toBe(200);
  });
});

describe('an admin’s changes to a user', () => {
  async function twoSessions(name: string) {
    await makeUser(t, name);
    const a = await signIn(t, name, passwordOf(name));
    const b = await signIn(t, name, passwordOf(name));
    return { a, b, s: await stream(a) };
  }
  const edit = (params: Record<string, string>) => call(t, '/api/user/edit', { key: t.key, body: params });

  it('setting the password (user.edit newpassword) revokes all their sessions and streams', async () => {
    const { a, b, s } = await twoSessions('ida');
    const res = await edit({ username: 'ida', newusername: 'ida', newemail: 'ida@example.com', newpassword: 'Admin-set-pw-1' });
    expect(res.status, show(res)).toBe(201);
    await expectDead(a, 'session a');
    await expectDead(b, 'session b');
    await expectClosed(s, 'ida’s stream');
    expect((await login(t, 'ida', 'Admin-set-pw-1')).res.status).toBe(200);
  });

  it('renaming revokes all their sessions; their personal key follows the new name', async () => {
    const { a, b, s } = await twoSessions('ren');
    const key = await makeKey(t, { cookie: a }, 'ren-tool', 'write');
    const res = await edit({ username: 'ren', newusername: 'renata', newemail: 'ren@example.com' });
    expect(res.status, show(res)).toBe(201);
    await expectDead(a, 'session a');
    await expectDead(b, 'session b');
    await expectClosed(s, 'ren’s stream');
    const byKey = await call(t, '/api/auth/me', { key });
    expect(byKey.status, show(byKey)).toBe(200);
    expect(byKey.body.user.username).toBe('renata');
    expect((await call(t, '/api/files', { key, query: { username: 'renata' } })).status).toBe(200);
    expect((await login(t, 'renata', passwordOf('ren'))).res.status).toBe(200);
  });

  it('deleting the user revokes their sessions and deletes their personal keys', async () => {
    const { a, b, s } = await twoSessions('del');
    const key = await makeKey(t, { cookie: a }, 'del-tool', 'write');
    const res = await call(t, '/api/user/delete', { key: t.key, body: { username: 'del' } });
    expect(res.status, show(res)).toBe(200);
    await expectDead(a, 'session a');
    await expectDead(b, 'session b');
    await expectClosed(s, 'del’s stream');
    expect((await call(t, '/api/auth/me', { key, from: '127.0.5.3' })).status, 'the deleted user’s personal key').toBe(401);
    // A new user of the same name inherits nothing.
    await makeUser(t, 'del');
    await expectDead(a, 'an old session after the name is taken again');
    expect((await call(t, '/api/auth/me', { key, from: '127.0.5.3' })).status).toBe(401);
  });

  it('changing only the e-mail leaves the sessions alone', async () => {
    const { a, b } = await twoSessions('eli');
    const res = await edit({ username: 'eli', newusername: 'eli', newemail: 'eli@elsewhere.example' });
    expect(res.status, show(res)).toBe(201);
    expect(await alive(a)).toBe(true);
    expect(await alive(b)).toBe(true);
  });
});

describe('the session list', () => {
  const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
  const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0';
  const SAFARI =
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

  it('lists the caller’s sessions with id, device, address, createdAt, lastUsedAt and current', async () => {
    await makeUser(t, 'sal');
    const a = await signIn(t, 'sal', passwordOf('sal'), { from: '127.0.6.1', headers: { 'User-Agent': FIREFOX } });
    const b = await signIn(t, 'sal', passwordOf('sal'), { from: '127.0.6.2', headers: { 'User-Agent': SAFARI } });
    await userSession(t, 'stranger');
    const res = await sessions(a);
    expect(res.status, show(res)).toBe(200);
    expect(Object.keys(res.body)).toEqual(['sessions']);
    const list = res.body.sessions as Record<string, unknown>[];
    expect(list).toHaveLength(2);
    for (const s of list) {
      expect(Object.keys(s).sort()).toEqual(['address', 'createdAt', 'current', 'device', 'id', 'lastUsedAt']);
      expect(s.id).toMatch(/^[0-9a-f]{32}$/);
      expect(s.device).toEqual(expect.any(String));
      expect(s.address).toEqual(expect.any(String));
      expect(s.createdAt).toMatch(ISO);
      expect(s.lastUsedAt).toMatch(ISO);
    }
    const current = list.filter((s) => s.current === true);
    expect(current).toHaveLength(1);
    expect(current[0].address).toContain('127.0.6.1');
    const other = list.find((s) => s.current === false)!;
    expect(other.address).toContain('127.0.6.2');
    expect(current[0].device).not.toBe(other.device);
    expect(String(current[0].device).length).toBeGreaterThan(0);
    // b sees the same two, with its own as current.
    const fromB = (await sessions(b)).body.sessions as Record<string, unknown>[];
    expect(fromB.find((s) => s.current)!.id).toBe(other.id);
    expect(res.text).not.toContain(a);
    expect(res.text).not.toContain(b);
  });
});

describe('auth.sessions.delete', () => {
  const del = (cookie: string, id: string, from?: string) => call(t, '/api/auth/sessions/delete', { cookie, body: { id }, from });
  const idOf = async (cookie: string, current: boolean) =>
    ((await sessions(cookie)).body.sessions as { id: string; current: boolean }[]).find((s) => s.current === current)!.id;

  it('ends another session of the caller at once, and its stream', async () => {
    await makeUser(t, 'dee');
    const a = await signIn(t, 'dee', passwordOf('dee'));
    const b = await signIn(t, 'dee', passwordOf('dee'));
    const s = await stream(b);
    const res = await del(a, await idOf(a, false));
    expect(res.status, show(res)).toBe(200);
    expect(Object.keys(res.body)).toEqual(['msg']);
    await expectDead(b, 'the deleted session');
    await expectClosed(s, 'its stream');
    expect(await alive(a)).toBe(true);
  });

  it('answers 404 session_not_found for another user’s session id, which keeps working', async () => {
    const mine = await userSession(t, 'mo');
    const theirs = await userSession(t, 'ny');
    const theirId = await idOf(theirs, true);
    const res = await del(mine, theirId);
    expect(res.status, show(res)).toBe(404);
    expect(codeOf(res)).toBe('session_not_found');
    expect(await alive(theirs), 'the other user’s session').toBe(true);
    const unknown = await del(mine, 'f'.repeat(32));
    expect(unknown.status).toBe(404);
    expect(unknown.text, 'the same answer as an id that does not exist').toBe(res.text);
  });

  it('answers 404 to the admin key for a user’s session id (it is no one’s own session)', async () => {
    const theirs = await userSession(t, 'ola');
    const res = await call(t, '/api/auth/sessions/delete', { key: t.key, body: { id: await idOf(theirs, true) } });
    expect(res.status, show(res)).toBe(404);
    expect(await alive(theirs)).toBe(true);
  });

  it('may end the current session itself', async () => {
    const cookie = await userSession(t, 'cur');
    const res = await del(cookie, await idOf(cookie, true));
    expect(res.status, show(res)).toBe(200);
    await expectDead(cookie, 'the current session after deleting itself');
  });
});

describe('what a session opened', () => {
  it('a keep-alive connection that carried the session is closed when it is revoked', async () => {
    const cookie = await userSession(t, 'kal');
    const socket = net.connect(t.port, '127.0.0.1');
    let received = '';
    let closed = false;
    socket.on('data', (c: Buffer) => (received += c.toString('latin1')));
    socket.on('close', () => (closed = true));
    socket.on('error', () => {});
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(`GET /api/auth/me HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\nCookie: ${COOKIE}=${cookie}\r\n\r\n`);
    await vi.waitFor(() => expect(received).toMatch(/^HTTP\/1\.1 200/), { timeout: 3000 });
    expect(closed).toBe(false);
    expect((await call(t, '/api/auth/logout', { cookie, method: 'POST' })).status).toBe(200);
    await vi.waitFor(() => expect(closed, 'the connection closed').toBe(true), { timeout: 3000, interval: 20 });
    socket.destroy();
  });
});

describe('a change of role', () => {
  it('takes effect on the next request of a session and a personal key', async () => {
    const cookie = await userSession(t, 'boss');
    await setRoleByAdmin('boss', 'admin');
    const key = await makeKey(t, { cookie }, 'boss-tool', 'write');
    expect((await call(t, '/api/user/all', { cookie })).status).toBe(200);
    expect((await call(t, '/api/user/all', { key })).status).toBe(200);
    await setRoleByAdmin('boss', 'user');
    const bySession = await call(t, '/api/user/all', { cookie });
    expect(bySession.status, `demoted session: ${show(bySession)}`).toBe(403);
    expect(codeOf(bySession)).toBe('admin_only');
    expect((await call(t, '/api/user/all', { key })).status, 'demoted user’s key').toBe(403);
    expect((await me(cookie)).body.admin).toBe(false);
  });
});

describe('a name used again', () => {
  it('a renamed user’s key follows them, never the new user who takes the old name', async () => {
    const cookie = await userSession(t, 'nam');
    const key = await makeKey(t, { cookie }, 'nam-tool', 'write');
    const renamed = await call(t, '/api/user/edit', {
      key: t.key,
      body: { username: 'nam', newusername: 'nam2', newemail: 'nam@example.com' },
    });
    expect(renamed.status, show(renamed)).toBe(201);
    await makeUser(t, 'nam');
    const res = await call(t, '/api/auth/me', { key });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.user.username).toBe('nam2');
    expect((await call(t, '/api/files', { key, query: { username: 'nam' } })).status, 'the new nam’s files').toBe(404);
  });
});

describe('a restart', () => {
  it('keeps sessions (the same cookie works) and keeps revocations', async () => {
    await makeUser(t, 'rex');
    const kept = await signIn(t, 'rex', passwordOf('rex'));
    const ended = await signIn(t, 'rex', passwordOf('rex'));
    expect((await call(t, '/api/auth/logout', { cookie: ended, method: 'POST' })).status).toBe(200);
    await Promise.all(streams.map((s) => s.close()));
    await t.stop();
    await t.restart();
    const res = await me(kept);
    expect(res.status, `the session after a restart: ${show(res)}`).toBe(200);
    expect(res.body.user.username).toBe('rex');
    await expectDead(ended, 'a logged-out session after a restart');
    const db = await readDbText(t);
    expect(db, 'db.json holds no cookie value (only hashes)').not.toContain(kept);
  });
});

describe('expiry (times kept in db.json, moved back while the daemon is stopped)', () => {
  const DAY = 24 * 3600_000;
  type StoredSession = { username: string; createdAt: string; lastUsedAt: string; expiresAt?: string };

  async function age(username: string, change: (s: StoredSession) => void) {
    await t.stop();
    await editDb(t, (db) => {
      const mine = (db.sessions as StoredSession[]).filter((s) => s.username === username);
      expect(mine.length, `sessions of ${username} in db.json`).toBeGreaterThan(0);
      mine.forEach(change);
    });
    await t.restart();
  }

  it('keeps 30 days from sign-in as the limit', async () => {
    const cookie = await userSession(t, 'exp30');
    await vi.waitFor(async () => {
      const db = await readDb(t);
      const s = (db.sessions as StoredSession[]).find((x) => x.username === 'exp30');
      expect(s).toBeDefined();
      const life = Date.parse(s!.expiresAt ?? '') - Date.parse(s!.createdAt);
      expect(Math.abs(life - 30 * DAY)).toBeLessThan(60_000);
    });
    expect(await alive(cookie)).toBe(true);
  });

  it('ends a session unused for more than 7 days', async () => {
    const cookie = await userSession(t, 'idle');
    await age('idle', (s) => {
      s.createdAt = new Date(Date.now() - 8 * DAY).toISOString();
      s.lastUsedAt = new Date(Date.now() - 7 * DAY - 60_000).toISOString();
    });
    await expectDead(cookie, 'a session idle for 7 days and a minute');
  });

  it('keeps a session used 6 days ago, and a use moves its lastUsedAt to now', async () => {
    const cookie = await userSession(t, 'recent');
    await age('recent', (s) => {
      s.createdAt = new Date(Date.now() - 20 * DAY).toISOString();
      s.lastUsedAt = new Date(Date.now() - 6 * DAY).toISOString();
    });
    expect(await alive(cookie)).toBe(true);
    const [listed] = (await sessions(cookie)).body.sessions as { lastUsedAt: string }[];
    expect(Date.now() - Date.parse(listed.lastUsedAt)).toBeLessThan(60_000);
  });

  it('ends a session 30 days after sign-in even if used every day', async () => {
    const cookie = await userSession(t, 'old30');
    await age('old30', (s) => {
      s.createdAt = new Date(Date.now() - 30 * DAY - 60_000).toISOString();
      s.lastUsedAt = new Date(Date.now() - 60_000).toISOString();
      if (s.expiresAt !== undefined) s.expiresAt = new Date(Date.now() - 60_000).toISOString();
    });
    await expectDead(cookie, 'a session 30 days and a minute old');
  });
});

// Embedded only: the faked Date would also sign this process's S3 requests days off, which
// the object store refuses (the expiry rules themselves are covered above on every backend).
onDisk(() => {
  describe('expiry by the clock (the daemon runs in this process: its Date is moved on, timers stay real)', () => {
    const DAY = 24 * 3600_000;
    afterEach(() => {
      vi.useRealTimers();
    });

    it('idle time is counted from the last use: used every 6 days it lives on, until 30 days from sign-in', async () => {
      const cookie = await userSession(t, 'clock');
      vi.useFakeTimers({ toFake: ['Date'] });
      const signedIn = Date.now();
      for (const day of [6, 12, 18, 24, 29]) {
        vi.setSystemTime(signedIn + day * DAY);
        expect(await alive(cookie), `day ${day}`).toBe(true);
      }
      vi.setSystemTime(signedIn + 30 * DAY + 60_000);
      await expectDead(cookie, '30 days and a minute after sign-in');
    });

    it('a session unused for 7 days ends', async () => {
      const cookie = await userSession(t, 'clock2');
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + 7 * DAY + 60_000);
      await expectDead(cookie, 'unused for 7 days and a minute');
    });
  });
});
