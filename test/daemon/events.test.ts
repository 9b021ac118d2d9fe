/** GET /api/events: Server-Sent Events for every change, whatever caused it. */
import { writeFile } from 'node:fs/promises';
import net from 'node:net';
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

/** GET /api/events over a bare TCP connection (`version`: 1.1 or 1.0): every byte the daemon sent, as it sent it. */
async function rawSubscribe(version = '1.1'): Promise<{ socket: net.Socket; bytes: () => Buffer }> {
  const socket = net.connect(t.port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (d: Buffer) => chunks.push(d));
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(`GET /api/events HTTP/${version}\r\nHost: 127.0.0.1:${t.port}\r\nAPI-Key: ${t.key}\r\n\r\n`);
  const bytes = () => Buffer.concat(chunks);
  await vi.waitFor(() => expect(bytes().toString()).toContain(': connected'), WAIT);
  return { socket, bytes };
}

/** The head and the body of a raw answer; a chunked body is taken apart chunk by chunk, checking each one's length. */
function splitAnswer(raw: Buffer): { head: string; chunks: string[]; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  const head = raw.subarray(0, end).toString();
  let rest = raw.subarray(end + 4);
  if (!/^transfer-encoding: chunked$/im.test(head)) return { head, chunks: [], body: rest.toString() };
  const chunks: string[] = [];
  while (rest.length > 0) {
    const line = rest.indexOf('\r\n');
    const size = parseInt(rest.subarray(0, line).toString(), 16);
    const data = rest.subarray(line + 2, line + 2 + size);
    expect(data.length).toBe(size);
    expect(rest.subarray(line + 2 + size, line + 4 + size).toString()).toBe('\r\n');
    chunks.push(data.toString());
    rest = rest.subarray(line + 4 + size);
  }
  return { head, chunks, body: chunks.join('') };
}

/** A chunk without the `id:` line each message starts with (test/daemon/event-replay.test.ts checks the ids). */
const withoutId = (chunk: string) => chunk.replace(/^id: [^\n]*\n/, '');

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

  it('frames each message as one chunk of its length in bytes, a name outside ASCII included', async () => {
    const sub = await rawSubscribe();
    const folder = 'Fotos é 🌍 写真';
    expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder })).status).toBe(201);
    const message = `event: folder.added\ndata: ${JSON.stringify({ type: 'folder.added', username: 'ana', folder, file: null })}\n\n`;
    await vi.waitFor(() => expect(splitAnswer(sub.bytes()).chunks.map(withoutId)).toContain(message), WAIT);
    const { head, chunks } = splitAnswer(sub.bytes());
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(head).toMatch(/^content-type: text\/event-stream; charset=utf-8$/im);
    expect(head).toMatch(/^x-content-type-options: nosniff$/im);
    expect(chunks[0]).toBe(': connected\n\nretry: 2000\n\n');
    sub.socket.destroy();
  });

  it('gives an HTTP/1.0 client the bare messages, not chunks', async () => {
    const sub = await rawSubscribe('1.0');
    expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'Old client' })).status).toBe(201);
    const message = `event: folder.added\ndata: ${JSON.stringify({ type: 'folder.added', username: 'ana', folder: 'Old client', file: null })}\n\n`;
    await vi.waitFor(() => expect(splitAnswer(sub.bytes()).body).toContain(message), WAIT);
    const { head, body } = splitAnswer(sub.bytes());
    expect(head).not.toMatch(/transfer-encoding/i);
    expect(body.startsWith(': connected\n\nretry: 2000\n\n')).toBe(true);
    sub.socket.destroy();
  });

  it('answers HEAD with the stream’s headers and no stream', async () => {
    // The earlier tests' streams are all closed by now (their sockets' close may still be on its way).
    await vi.waitFor(async () => expect((await t.api('GET', '/api/dash')).body.eventStreams).toBe(0), WAIT);
    const res = await fetch(`${t.url}/api/events`, { method: 'HEAD', headers: { 'API-Key': t.key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await res.text()).toBe('');
    expect((await t.api('GET', '/api/dash')).body.eventStreams).toBe(0);
  });

  it('does not hold the others up for a subscriber that stops reading, which gets every change once it reads again', async () => {
    const stalled = await rawSubscribe();
    stalled.socket.pause();
    const reading = await subscribe();
    const folders = Array.from({ length: 30 }, (_, i) => `Paused ${i}`);
    for (const folder of folders) expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder })).status).toBe(201);
    await vi.waitFor(() => expect(reading.messages.map((m) => m.data.folder)).toEqual(expect.arrayContaining(folders)), WAIT);
    stalled.socket.resume();
    await vi.waitFor(() => {
      const seen = splitAnswer(stalled.bytes()).chunks.map((c) => /"folder":"([^"]*)"/.exec(c)?.[1]);
      expect(seen).toEqual(expect.arrayContaining(folders));
    }, WAIT);
    stalled.socket.destroy();
    await reading.close();
  });

  it('sends a stream asked for behind a download on the same connection after every byte of the download', async () => {
    const size = 32 * 2 ** 20; // more than the kernel's socket buffers take: the download stays unfinished while nothing is read
    const content = Buffer.alloc(size, 'pipelined download ');
    expect((await t.api('POST', '/api/files/upload', { username: 'ana', file: 'pipelined.bin' }, { body: content })).status).toBe(201);
    await vi.waitFor(async () => expect((await t.api('GET', '/api/dash')).body.eventStreams).toBe(0), WAIT);
    const socket = net.connect(t.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const head = `Host: 127.0.0.1:${t.port}\r\nAPI-Key: ${t.key}\r\n\r\n`;
    // Both requests at once, and nothing read yet: the stream's response waits behind the download's.
    socket.write(`GET /api/files/download?username=ana&file=pipelined.bin HTTP/1.1\r\n${head}GET /api/events HTTP/1.1\r\n${head}`);
    await vi.waitFor(async () => expect((await t.api('GET', '/api/dash')).body.eventStreams).toBe(1), WAIT);
    const folder = 'Behind a download';
    expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder })).status).toBe(201);
    const message = `event: folder.added\ndata: ${JSON.stringify({ type: 'folder.added', username: 'ana', folder, file: null })}\n\n`;
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    const answers = () => {
      const raw = Buffer.concat(chunks);
      const headEnd = raw.indexOf('\r\n\r\n');
      const length = Number(/^content-length: (\d+)$/im.exec(raw.subarray(0, headEnd).toString())?.[1]);
      return { download: raw.subarray(headEnd + 4, headEnd + 4 + length), events: splitAnswer(raw.subarray(headEnd + 4 + length)) };
    };
    await vi.waitFor(() => expect(answers().events.chunks.map(withoutId)).toContain(message), { timeout: 20_000, interval: 50 });
    const { download, events } = answers();
    expect(download.equals(content)).toBe(true);
    expect(events.head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(events.chunks[0]).toBe(': connected\n\nretry: 2000\n\n');
    socket.destroy();
  });
});
