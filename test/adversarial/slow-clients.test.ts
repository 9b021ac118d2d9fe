/**
 * Clients that hold connections without making progress: bodies and headers that trickle
 * or stop, and an event-stream client that never reads. The daemon cuts the idle ones,
 * bounds what it keeps for a reader that stopped, and keeps answering everyone else.
 */
import { readdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { getWithHost } from '../helpers/raw-http.js';

const WAIT = { timeout: 15_000, interval: 50 };

const tempFiles = (t: TestDaemon) => readdir(path.join(t.dataDir, 'tmp')).catch(() => [] as string[]);

interface RawClient {
  socket: net.Socket;
  received: () => string;
  closed: () => boolean;
}

/** A TCP connection that sends `head` (and then whatever the test writes) and records the answer. */
function connect(t: TestDaemon, head: string): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(t.port, '127.0.0.1');
    let received = '';
    let closed = false;
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => undefined); // a connection the daemon destroys may reset: closed all the same
    socket.on('close', () => (closed = true));
    socket.once('connect', () => {
      socket.write(head);
      resolve({ socket, received: () => received, closed: () => closed });
    });
    socket.once('error', reject);
  });
}

const uploadHead = (t: TestDaemon, file: string, length: number, key: string | null = t.key) =>
  [
    `POST /api/files/upload?username=ana&file=${file} HTTP/1.1`,
    `Host: 127.0.0.1:${t.port}`,
    ...(key ? [`API-Key: ${key}`] : []),
    'Content-Type: application/octet-stream',
    `Content-Length: ${length}`,
    '',
    '',
  ].join('\r\n');

describe('idle request bodies and headers (1 s limits)', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon({ env: { NIMBUS_BODY_IDLE_SECONDS: '1', NIMBUS_HEADERS_TIMEOUT_SECONDS: '1' } });
    await createUser(t, 'ana');
  });
  afterAll(() => t.close());

  it('answers 408 to an upload whose body stops, closes the connection, and removes the temp file', async () => {
    const client = await connect(t, `${uploadHead(t, 'stalled.bin', 100)}x`);
    await vi.waitFor(() => expect(client.closed()).toBe(true), WAIT);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(client.received()).toContain('"code":"request_timeout"');
    await vi.waitFor(async () => expect(await tempFiles(t)).toEqual([]), WAIT);
    expect((await t.api('GET', '/api/files', { username: 'ana' })).body.files).toEqual([]);
  });

  it('closes a connection whose headers never end', async () => {
    const client = await connect(t, `GET /api/dash HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\nAPI-Key: ${t.key}\r\n`);
    await vi.waitFor(() => expect(client.closed()).toBe(true), WAIT);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes a connection that keeps trickling a body the daemon already refused', async () => {
    const client = await connect(t, `${uploadHead(t, 'refused.bin', 1_000_000, null)}x`);
    // One byte every 200 ms: never idle, but the 401 is sent and the rest is only discarded.
    const trickle = setInterval(() => client.socket.writable && client.socket.write('x'), 200);
    try {
      await vi.waitFor(() => expect(client.received()).toMatch(/^HTTP\/1\.1 401 /), WAIT);
      await vi.waitFor(() => expect(client.closed()).toBe(true), WAIT);
    } finally {
      clearInterval(trickle);
      client.socket.destroy();
    }
  });
});

describe('a hundred slow uploads', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    // The minimum body rate off: these bodies are slow on purpose (1 byte/s), and this is about the idle limit.
    t = await startTestDaemon({ env: { NIMBUS_BODY_IDLE_SECONDS: '10', NIMBUS_MIN_BODY_RATE: '0' } });
    await createUser(t, 'ana');
  });
  afterAll(() => t.close());

  it('do not stop the daemon answering others while they trickle', async () => {
    const clients = await Promise.all(Array.from({ length: 100 }, (_, i) => connect(t, `${uploadHead(t, `slow-${i}.bin`, 1000)}x`)));
    // A byte a second each: slow, but never idle for the 10 s limit.
    const trickle = setInterval(() => {
      for (const c of clients) if (c.socket.writable) c.socket.write('x');
    }, 1000);
    try {
      // Every one of them is being received: each has its temp file.
      await vi.waitFor(async () => expect((await tempFiles(t)).length).toBe(100), WAIT);

      expect((await t.api('GET', '/api/user', { username: 'ana' })).status).toBe(200);
      await upload(t, 'ana', 'normal.txt', 'hello');
      expect((await t.api('GET', '/api/files', { username: 'ana' })).body.files.map((f: { name: string }) => f.name)).toEqual([
        'normal.txt',
      ]);
      expect((await t.api('GET', '/api/dash')).status).toBe(200);

      expect(clients.filter((c) => c.closed())).toEqual([]);
      expect(clients.filter((c) => c.received() !== '')).toEqual([]);
    } finally {
      clearInterval(trickle);
      for (const c of clients) c.socket.destroy();
    }
    // Clients that leave mid-body leave nothing behind.
    await vi.waitFor(async () => expect(await tempFiles(t)).toEqual([]), WAIT);
  });
});

