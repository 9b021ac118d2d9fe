/**
 * A client that asks for a download and then stops reading must not hold its connection
 * (and the open file) for ever: a download that moves no byte for the idle limit
 * (10 × NIMBUS_BODY_IDLE_SECONDS, here 3 s) is closed. One that keeps reading is left alone.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

const WAIT = { timeout: 15_000, interval: 50 };
const SIZE = 32 * 1024 * 1024; // far more than the socket buffers on both sides hold

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon({ env: { NIMBUS_BODY_IDLE_SECONDS: '0.3' } });
  await createUser(t, 'ana');
  const res = await t.api('POST', '/api/files/upload', { username: 'ana', file: 'big.bin' }, { body: new Uint8Array(SIZE) });
  expect(res.status).toBe(201);
});
afterAll(() => t.close());

/** Open file descriptors of this process (the daemon runs in it) on the big file. */
function handlesOnBigFile(): number {
  const big = path.join(t.storageDir, 'ana', 'big.bin');
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === big;
    } catch {
      return false;
    }
  }).length;
}

/** Requests the big file over a raw connection; `stall` stops reading at the first bytes. */
function download(stall = false): { socket: net.Socket; received: () => number; closed: () => boolean } {
  const socket = net.connect(t.port, '127.0.0.1');
  let received = 0;
  let closed = false;
  socket.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (stall) socket.pause(); // from now on it reads nothing
  });
  socket.on('error', () => undefined);
  socket.on('close', () => (closed = true));
  socket.write(`GET /api/files/download?username=ana&file=big.bin HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\nAPI-Key: ${t.key}\r\n\r\n`);
  return { socket, received: () => received, closed: () => closed };
}

describe('a download whose client stops reading', () => {
  it('is closed once no byte has moved for the idle limit, and its file handle with it', async () => {
    const client = download(true);
    await vi.waitFor(() => expect(client.received()).toBeGreaterThan(0), WAIT);
    expect(handlesOnBigFile()).toBe(1);
    // The daemon (in this process) gives up on it: the file it was sending is closed.
    await vi.waitFor(() => expect(handlesOnBigFile()).toBe(0), WAIT);
    client.socket.on('data', () => client.socket.resume());
    client.socket.resume();
    await vi.waitFor(() => expect(client.closed()).toBe(true), WAIT);
    expect(client.received()).toBeLessThan(SIZE);
    expect((await t.api('GET', '/api/user', { username: 'ana' })).status).toBe(200);
  });

  it('is left alone while the client reads, however slowly the whole takes', async () => {
    const client = download();
    await vi.waitFor(() => expect(client.closed() || client.received() >= SIZE).toBe(true), { timeout: 30_000, interval: 50 });
    expect(client.received()).toBeGreaterThanOrEqual(SIZE);
    client.socket.destroy();
  });
});
