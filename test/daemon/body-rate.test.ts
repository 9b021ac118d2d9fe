/**
 * The minimum body rate (issue 22, item 11; Kestrel's MinRequestBodyDataRate): once the grace
 * period of reading is over, a request body must average NIMBUS_MIN_BODY_RATE bytes a second or
 * get 408 with its connection closed — an upload (raw or a form) and a JSON body alike, leaving
 * nothing behind and releasing the upload's quota reservation. A client above the rate is never
 * cut, and time the daemon itself spends not reading (a slow disk) is not held against it.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { limitSlowBodies } from '../../daemon/http/body-timeout.js';
import { createUser, snapshotState, startTestDaemon, storedBytes, type TestDaemon } from '../helpers/daemon.js';

const WAIT = { timeout: 20_000, interval: 50 };

interface RawClient {
  socket: net.Socket;
  received: () => string;
  closed: () => boolean;
  /** Sends one byte every `ms` until the connection closes. */
  trickle: (ms: number) => void;
}

const open: RawClient[] = [];
const timers: NodeJS.Timeout[] = [];
afterEach(() => {
  for (const timer of timers.splice(0)) clearInterval(timer);
  for (const client of open.splice(0)) client.socket.destroy();
});

/** A TCP connection to `port` that sends `head` and records what comes back. */
function connect(port: number, head: string | Buffer): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let closed = false;
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => undefined); // a connection the daemon destroys may reset: closed all the same
    socket.on('close', () => (closed = true));
    socket.once('connect', () => {
      socket.write(head);
      const client: RawClient = {
        socket,
        received: () => received,
        closed: () => closed,
        trickle: (ms) => {
          const timer = setInterval(() => socket.writable && socket.write('x'), ms);
          timers.push(timer);
        },
      };
      open.push(client);
      resolve(client);
    });
    socket.once('error', reject);
  });
}

