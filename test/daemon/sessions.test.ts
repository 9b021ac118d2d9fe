/**
 * Sessions on a real daemon (docs/accounts.md, "Sessions"): listing and ending one's own,
 * surviving a restart, the 30-day life and 7-day idle end, the lazily saved last use, and
 * revocation (connections and event streams close) on logout and when the user is deleted,
 * renamed or has their password set by an admin.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { api, signIn } from '../helpers/api.js';
import { onDisk } from '../helpers/backend.js';
import { createUser, editDb, readDb, readDbText, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { openEventStream } from '../helpers/events.js';
import { expectErrorBody } from '../helpers/records.js';

const WAIT = { timeout: 10_000, interval: 25 };
let t: TestDaemon;
let n = 0;

async function newUser(): Promise<string> {
  const username = `s${++n}`;
  await createUser(t, username);
  return username;
}

const me = (d: TestDaemon, headers: Record<string, string>) => api(d, 'auth.me', {}, { key: null, headers });

beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(async () => {
  await t?.close();
});

describe('auth.sessions', () => {
  it('lists the caller’s own sessions only, with device, address and which one is this', async () => {
    const username = await newUser();
    const first = await signIn(t, username);
    await api(
      t,
      'auth.login',
      { username, password: 'password123' },
      { key: null, headers: { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' } },
    );
    await signIn(t, await newUser()); // someone else's
    const res = await api(t, 'auth.sessions', {}, { key: null, headers: first.headers });
    expect(res.status).toBe(200);
    expect(res.body.sessions).toHaveLength(2);
    expect(res.body.sessions.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    expect(res.body.sessions.map((s: { device: string }) => s.device)).toContain('Firefox on Linux');
    for (const s of res.body.sessions) {
      expect(s).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{32}$/),
        device: expect.any(String),
        address: '127.0.0.1',
        createdAt: expect.any(String),
        lastUsedAt: expect.any(String),
        current: expect.any(Boolean),
      });
    }
  });

  it('answers the admin key with no sessions', async () => {
    expect((await api(t, 'auth.sessions')).body).toEqual({ sessions: [] });
  });

  it('ends one session by id, and answers 404 for another user’s id as for an unknown one', async () => {
    const username = await newUser();
    const mine = await signIn(t, username);
    const other = await signIn(t, username);
    const stranger = await signIn(t, await newUser());
    const [strangerSession] = (await api(t, 'auth.sessions', {}, { key: null, headers: stranger.headers })).body.sessions;
    const theirs = await api(t, 'auth.sessions.delete', { id: strangerSession.id }, { key: null, headers: mine.headers });
    expectErrorBody(theirs, 404, 'session_not_found');
    expect(theirs.body).toEqual((await api(t, 'auth.sessions.delete', { id: 'f'.repeat(32) }, { key: null, headers: mine.headers })).body);
    expect((await me(t, stranger.headers)).status).toBe(200);

    const sessions = (await api(t, 'auth.sessions', {}, { key: null, headers: mine.headers })).body.sessions;
    const otherId = sessions.find((s) => !s.current)!.id;
    expect((await api(t, 'auth.sessions.delete', { id: otherId }, { key: null, headers: mine.headers })).status).toBe(200);
    expect((await me(t, other.headers)).status).toBe(401);
    expect((await me(t, mine.headers)).status).toBe(200);
  });
});

describe('revocation', () => {
  it('ends the session’s event stream on logout, and not another session’s', async () => {
    const username = await newUser();
    const mine = await signIn(t, username);
    const other = await signIn(t, username);
    const stream = await openEventStream(t.url, { Cookie: mine.cookie });
    const otherStream = await openEventStream(t.url, { Cookie: other.cookie });
    try {
      await vi.waitFor(() => expect(stream.text()).toContain(': connected'), WAIT);
      await vi.waitFor(() => expect(otherStream.text()).toContain(': connected'), WAIT);
      await api(t, 'auth.logout', {}, { key: null, headers: mine.headers });
      await vi.waitFor(() => expect(stream.ended()).toBe(true), WAIT);
      expect(otherStream.ended()).toBe(false);
    } finally {
      await stream.close();
      await otherStream.close();
    }
  });

  it('ends every session of a user the admin deletes, and deletes their personal keys', async () => {
    const username = await newUser();
    const { headers } = await signIn(t, username);
    const key = (await api(t, 'keys.create', { label: 'laptop', scope: 'write' }, { key: null, headers })).body.key;
    const stream = await openEventStream(t.url, { Cookie: headers.Cookie });
    try {
      await vi.waitFor(() => expect(stream.text()).toContain(': connected'), WAIT);
      expect((await api(t, 'user.delete', { username })).status).toBe(200);
      await vi.waitFor(() => expect(stream.ended()).toBe(true), WAIT);
    } finally {
      await stream.close();
    }
    expect((await me(t, headers)).status).toBe(401);
    expect((await api(t, 'auth.me', {}, { key })).status).toBe(401);
    expect((await api(t, 'keys.list')).body.keys.some((k: { username: string | null }) => k.username === username)).toBe(false);
    // A new user of the same name does not inherit anything.
    await createUser(t, username);
    expect((await me(t, headers)).status).toBe(401);
    expect((await api(t, 'auth.me', {}, { key })).status).toBe(401);
  });

  it('ends every session of a renamed user; their personal keys follow the new name', async () => {
    const username = await newUser();
    const { headers } = await signIn(t, username);
    const key = (await api(t, 'keys.create', { label: 'phone', scope: 'read' }, { key: null, headers })).body.key;
    const renamed = `${username}-new`;
    await api(t, 'user.edit', { username, newusername: renamed, newemail: 'r@example.com' });
    expect((await me(t, headers)).status).toBe(401);
    expect((await api(t, 'auth.me', {}, { key })).body.user?.username).toBe(renamed);
    expect((await api(t, 'keys.list')).body.keys).toContainEqual(expect.objectContaining({ label: 'phone', username: renamed }));
  });

  it('ends every session when an admin sets the password, not when they change only the e-mail', async () => {
    const username = await newUser();
    const first = await signIn(t, username);
    await api(t, 'user.edit', { username, newusername: username, newemail: 'changed@example.com' });
    expect((await me(t, first.headers)).status).toBe(200);
    await api(t, 'user.edit', { username, newusername: username, newemail: 'changed@example.com', newpassword: 'admin-given-1' });
    expect((await me(t, first.headers)).status).toBe(401);
    expect((await api(t, 'auth.login', { username, password: 'admin-given-1' }, { key: null })).status).toBe(200);
  });
});

describe('sessions in db.json', () => {
  it('survive a restart', async () => {
    const own = await startTestDaemon();
    try {
      await createUser(own, 'ana');
      const { cookie } = await signIn(own, 'ana');
      await own.stop();
      await own.restart();
      expect((await api(own, 'auth.me', {}, { key: null, headers: { Cookie: cookie } })).body.user?.username).toBe('ana');
    } finally {
      await own.close();
    }
  });

  // When db.json is written (with the next write, at a clean stop): the embedded store's own timing.
  onDisk(() => {
    it('save the last use with the next write of the store, and at a clean stop', async () => {
      const own = await startTestDaemon();
      try {
        await createUser(own, 'ana');
        const { cookie } = await signIn(own, 'ana');
        const signedInAt = (await readDb(own)).sessions[0].lastUsedAt;
        await new Promise((resolve) => setTimeout(resolve, 1100));
        await api(own, 'auth.me', {}, { key: null, headers: { Cookie: cookie } });
        // A read writes nothing: the last use waits in memory...
        expect((await readDb(own)).sessions[0].lastUsedAt).toBe(signedInAt);
        // ...for the next write of the store.
        await api(own, 'role.create', { name: 'extra', maxStorage: 5, badge: 'https://example.com/b.png' });
        const saved = (await readDb(own)).sessions[0].lastUsedAt;
        expect(Date.parse(saved)).toBeGreaterThan(Date.parse(signedInAt));
        await new Promise((resolve) => setTimeout(resolve, 1100));
        await api(own, 'auth.me', {}, { key: null, headers: { Cookie: cookie } });
        await own.stop();
        expect(Date.parse((await readDb(own)).sessions[0].lastUsedAt)).toBeGreaterThan(Date.parse(saved));
      } finally {
        await own.close();
      }
    });
  });

  it.each([
    ['unused for more than 7 days', { lastUsedAt: -8 * 86_400_000 }],
    ['past its 30 days', { expiresAt: -1000 }],
  ])('end when %s', async (_what, shift) => {
    const own = await startTestDaemon();
    try {
      await createUser(own, 'ana');
      const { cookie } = await signIn(own, 'ana');
      await own.stop();
      await editDb(own, (db) => {
        for (const [field, delta] of Object.entries(shift)) db.sessions[0][field] = new Date(Date.now() + delta).toISOString();
      });
      await own.restart();
      expectErrorBody(await api(own, 'auth.me', {}, { key: null, headers: { Cookie: cookie } }), 401, 'unauthorized');
      await vi.waitFor(async () => expect((await readDb(own)).sessions).toEqual([]), WAIT);
    } finally {
      await own.close();
    }
  });

  // A db.json from before accounts: only an embedded daemon reads one.
  onDisk(() => {
    it('are added to a store written before accounts', async () => {
      const own = await startTestDaemon();
      try {
        await own.stop();
        const db = await readDb(own);
        delete db.sessions;
        delete db.resets;
        await writeFile(path.join(own.dataDir, 'db.json'), JSON.stringify(db));
        await own.restart();
        const migrated = JSON.parse(await readDbText(own));
        expect(migrated).toMatchObject({ sessions: [], resets: [] });
        await createUser(own, 'ana');
        expect((await api(own, 'auth.login', { username: 'ana', password: 'password123' }, { key: null })).status).toBe(200);
      } finally {
        await own.close();
      }
    });
  });
});
