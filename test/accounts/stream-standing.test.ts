/**
 * An open event stream does not outlive the standing it was opened with (issue 22, item 5):
 * when a user is demoted or promoted, or renamed, the streams they opened (by session and by
 * personal key) close, and nothing is delivered on them in between that the caller could not
 * read at that moment. The client's EventSource reconnects and is authorized afresh. A
 * renamed user's key follows them by its id, never reaching a new account of the old name.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { embeddedRun } from '../helpers/backend.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { openEventStream, type EventStream } from '../helpers/events.js';
import { call, COOKIE, makeKey, makeUser, setRole, show, signIn, passwordOf, uploadAs } from '../helpers/accounts.js';

const WAIT = { timeout: 10_000, interval: 20 };

let t: TestDaemon;
const streams: EventStream[] = [];
beforeAll(async () => {
  t = await startTestDaemon();
  await makeUser(t, 'dave');
});
afterAll(async () => {
  await Promise.all(streams.map((s) => s.close()));
  await t.close();
});

/** Opens GET /api/events on `daemon` with these headers, once the daemon said it is connected. */
async function open(headers: Record<string, string>, daemon: TestDaemon = t): Promise<EventStream> {
  const s = await openEventStream(daemon.url, headers);
  streams.push(s);
  expect(s.status, 'the event stream opens').toBe(200);
  await vi.waitFor(() => expect(s.text()).toContain(': connected'), WAIT);
  return s;
}

const byCookie = (cookie: string) => ({ Cookie: `${COOKIE}=${cookie}` });
const byKey = (key: string) => ({ 'API-Key': key });
const receivedFile = (s: EventStream, file: string) => s.messages.some((m) => m.data.file === file);

/** Uploads a file of `username` with the admin key (through the first daemon). */
async function upload(username: string, file: string) {
  const res = await uploadAs(t, { key: t.key }, username, file, `content of ${file}`);
  expect(res.status, show(res)).toBe(201);
}

/**
 * Waits until the stream either ended or received `file`'s event (whichever the daemon does),
 * then asserts it ended without it.
 */
async function expectClosedWithout(s: EventStream, file: string, what: string) {
  await vi.waitFor(() => expect(s.ended() || receivedFile(s, file), `${what}: ended or got ${file}`).toBe(true), WAIT);
  expect(receivedFile(s, file), `${what} must not carry ${file}`).toBe(false);
  await vi.waitFor(() => expect(s.ended(), `${what} ended`).toBe(true), WAIT);
}