const head = (t: TestDaemon, target: string, headers: Record<string, string | number>) =>
  [
    `POST ${target} HTTP/1.1`,
    `Host: 127.0.0.1:${t.port}`,
    `API-Key: ${t.key}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    '',
    '',
  ].join('\r\n');

describe('a daemon with a 1 s grace period at 240 bytes/s', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon({ env: { NIMBUS_MIN_BODY_GRACE_SECONDS: '1', NIMBUS_MIN_BODY_RATE: '240' } });
    await t.api('POST', '/api/role/create', { name: 'small', maxStorage: '1', badge: 'https://example.com/s.png' });
    await createUser(t, 'ana');
    await t.api('POST', '/api/user/role', { username: 'ana', name: 'small' });
  });
  afterAll(() => t.close());

  it('answers 408 to an upload that trickles a byte every 3 s, closes it, and keeps nothing (the quota is free again)', async () => {
    const before = await snapshotState(t);
    // Declared almost the whole 1 MiB quota: reserved up front, so a held reservation would refuse the upload below.
    const length = 1_000_000;
    const client = await connect(t.port, `${head(t, '/api/files/upload?username=ana&file=trickle.bin', { 'Content-Length': length })}x`);
    client.trickle(3000);
    await vi.waitFor(() => expect(client.closed()).toBe(true), WAIT);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(client.received()).toContain('"code":"request_timeout"');
    await vi.waitFor(async () => expect(await snapshotState(t)).toEqual(before), WAIT);
    const full = await t.api('POST', '/api/files/upload', { username: 'ana', file: 'full.bin' }, { body: new Uint8Array(length) });
    expect(full.status, full.text).toBe(201);
    expect((await t.api('POST', '/api/files/delete', { username: 'ana', file: 'full.bin', permanent: 'true' })).status).toBe(200);
  });

  it('answers 408 to a multipart form that trickles, and keeps nothing', async () => {
    const before = await snapshotState(t);
    const start = '--b\r\nContent-Disposition: form-data; name="file"; filename="f.bin"\r\n\r\nxx';
    const client = await connect(
      t.port,
      `${head(t, '/api/files/upload?username=ana&file=form.bin', {
        'Content-Type': 'multipart/form-data; boundary=b',
        'Content-Length': 5000,
      })}${start}`,
    );
    client.trickle(3000);
    await vi.waitFor(() => expect(client.closed()).toBe(true), WAIT);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    await vi.waitFor(async () => expect(await snapshotState(t)).toEqual(before), WAIT);
  });

  it('answers 408 to a JSON body that trickles, and creates nothing', async () => {
    const before = await snapshotState(t);
    const client = await connect(
      t.port,
      `${head(t, '/api/folders/create', { 'Content-Type': 'application/json', 'Content-Length': 200 })}{"username":"ana",`,
    );
    client.trickle(3000);
    await vi.waitFor(() => expect(client.closed()).toBe(true), WAIT);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(await snapshotState(t)).toEqual(before);
  });

  it('lets an upload well above the rate take longer than the grace period', async () => {
    const piece = Buffer.alloc(1000, 'a');
    const pieces = 6;
    const client = await connect(
      t.port,
      head(t, '/api/files/upload?username=ana&file=steady.bin', { 'Content-Length': pieces * piece.length }),
    );
    // 1,000 bytes every 500 ms: 2,000 bytes/s, for about 3 s.
    let sent = 0;
    const pacer = setInterval(() => {
      client.socket.write(piece);
      if (++sent === pieces) clearInterval(pacer);
    }, 500);
    timers.push(pacer);
    await vi.waitFor(() => expect(client.received()).toMatch(/^HTTP\/1\.1 \d{3} /), WAIT);
    expect(client.received()).toMatch(/^HTTP\/1\.1 201 /);
    expect((await storedBytes(t, 'ana', 'steady.bin')).length).toBe(pieces * piece.length);
  });
});

describe('NIMBUS_MIN_BODY_RATE=0', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon({ env: { NIMBUS_MIN_BODY_GRACE_SECONDS: '0.5', NIMBUS_MIN_BODY_RATE: '0' } });
    await createUser(t, 'ana');
  });
  afterAll(() => t.close());

  it('turns the rule off: a trickle past the grace period is still received', async () => {
    const client = await connect(t.port, `${head(t, '/api/files/upload?username=ana&file=slow.bin', { 'Content-Length': 8 })}x`);
    client.trickle(400);
    await vi.waitFor(() => expect(client.received()).toMatch(/^HTTP\/1\.1 \d{3} /), WAIT);
    expect(client.received()).toMatch(/^HTTP\/1\.1 201 /);
  });
});

describe('time the server spends not reading', () => {
  let server: http.Server;
  let port: number;
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('is not held against the client: a body held up by a slow disk is received whole', async () => {
    let received = 0;
    server = http.createServer((req, res) => {
      // A disk that takes 3 s over its first write: the request is paused (backpressure) meanwhile.
      let first = true;
      const disk = new Writable({
        highWaterMark: 1024,
        write(chunk: Buffer, _encoding, done) {
          received += chunk.length;
          if (!first) return done();
          first = false;
          setTimeout(done, 3000);
        },
      });
      req.pipe(disk).on('finish', () => res.end(`got ${received}`));
    });
    // A rate no client could keep up while nothing is read (100 kB/s), after 1 s of reading.
    limitSlowBodies(server, { idleMs: 30_000, minBytesPerSecond: 100_000, graceMs: 1000 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    const size = 512 * 1024;
    const client = await connect(port, `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${size}\r\n\r\n`);
    client.socket.write(Buffer.alloc(size, 1));
    await vi.waitFor(() => expect(client.received()).toMatch(/^HTTP\/1\.1 \d{3} /), WAIT);
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(client.received()).toContain(`got ${size}`);
  });

  it('is not held against the client when the daemon itself stalls (a freeze, SIGSTOP): its bytes waiting unread are not counted as missing', async () => {
    server = http.createServer((req, res) => {
      let received = 0;
      req.on('data', (chunk: Buffer) => (received += chunk.length));
      req.on('end', () => res.end(`got ${received}`));
    });
    limitSlowBodies(server, { idleMs: 30_000, minBytesPerSecond: 1000, graceMs: 1000 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    // The client runs in a thread of its own, so it keeps sending (2,000 bytes/s, twice the rate)
    // into the kernel's buffer while this thread is frozen for 2.5 s. Frozen inside setImmediate,
    // the loop's next turn runs its timers (the sweep) before it reads those bytes: exactly what a
    // daemon continued after SIGSTOP does, which cut a soak's upload with 408 once.
    const client = new Worker(
      `const net = require('node:net');
      const { parentPort, workerData } = require('node:worker_threads');
      const socket = net.connect(workerData.port, '127.0.0.1');
      let received = '';
      socket.setEncoding('latin1');
      socket.on('data', (c) => (received += c));
      socket.on('error', () => undefined);
      socket.on('close', () => parentPort.postMessage(received));
      socket.write('POST / HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\nContent-Length: 8000\\r\\n\\r\\n');
      let sent = 0;
      const pacer = setInterval(() => {
        socket.write(Buffer.alloc(500, 97));
        if (++sent === 16) clearInterval(pacer);
      }, 250);`,
      { eval: true, workerData: { port } },
    );
    const answer = new Promise<string>((resolve) => client.once('message', resolve));
    setTimeout(() => setImmediate(() => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2500)), 1200);
    const text = await answer;
    await client.terminate();
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text).toContain('got 8000');
  });

  it('leaves no listener behind on a keep-alive connection after its requests', async () => {
    let serverSocket: net.Socket | null = null;
    server = http.createServer((req, res) => {
      serverSocket = req.socket;
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    limitSlowBodies(server, { idleMs: 30_000, minBytesPerSecond: 240, graceMs: 5000 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const post = () =>
      new Promise<void>((resolve, reject) => {
        const req = http.request({ port, method: 'POST', agent, headers: { 'Content-Length': 5 } }, (res) => {
          res.resume();
          res.on('end', resolve);
        });
        req.on('error', reject);
        req.end('hello');
      });
    for (let i = 0; i < 30; i++) await post();
    const listeners = () => serverSocket!.listenerCount('pause') + serverSocket!.listenerCount('resume');
    // Node's own pair, and at most the last request's until it closes.
    await vi.waitFor(() => expect(listeners()).toBeLessThanOrEqual(4), WAIT);
    agent.destroy();
  });
});
