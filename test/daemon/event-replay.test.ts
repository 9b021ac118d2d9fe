/**
 * GET /api/events resumes: every message carries an `id:`, and a client that reconnects with
 * `Last-Event-ID` gets exactly what it missed, filtered as its live stream is; an id the
 * daemon can no longer answer (another boot or daemon, older than the buffer, malformed)
 * gets one `reset` event instead, and the client refetches everything.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { onDisk } from '../helpers/backend.js';
import { call, makeKey, makeUser, passwordOf, signIn } from '../helpers/accounts.js';
import { startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { clusterEnv } from '../helpers/engines.js';
import { openEventStream, type EventStream } from '../helpers/events.js';

const WAIT = { timeout: 15_000, interval: 25 };
let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon();
  await makeUser(t, 'ana');
  await makeUser(t, 'bob');
});
afterAll(() => t.close());

/** One message of the stream as sent: its id (the last one given), its type and its data. */
interface Sent {
  id: string | null;
  event: string;
  data: string;
}

/** The messages (with an `event:`) of a stream's text, and the last `id:` it carried (SSE: an id holds until the next). */
function parse(text: string): { sent: Sent[]; lastId: string | null } {
  const sent: Sent[] = [];
  let lastId: string | null = null;
  for (const block of text.split('\n\n')) {
    let event: string | null = null;
    let data: string | null = null;
    for (const line of block.split('\n')) {
      if (line.startsWith('id: ')) lastId = line.slice(4);
      else if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data = line.slice(6);
    }
    if (event !== null && data !== null) sent.push({ id: lastId, event, data });
  }
  return { sent, lastId };
}

/** Opens the stream (of `on`, by default the file's daemon) and waits for its first `id:` (where it stands now). */
async function open(headers: Record<string, string>, on: TestDaemon = t): Promise<EventStream> {
  const stream = await openEventStream(on.url, headers);
  expect(stream.status).toBe(200);
  await vi.waitFor(() => expect(parse(stream.text()).lastId).not.toBeNull(), WAIT);
  return stream;
}

const admin = (extra: Record<string, string> = {}) => ({ 'API-Key': t.key, ...extra });
const folderCreate = (username: string, folder: string) => t.api('POST', '/api/folders/create', { username, folder });

