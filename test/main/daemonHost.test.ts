import { createServer, type Server } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startDaemon } from '../../daemon/index.js';
import { isAddressInUse, startDaemonWithFallback } from '../../main/daemonHost.js';
import { TEST_KEY } from '../helpers/daemon.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Another program holding a port on 127.0.0.1. */
async function occupyPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  return (server.address() as { port: number }).port;
}

async function tempDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'nimbus-host-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('startDaemonWithFallback (real daemon)', () => {
  it('listens on the requested port when it is free', async () => {
    const dataDir = await tempDataDir();
    const daemon = await startDaemonWithFallback(
      startDaemon,
      { port: 0, dataDir, apiKey: TEST_KEY, env: {}, log: () => undefined },
      vi.fn(),
    );
    cleanups.push(() => daemon.close());
    expect(daemon.url).toBe(`http://127.0.0.1:${daemon.port}`);
    const res = await fetch(`${daemon.url}/api/dash`, { headers: { 'API-Key': TEST_KEY } });
    expect(res.status).toBe(200);
  });

  it('moves to a free port, and says so, when the port is taken by another program', async () => {
    const busy = await occupyPort();
    const dataDir = await tempDataDir();
    const log = vi.fn();
    const daemon = await startDaemonWithFallback(
      startDaemon,
      { port: busy, dataDir, apiKey: TEST_KEY, env: {}, log: () => undefined },
      log,
    );
    cleanups.push(() => daemon.close());
    expect(daemon.port).not.toBe(busy);
    expect(log).toHaveBeenCalledWith(`Port ${busy} is in use; Nimbus is listening on port ${daemon.port} instead.`);
    const res = await fetch(`${daemon.url}/api/dash`, { headers: { 'API-Key': TEST_KEY } });
    expect(res.status).toBe(200);
  });

  it('does not paper over other start-up failures with a new port (a corrupt db.json)', async () => {
    const dataDir = await tempDataDir();
    await writeFile(join(dataDir, 'db.json'), '{"users": [');
    const start = vi.fn(startDaemon);
    await expect(
      startDaemonWithFallback(start, { port: 0, dataDir, apiKey: TEST_KEY, env: {}, log: () => undefined }, vi.fn()),
    ).rejects.toThrow();
    expect(start).toHaveBeenCalledOnce();
  });
});

describe('startDaemonWithFallback (decisions)', () => {
  const inUse = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:7878'), { code: 'EADDRINUSE' });

  it('retries once on port 0 after EADDRINUSE', async () => {
    const start = vi.fn().mockRejectedValueOnce(inUse).mockResolvedValueOnce({ port: 40000 });
    await startDaemonWithFallback(start, { dataDir: '/d' }, vi.fn());
    expect(start.mock.calls).toEqual([[{ dataDir: '/d' }], [{ dataDir: '/d', port: 0 }]]);
  });

  it('rethrows other errors without retrying', async () => {
    const start = vi.fn().mockRejectedValue(new Error('db.json is corrupt'));
    await expect(startDaemonWithFallback(start, {}, vi.fn())).rejects.toThrow('db.json is corrupt');
    expect(start).toHaveBeenCalledOnce();
  });

  it('recognises the daemon’s own wording and a code on the cause', () => {
    expect(
      isAddressInUse(new Error('Port 7878 on 127.0.0.1 is already in use: stop what uses it, or pass --port (0 picks a free one).')),
    ).toBe(true);
    expect(isAddressInUse(new Error('listen failed', { cause: inUse }))).toBe(true);
    expect(isAddressInUse(new Error('EACCES: permission denied'))).toBe(false);
    expect(isAddressInUse(null)).toBe(false);
  });

  it('does not retry when port 0 itself failed', async () => {
    const start = vi.fn().mockRejectedValue(inUse);
    await expect(startDaemonWithFallback(start, { port: 0 }, vi.fn())).rejects.toThrow(/EADDRINUSE/);
    expect(start).toHaveBeenCalledOnce();
  });
});
