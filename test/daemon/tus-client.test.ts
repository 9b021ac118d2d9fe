/**
 * Issue 27's proof of resumable uploads with a client nobody here wrote: tus-js-client, in
 * Node, uploads 1 GiB to a daemon running as its own process (`nimbus daemon`, so it can be
 * SIGKILLed), through a TCP proxy that can cut the network. Three interruptions: the network
 * cut mid-PATCH, the daemon SIGKILLed and started again (on another port, behind the same
 * proxy), and the client aborting and starting again. The stored file's SHA-256 must be the
 * source's, and no resume may start from an offset the daemon had not acknowledged.
 *
 * The source is made on disk from a fixed seed and hashed as it is written; nothing of its
 * size is held in memory (tus-js-client reads the file by ranges).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as tus from 'tus-js-client';
import { afterAll, describe, expect, it } from 'vitest';
import { GIB, MIB, writeSeededFile } from '../helpers/big-transfers.js';
import { childEnv, spawnDaemon, type CliRun } from '../helpers/child.js';
import { TEST_KEY } from '../helpers/daemon.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const SIZE = GIB;
let work = '';
let daemon: (CliRun & { url: string }) | null = null;
let proxy: TcpProxy | null = null;

afterAll(async () => {
  daemon?.child.kill('SIGKILL');
  await proxy?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: MIB })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

describe('tus-js-client, 1 GiB, interrupted three times', () => {
  it('completes with the source’s SHA-256', async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'nimbus-tus-'));
    const source = path.join(work, 'source.bin');
    const dataDir = path.join(work, 'data');
    const expected = await writeSeededFile(source, SIZE);

    const target = { host: '127.0.0.1', port: 0 };
    proxy = await startTcpProxy(target);
    const env = childEnv({
      NIMBUS_API_KEY: TEST_KEY,
      NIMBUS_KEYCHAIN: 'off',
      NIMBUS_RECONCILE_SECONDS: '0',
      NIMBUS_STORAGE_DIR: path.join(dataDir, 'storage'),
      // The client knows the daemon by the proxy's address.
      NIMBUS_ALLOWED_HOSTS: `127.0.0.1:${proxy.port}`,
    });
    const start = async () => {
      daemon = await spawnDaemon(dataDir, env);
      target.port = Number(new URL(daemon.url).port);
    };
    await start();
    const admin = (route: string) => fetch(`${daemon!.url}${route}`, { method: 'POST', headers: { 'API-Key': TEST_KEY } });
    expect((await admin('/api/role/create?name=big&maxStorage=-1&badge=https://example.com/b.png')).status).toBe(201);
    expect((await admin('/api/user/create?username=ana&email=ana@example.com&password=password123')).status).toBe(201);
    expect((await admin('/api/user/role?username=ana&name=big')).status).toBe(201);

    /** Where the resume after each interruption began: the offset of the last HEAD after it (a retry may HEAD again). */
    const resumedAt: number[] = [];
    const interruptions: { kind: string; at: number }[] = [];
    let stage = 0;
    const upload: tus.Upload = new tus.Upload(createReadStream(source), {
      endpoint: `http://127.0.0.1:${proxy.port}/api/uploads/`,
      headers: { 'API-Key': TEST_KEY },
      metadata: { username: 'ana', filename: 'big.bin' },
      // Enough to outlast a daemon's restart.
      retryDelays: [100, 200, 400, 800, 1000, 1000, 1000, 1000, 2000, 2000, 2000, 2000, 2000, 2000, 2000],
      onAfterResponse: (req, res) => {
        if (req.getMethod() === 'HEAD' && res.getStatus() === 200 && stage > 0)
          resumedAt[stage - 1] = Number(res.getHeader('Upload-Offset'));
      },
      onProgress: (sent) => {
        if (stage === 0 && sent > SIZE * 0.25) {
          stage = 1;
          interruptions.push({ kind: 'network cut', at: sent });
          proxy!.cut();
          setTimeout(() => proxy!.mend(), 300);
        } else if (stage === 1 && sent > SIZE * 0.55) {
          stage = 2;
          interruptions.push({ kind: 'SIGKILL', at: sent });
          const killed = daemon!;
          killed.child.kill('SIGKILL');
          void killed.exited.then(start);
        } else if (stage === 2 && sent > SIZE * 0.8) {
          stage = 3;
          interruptions.push({ kind: 'abort', at: sent });
          void upload.abort().then(() => setTimeout(() => upload.start(), 200));
        }
      },
    });
    await new Promise<void>((resolve, reject) => {
      upload.options.onSuccess = () => resolve();
      upload.options.onError = (err) => reject(err);
      upload.start();
    });

    expect(interruptions.map((i) => i.kind)).toEqual(['network cut', 'SIGKILL', 'abort']);
    // Each resume began at most a checkpoint (64 MiB, tus-append.ts) and what the sockets held
    // behind where its interruption came, never past what had been sent, never from the start.
    // Measured: cut at 304.5 MB resumed at 304.5; SIGKILL at 618.3 resumed at 573.5; abort at 870.7 at 870.6.
    expect(resumedAt).toHaveLength(3);
    interruptions.forEach(({ at }, i) => {
      expect(resumedAt[i]).toBeLessThanOrEqual(at);
      expect(resumedAt[i]).toBeGreaterThan(at - 80 * MIB);
    });
    expect(await sha256Of(path.join(dataDir, 'storage', 'ana', 'big.bin'))).toBe(expected);
    // What is left of the upload is its record (done, no bytes), and nothing in tmp.
    expect((await readdir(path.join(dataDir, 'tus'))).filter((name) => name.endsWith('.part'))).toEqual([]);
    expect(await readdir(path.join(dataDir, 'tmp')).catch(() => [])).toEqual([]);
  }, 300_000);
});