describe('the connection limit (NIMBUS_MAX_CONNECTIONS=5)', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon({ env: { NIMBUS_MAX_CONNECTIONS: '5' } });
  });
  afterAll(() => t.close());

  it('refuses connections past the limit, says so once, and accepts again when some close', async () => {
    const held = await Promise.all(Array.from({ length: 5 }, () => connect(t, '')));
    const extra = await Promise.all(
      Array.from({ length: 3 }, () => connect(t, `GET /api/dash HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\nAPI-Key: ${t.key}\r\n\r\n`)),
    );
    for (const c of extra) await vi.waitFor(() => expect(c.closed()).toBe(true), WAIT);
    expect(extra.map((c) => c.received())).toEqual(['', '', '']);
    expect(t.logs.filter((l) => l.includes('NIMBUS_MAX_CONNECTIONS'))).toHaveLength(1);
    expect(held.filter((c) => c.closed())).toEqual([]);

    for (const c of held) c.socket.destroy();
    // A raw request: until the daemon has seen those closes, a new connection is refused
    // (closed at once), and waitFor tries again.
    await vi.waitFor(
      async () => expect((await getWithHost(t.port, '/api/dash', `127.0.0.1:${t.port}`, { 'API-Key': t.key })).status).toBe(200),
      WAIT,
    );
  });
});

describe('an event-stream client that never reads', () => {
  let t: TestDaemon;
  const folder = 'f'.repeat(200);
  beforeAll(async () => {
    t = await startTestDaemon({ env: { NIMBUS_EVENT_BUFFER_KB: '64' } });
    await createUser(t, 'ana');
    expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder })).status).toBe(201);
    await vi.waitFor(async () => expect((await t.api('GET', '/api/dash')).body.index.state).toBe('ready'), WAIT);
  });
  afterAll(() => t.close());

  it('leaves a client that reads alone through bursts bigger than the limit', async () => {
    const client = await connect(t, `GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\nAPI-Key: ${t.key}\r\n\r\n`);
    await vi.waitFor(() => expect(client.received()).toContain(': connected'), WAIT);
    // 3,000 events of ~500 bytes, in bursts of 300: far over 64 KiB in all.
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(
        Array.from({ length: 300 }, (_, i) => writeFile(path.join(t.storageDir, 'ana', folder, `${'r'.repeat(200)}-${batch}-${i}`), '')),
      );
    }
    await vi.waitFor(() => expect(client.received().split('event: file.added').length - 1).toBe(3000), { timeout: 60_000, interval: 100 });
    expect(client.closed()).toBe(false);
    expect((await t.api('GET', '/api/dash')).body.eventStreams).toBe(1);
    expect(t.logs.filter((l) => l.includes('stopped reading'))).toEqual([]);
    client.socket.destroy();
    await vi.waitFor(async () => expect((await t.api('GET', '/api/dash')).body.eventStreams).toBe(0), WAIT);
  }, 90_000);

  it('is dropped once it holds too much, and the daemon keeps serving', async () => {
    const client = await connect(t, `GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\nAPI-Key: ${t.key}\r\n\r\n`);
    await vi.waitFor(() => expect(client.received()).toContain(': connected'), WAIT);
    client.socket.pause(); // from now on it reads nothing
    const droppedBefore = t.logs.filter((l) => l.includes('stopped reading')).length;
    await vi.waitFor(async () => expect((await t.api('GET', '/api/dash')).body.eventStreams).toBe(1), WAIT);

    // Changes with long names, a few hundred at a time, until the daemon gives up on it
    // (the kernel's socket buffers take a few MB first).
    let batch = 0;
    await vi.waitFor(
      async () => {
        batch++;
        await Promise.all(
          Array.from({ length: 300 }, (_, i) => writeFile(path.join(t.storageDir, 'ana', folder, `${'x'.repeat(200)}-${batch}-${i}`), '')),
        );
        expect((await t.api('GET', '/api/dash')).body.eventStreams).toBe(0);
      },
      { timeout: 120_000, interval: 0 },
    );
    expect(t.logs.filter((l) => l.includes('stopped reading'))).toHaveLength(droppedBefore + 1);

    // Reading again, the client finds its stream closed.
    client.socket.resume();
    await vi.waitFor(() => expect(client.closed()).toBe(true), WAIT);
    expect((await t.api('GET', '/api/user', { username: 'ana' })).status).toBe(200);
  }, 180_000);
});