describe('resuming GET /api/events with Last-Event-ID', () => {
  it('replays exactly the events the client missed, in order, and then goes on live', async () => {
    // A stream that stays connected throughout: what the reconnecting one should have seen.
    const witness = await open(admin());
    const leaving = await open(admin());
    expect((await folderCreate('ana', 'Before')).status).toBe(201);
    await vi.waitFor(() => expect(parse(leaving.text()).sent.map((m) => m.data)).toContainEqual(expect.stringContaining('"Before"')), WAIT);
    const lastSeen = parse(leaving.text()).lastId!;
    await leaving.close();

    expect((await folderCreate('ana', 'Missed 1')).status).toBe(201);
    await upload(t, 'ana', 'missed.txt', 'x', { folder: 'Missed 1' });
    expect((await folderCreate('bob', 'Missed 2')).status).toBe(201);
    await vi.waitFor(
      () => expect(parse(witness.text()).sent.map((m) => m.data)).toContainEqual(expect.stringContaining('"Missed 2"')),
      WAIT,
    );
    const witnessed = parse(witness.text()).sent;
    const missed = witnessed.slice(witnessed.findIndex((m) => m.id === lastSeen) + 1);
    expect(missed.map((m) => m.event)).toEqual(expect.arrayContaining(['folder.added', 'file.added']));

    const back = await open(admin({ 'Last-Event-ID': lastSeen }));
    await vi.waitFor(() => expect(parse(back.text()).sent.length).toBeGreaterThanOrEqual(missed.length), WAIT);
    // Nothing twice, nothing missing, in order, with the ids the live stream gave them.
    expect(parse(back.text()).sent.slice(0, missed.length)).toEqual(missed);

    expect((await folderCreate('ana', 'After')).status).toBe(201);
    await vi.waitFor(() => expect(parse(back.text()).sent.map((m) => m.data)).toContainEqual(expect.stringContaining('"After"')), WAIT);
    const ids = parse(back.text()).sent.map((m) => Number(m.id!.split('-')[1]));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    await Promise.all([witness.close(), back.close()]);
  });

  it('replays nothing to a client that missed nothing', async () => {
    const first = await open(admin());
    const position = parse(first.text()).lastId!;
    await first.close();
    const back = await open(admin({ 'Last-Event-ID': position }));
    expect((await folderCreate('ana', 'Only live')).status).toBe(201);
    await vi.waitFor(() => expect(parse(back.text()).sent.length).toBeGreaterThan(0), WAIT);
    expect(parse(back.text()).sent.map((m) => m.event)).not.toContain('reset');
    expect(parse(back.text()).sent[0].data).toContain('"Only live"');
    await back.close();
  });

  it('answers an id from another boot or daemon, from the future, or malformed, with one reset event', async () => {
    const current = await open(admin());
    const position = parse(current.text()).lastId!;
    await current.close();
    const [epoch, seq] = position.split('-');
    const otherEpoch = epoch.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    for (const id of [`${otherEpoch}-${seq}`, `${epoch}-${Number(seq) + 1000}`, 'not an id', `${epoch}-`, `${epoch}-01`]) {
      const stream = await open(admin({ 'Last-Event-ID': id }));
      await vi.waitFor(() => expect(parse(stream.text()).sent.length).toBe(1), WAIT);
      expect(parse(stream.text()).sent[0]).toMatchObject({ event: 'reset', data: '{"type":"reset"}' });
      // The reset carries where the stream stands now, so the next reconnect resumes from there.
      expect(parse(stream.text()).sent[0].id).toMatch(new RegExp(`^${epoch}-\\d+$`));
      await stream.close();
    }
  });

  onDisk(() => {
    it('answers an id older than the buffer (more than 1,000 events ago) with a reset event', async () => {
      const first = await open(admin());
      const position = parse(first.text()).lastId!;
      const dir = path.join(t.storageDir, 'ana');
      // Written by another program: 1,100 file.added events through the watcher, quickly.
      for (let i = 0; i < 1100; i++) await writeFile(path.join(dir, `many-${i}.txt`), 'x');
      await vi.waitFor(() => expect(parse(first.text()).sent.map((m) => m.data)).toContainEqual(expect.stringContaining('many-1099.txt')), {
        timeout: 60_000,
        interval: 100,
      });
      await first.close();
      const back = await open(admin({ 'Last-Event-ID': position }));
      await vi.waitFor(() => expect(parse(back.text()).sent.length).toBeGreaterThan(0), WAIT);
      expect(parse(back.text()).sent.map((m) => m.event)).toEqual(['reset']);
      await back.close();
    }, 90_000);
  });

  it('replays to a user only their own events, as their live stream carries them', async () => {
    const cookie = await signIn(t, 'bob', passwordOf('bob'));
    const asBob = { Cookie: `nimbus_session=${cookie}` };
    const first = await open(asBob);
    const position = parse(first.text()).lastId!;
    await first.close();
    expect((await folderCreate('ana', 'Not for bob')).status).toBe(201);
    await upload(t, 'ana', 'secret.txt', 'x');
    expect((await folderCreate('bob', 'For bob')).status).toBe(201);
    const back = await open({ ...asBob, 'Last-Event-ID': position });
    await vi.waitFor(() => expect(parse(back.text()).sent.map((m) => m.data)).toContainEqual(expect.stringContaining('"For bob"')), WAIT);
    for (const message of parse(back.text()).sent) {
      if (message.event === 'index.state') continue;
      expect(JSON.parse(message.data)).toMatchObject({ username: 'bob' });
    }
    await back.close();
  });

  it('replays nothing with a deleted key: the request is refused', async () => {
    const cookie = await signIn(t, 'ana', passwordOf('ana'));
    const key = await makeKey(t, { cookie }, 'replay', 'read');
    const first = await open({ 'API-Key': key });
    const position = parse(first.text()).lastId!;
    expect((await call(t, '/api/keys/delete', { cookie, body: { label: 'replay' } })).status).toBe(200);
    await vi.waitFor(() => expect(first.ended()).toBe(true), WAIT);
    expect((await folderCreate('ana', 'After revoking')).status).toBe(201);
    const back = await openEventStream(t.url, { 'API-Key': key, 'Last-Event-ID': position });
    expect(back.status).toBe(401);
    await back.close();
  });
});

// Two daemons on one database: run once, from the node project (the cluster project would start the same pair again).
onDisk(() =>
  describe('resuming across two daemons on one database', () => {
    let a: TestDaemon;
    let b: TestDaemon;
    beforeAll(async () => {
      const env = await clusterEnv();
      a = await startTestDaemon({ env, backend: 'embedded' });
      b = await startTestDaemon({ env, backend: 'embedded' });
    }, 120_000);
    afterAll(async () => {
      await a?.close();
      await b?.close();
    });

    it('gives another daemon’s changes this daemon’s ids, replays them, and answers another daemon’s id with a reset', async () => {
      const first = await open({ 'API-Key': a.key }, a);
      const position = parse(first.text()).lastId!;
      const epoch = position.split('-')[0];
      await first.close();
      // Made through B: A learns it from the database, as a remote row change.
      const role = `replayed${Date.now()}`;
      expect((await b.api('POST', '/api/role/create', { name: role, maxStorage: '5', badge: 'https://example.com/r.png' })).status).toBe(
        201,
      );
      await vi.waitFor(async () => expect((await a.api('GET', '/api/role', { name: role })).status).toBe(200), WAIT);
      const back = await open({ 'API-Key': a.key, 'Last-Event-ID': position }, a);
      await vi.waitFor(() => expect(parse(back.text()).sent.map((m) => m.event)).toContain('role.changed'), WAIT);
      const replayed = parse(back.text()).sent.find((m) => m.event === 'role.changed')!;
      expect(replayed.id).toMatch(new RegExp(`^${epoch}-\\d+$`));
      const onB = await open({ 'API-Key': b.key, 'Last-Event-ID': replayed.id! }, b);
      await vi.waitFor(() => expect(parse(onB.text()).sent.length).toBeGreaterThan(0), WAIT);
      expect(parse(onB.text()).sent[0].event).toBe('reset');
      await Promise.all([back.close(), onB.close()]);
    });
  }),
);
