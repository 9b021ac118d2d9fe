/** GET /api/events: Server-Sent Events for every change, whatever caused it. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

const WAIT = { timeout: 8000, interval: 25 };
let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon();
  await t.api('POST', '/api/user/create', { username: 'ana', email: 'ana@example.com', password: 'secret123' });
  await vi.waitFor(async () => expect((await t.api('GET', '/api/dash')).body.index).toEqual({ state: 'ready', watcher: 'inotify' }), WAIT);
});
afterAll(() => t.close());

interface Message {
  event: string;
  data: { type: string; username: string | null; folder: string | null; file: string | null };
}

/** Opens the stream with the API key and collects its messages until aborted. */
async function subscribe(headers: Record<string, string> = { 'API-Key': t.key }) {
  const controller = new AbortController();
  const res = await fetch(`${t.url}/api/events`, { headers, signal: controller.signal });
  const messages: Message[] = [];
  if (res.ok) {
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buffer += value;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const lines = buffer.slice(0, end).split('\n');
            buffer = buffer.slice(end + 2);
            const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
            const data = lines.find((l) => l.startsWith('data: '))?.slice(6);
            if (event && data) messages.push({ event, data: JSON.parse(data) });
          }
        }
      } catch {
        // aborted by the test
      }
    })();
  }
  return { res, messages, close: () => controller.abort() };
}

describe('GET /api/events', () => {
  it('needs an API key', async () => {
    const { res } = await subscribe({});
    expect(res.status).toBe(401);
  });

  it('streams a change made by another program', async () => {
    const sub = await subscribe();
    expect(sub.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await writeFile(path.join(t.storageDir, 'ana', 'outside.txt'), 'x');
    await vi.waitFor(() => {
      expect(sub.messages).toContainEqual({
        event: 'file.added',
        data: { type: 'file.added', username: 'ana', folder: null, file: 'outside.txt' },
      });
    }, WAIT);
    sub.close();
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
    await writeFile(path.join(t.storageDir, 'ana', 'later.txt'), 'x');
    await vi.waitFor(() => expect(staying.messages.map((m) => m.data.file)).toContain('later.txt'), WAIT);
    staying.close();
  });
});
