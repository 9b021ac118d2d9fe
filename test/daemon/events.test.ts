/** GET /api/events: Server-Sent Events for every change, whatever caused it. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { embeddedRun, onDisk } from '../helpers/backend.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { openEventStream } from '../helpers/events.js';

const WAIT = { timeout: 8000, interval: 25 };
let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon();
  await t.api('POST', '/api/user/create', { username: 'ana', email: 'ana@example.com', password: 'secret123' });
  // Only an embedded daemon watches a storage folder; the others are ready with no watcher.
  const watcher = embeddedRun ? 'inotify' : 'none';
  await vi.waitFor(async () => expect((await t.api('GET', '/api/dash')).body.index).toEqual({ state: 'ready', watcher }), WAIT);
});
afterAll(() => t.close());

/** Opens the stream (with the API key unless told otherwise) and collects its messages. */
const subscribe = (headers: Record<string, string> = { 'API-Key': t.key }) => openEventStream(t.url, headers);

describe('GET /api/events', () => {
  it('needs an API key', async () => {
    const { status } = await subscribe({});
    expect(status).toBe(401);
  });

  // A file another program writes in the storage folder: only an embedded daemon has one.
  onDisk(() => {
    it('streams a change made by another program', async () => {
      const sub = await subscribe();
      expect(sub.headers.get('content-type')).toMatch(/^text\/event-stream/);
      await writeFile(path.join(t.storageDir, 'ana', 'outside.txt'), 'x');
      await vi.waitFor(() => {
        expect(sub.messages).toContainEqual({
          event: 'file.added',
          data: { type: 'file.added', username: 'ana', folder: null, file: 'outside.txt' },
        });
      }, WAIT);
      sub.close();
    });
  });

  it('streams changes made through the API, to every subscriber', async () => {
    const a = await subscribe();
    const b = await subscribe();
    expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'Docs' })).status).toBe(201);
    const up = await t.api('POST', '/api/files/upload', { username: 'ana', folder: 'Docs', file: 'up.txt' }, { body: 'hello' });
    expect(up.status).toBe(201);
    expect((await t.api('POST', '/api/files/share', { username: 'ana', folder: 'Docs', file: 'up.txt' })).status).toBe(201);
    for (const sub of [a, b]) {
      await vi.waitFor(() => {
        const seen = sub.messages.map((m) => `${m.event} ${m.data.folder}/${m.data.file}`);
        expect(seen).toEqual(expect.arrayContaining(['folder.added Docs/null', 'file.added Docs/up.txt', 'share.changed Docs/up.txt']));
      }, WAIT);
      sub.close();
    }
  });

  it('keeps streaming to a client that stays, after another one leaves', async () => {
    const leaving = await subscribe();
    const staying = await subscribe();
    leaving.close();
    // A change by another program where a watcher sees one, through the API elsewhere.
    if (embeddedRun) await writeFile(path.join(t.storageDir, 'ana', 'later.txt'), 'x');
    else expect((await t.api('POST', '/api/files/upload', { username: 'ana', file: 'later.txt' }, { body: 'x' })).status).toBe(201);
    await vi.waitFor(() => expect(staying.messages.map((m) => m.data.file)).toContain('later.txt'), WAIT);
    staying.close();
  });
});