/** A POST with the admin key, its parameters in the query string and `body` as its body. */
const post = (target: string, body: string) =>
  `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\nAPI-Key: ${t.key}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/** Sends the requests at once on one connection (pipelined); the status of each answer, in order. */
async function pipelined(requests: string[]): Promise<number[]> {
  const socket = net.connect(t.port, '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.write(requests.join(''));
  const statuses = () => [...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
  await vi.waitFor(() => expect(statuses().length, received).toBe(requests.length), WAIT);
  socket.destroy();
  return statuses();
}

/** A user whose role is admin, signed in, with a personal key: the cookie and the key. */
async function adminUser(username: string): Promise<{ cookie: string; key: string }> {
  await makeUser(t, username);
  await setRole(t, username, 'admin');
  const cookie = await signIn(t, username, passwordOf(username));
  const key = await makeKey(t, { cookie }, `${username}-key`, 'write');
  return { cookie, key };
}

describe('a role change', () => {
  it('closes a demoted admin’s session and key streams: another user’s change after it is not delivered on them', async () => {
    const { cookie, key } = await adminUser('carol');
    const bySession = await open(byCookie(cookie));
    const byPersonalKey = await open(byKey(key));
    // Both are admin streams now: they carry dave's changes.
    await upload('dave', 'before-demotion.txt');
    for (const s of [bySession, byPersonalKey]) await vi.waitFor(() => expect(receivedFile(s, 'before-demotion.txt')).toBe(true), WAIT);

    await setRole(t, 'carol', 'user');
    await upload('dave', 'after-demotion.txt');
    await expectClosedWithout(bySession, 'after-demotion.txt', 'the session stream');
    await expectClosedWithout(byPersonalKey, 'after-demotion.txt', 'the key stream');

    // Streams opened now carry carol's own events only.
    const again = [await open(byCookie(cookie)), await open(byKey(key))];
    await upload('dave', 'later.txt');
    await upload('carol', 'own.txt');
    for (const s of again) {
      await vi.waitFor(() => expect(receivedFile(s, 'own.txt')).toBe(true), WAIT);
      expect(s.messages.filter((m) => m.data.username === 'dave')).toEqual([]);
      expect(s.ended()).toBe(false);
    }
  });

  it('delivers nothing of another user published while the demotion is being saved', async () => {
    const { cookie, key } = await adminUser('cleo');
    const bySession = await open(byCookie(cookie));
    const byPersonalKey = await open(byKey(key));
    // Back to back on one connection: the daemon takes the demotion first (in effect at once,
    // saved meanwhile) and uploads of dave's files right behind it, landing while it is saved.
    const uploads = Array.from({ length: 8 }, (_, i) => `in-the-window-${i}.txt`);
    const answers = await pipelined([
      post(`/api/user/role?username=cleo&name=user`, ''),
      ...uploads.map((file) => post(`/api/files/upload?username=dave&file=${file}`, 'x')),
    ]);
    expect(answers).toEqual([201, ...uploads.map(() => 201)]);
    for (const [s, what] of [
      [bySession, 'the session stream'],
      [byPersonalKey, 'the key stream'],
    ] as const) {
      await vi.waitFor(() => expect(s.ended(), `${what} ended`).toBe(true), WAIT);
      expect(s.messages.filter((m) => m.data.username === 'dave')).toEqual([]);
    }
  });

  it('closes a promoted user’s streams, so that the stream opened again carries everyone’s events', async () => {
    await makeUser(t, 'pete');
    const cookie = await signIn(t, 'pete', passwordOf('pete'));
    const key = await makeKey(t, { cookie }, 'pete-key', 'read');
    const old = [await open(byCookie(cookie)), await open(byKey(key))];
    await setRole(t, 'pete', 'admin');
    for (const s of old) await vi.waitFor(() => expect(s.ended()).toBe(true), WAIT);
    const again = await open(byKey(key));
    await upload('dave', 'seen-by-pete.txt');
    await vi.waitFor(() => expect(receivedFile(again, 'seen-by-pete.txt')).toBe(true), WAIT);
  });

  it('leaves a stream open when the new role does not change whether its user is an admin', async () => {
    await makeUser(t, 'rita');
    const key = await makeKey(t, { cookie: await signIn(t, 'rita', passwordOf('rita')) }, 'rita-key', 'read');
    const role = await call(t, '/api/role/create', {
      key: t.key,
      body: { name: 'roomy', maxStorage: '512', badge: 'https://example.com/r.png' },
    });
    expect(role.status, show(role)).toBe(201);
    const s = await open(byKey(key));
    await setRole(t, 'rita', 'roomy');
    await upload('rita', 'still-mine.txt');
    await vi.waitFor(() => expect(receivedFile(s, 'still-mine.txt')).toBe(true), WAIT);
    expect(s.ended()).toBe(false);
  });
});

describe('a rename', () => {
  it('closes the key stream opened under the old name: a new account of that name is never delivered on it', async () => {
    await makeUser(t, 'erin');
    const key = await makeKey(t, { cookie: await signIn(t, 'erin', passwordOf('erin')) }, 'erin-key', 'read');
    const old = await open(byKey(key));
    const renamed = await call(t, '/api/user/edit', {
      key: t.key,
      body: { username: 'erin', newusername: 'erin.m', newemail: 'erin@example.com' },
    });
    expect(renamed.status, show(renamed)).toBe(201);
    await makeUser(t, 'erin');
    await upload('erin', 'newcomer.txt');
    await expectClosedWithout(old, 'newcomer.txt', 'the stream opened before the rename');

    // The key acts as the renamed user, by its id: the new account of the old name is out of its reach.
    expect((await call(t, '/api/files', { key, query: { username: 'erin.m' } })).status).toBe(200);
    const foreign = await call(t, '/api/files', { key, query: { username: 'erin' } });
    expect(foreign.status, show(foreign)).toBe(404);
    const again = await open(byKey(key));
    await upload('erin', 'newcomer-2.txt');
    await upload('erin.m', 'renamed-own.txt');
    await vi.waitFor(() => expect(receivedFile(again, 'renamed-own.txt')).toBe(true), WAIT);
    expect(again.messages.filter((m) => m.data.username === 'erin')).toEqual([]);
  });
});

// Two daemons on one database: the demotion made through A reaches B's streams by its notification.
// Registered only where daemons share a database (a skipped test counts as a failure in CI).
if (!embeddedRun)
  describe('a role change made on another daemon', () => {
    let b: TestDaemon;
    beforeAll(async () => {
      b = await startTestDaemon({ env: t.env, backend: 'embedded' });
    }, 120_000);
    afterAll(() => b?.close());

    it('closes the demoted admin’s stream held on this daemon before it delivers another user’s later change', async () => {
      const { key } = await adminUser('gina');
      const onB = await open(byKey(key), b);
      await upload('dave', 'before-on-a.txt');
      await vi.waitFor(() => expect(receivedFile(onB, 'before-on-a.txt')).toBe(true), WAIT);
      await setRole(t, 'gina', 'user');
      await upload('dave', 'after-on-a.txt');
      await expectClosedWithout(onB, 'after-on-a.txt', 'the stream on B');
    });

    it('closes a renamed user’s key stream held on this daemon before a new account of the old name is delivered on it', async () => {
      await makeUser(t, 'hank');
      const key = await makeKey(t, { cookie: await signIn(t, 'hank', passwordOf('hank')) }, 'hank-key', 'read');
      const onB = await open(byKey(key), b);
      const renamed = await call(t, '/api/user/edit', {
        key: t.key,
        body: { username: 'hank', newusername: 'hank.b', newemail: 'hank@example.com' },
      });
      expect(renamed.status, show(renamed)).toBe(201);
      await makeUser(t, 'hank');
      await upload('hank', 'newcomer-on-a.txt');
      await expectClosedWithout(onB, 'newcomer-on-a.txt', 'the stream on B');
    });
  });
