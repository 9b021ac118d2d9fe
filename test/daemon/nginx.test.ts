/**
 * nginx as the balancer (deploy/nginx.conf, run by test/helpers/nginx.ts) in front of one
 * embedded `nimbus daemon` child process: a 1 GiB upload and download stream through both
 * with the daemon's resident memory flat and the bytes intact (sha256), an event stream
 * passes an upload's event, a Range request passes, and /api/health answers. The daemon
 * knows the balancer's address from NIMBUS_PUBLIC_URL, as deployed. (The two-daemon version
 * comes with the PostgreSQL + S3 backend.)
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GIB, generated, hashDownload, MIB, peakGrowth, uploadStream as uploadAs } from '../helpers/big-transfers.js';
import { childEnv, spawnDaemon, type CliRun } from '../helpers/child.js';
import { TEST_KEY } from '../helpers/daemon.js';
import { freePort, startNginx, type RunningNginx } from '../helpers/nginx.js';

const USER = 'big';
const headers = { 'API-Key': TEST_KEY };

/** A streamed upload of USER's `file` through `base`. */
const uploadStream = (base: string, file: string, body: Readable, size: number) => uploadAs(base, TEST_KEY, USER, file, body, size);

describe('nginx (deploy/nginx.conf) in front of a nimbus daemon', () => {
  let dataDir = '';
  let daemon: CliRun & { url: string };
  let nginx: RunningNginx;
  let pid = 0;
  const post = (route: string) => fetch(`${nginx.url}${route}`, { method: 'POST', headers });
  /** The error lines nginx has logged so far (an upstream failure it counts against a daemon is one). */
  const nginxErrors = async () =>
    (await readFile(path.join(nginx.dir, 'error.log'), 'utf8')).split('\n').filter((line) => line.includes('[error]'));

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-nginx-daemon-'));
    // The balancer's port first: the daemon is told its public address, as an operator does.
    const port = await freePort();
    daemon = await spawnDaemon(
      dataDir,
      childEnv({ NIMBUS_API_KEY: TEST_KEY, NIMBUS_KEYCHAIN: 'off', NIMBUS_PUBLIC_URL: `http://127.0.0.1:${port}` }),
    );
    pid = daemon.child.pid!;
    nginx = await startNginx({ upstreams: [new URL(daemon.url).host], port });
    expect((await post(`/api/role/create?name=big&maxStorage=4096&badge=${encodeURIComponent('https://example.com/b.png')}`)).status).toBe(
      201,
    );
    expect((await post(`/api/user/create?username=${USER}&email=big@example.com&password=password123`)).status).toBe(201);
    expect((await post(`/api/user/role?username=${USER}&name=big`)).status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await nginx?.stop();
    if (daemon && daemon.child.exitCode === null) {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('answers GET /api/health through the balancer, without a key', async () => {
    const res = await fetch(`${nginx.url}/api/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('streams a 1 GiB upload and its download through nginx with the daemon’s memory flat and the bytes intact', async () => {
    // A small transfer first loads the upload and download code, so what follows measures streaming alone.
    expect((await uploadStream(nginx.url, 'warm.bin', generated(MIB).stream, MIB)).status).toBe(201);
    await (await fetch(`${nginx.url}/api/files/download?username=${USER}&file=warm.bin`, { headers })).arrayBuffer();

    const source = generated(GIB);
    const up = await peakGrowth(pid, () => uploadStream(nginx.url, 'big.bin', source.stream, GIB));
    expect(up.result.status, up.result.text).toBe(201);
    expect(up.peak - up.before, `upload: RSS grew from ${up.before >> 20} MiB to ${up.peak >> 20} MiB`).toBeLessThan(64 * MIB);

    const down = await peakGrowth(pid, async () => {
      const res = await fetch(`${nginx.url}/api/files/download?username=${USER}&file=big.bin`, { headers });
      expect(res.status).toBe(200);
      expect(res.headers.get('Content-Length')).toBe(String(GIB));
      return hashDownload(res);
    });
    expect(down.peak - down.before, `download: RSS grew from ${down.before >> 20} MiB to ${down.peak >> 20} MiB`).toBeLessThan(64 * MIB);
    expect(down.result).toEqual({ sha256: source.sha256(), bytes: GIB });
  }, 600_000);

  it('passes a Range request and its 206', async () => {
    const source = generated(4 * MIB);
    const chunks: Buffer[] = [];
    source.stream.on('data', (c: Buffer) => chunks.push(c));
    const whole = new Promise<Buffer>((resolve) => source.stream.on('end', () => resolve(Buffer.concat(chunks))));
    expect((await uploadStream(nginx.url, 'ranged.bin', source.stream, 4 * MIB)).status).toBe(201);
    const content = await whole;
    const res = await fetch(`${nginx.url}/api/files/download?username=${USER}&file=ranged.bin`, {
      headers: { ...headers, Range: `bytes=${MIB + 10}-${2 * MIB + 9}` },
    });
    expect(res.status).toBe(206);
    expect(res.headers.get('Content-Range')).toBe(`bytes ${MIB + 10}-${2 * MIB + 9}/${4 * MIB}`);
    expect(Buffer.from(await res.arrayBuffer()).equals(content.subarray(MIB + 10, 2 * MIB + 10))).toBe(true);
  }, 60_000);

  it('delivers an upload’s event on a stream opened through nginx', async () => {
    const controller = new AbortController();
    const res = await fetch(`${nginx.url}/api/events`, { headers, signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let received = '';
    // The upload starts once the stream is open; its event must come through while it stays open.
    const uploaded = uploadStream(nginx.url, 'evented.txt', Readable.from([Buffer.from('hello')]), 5);
    try {
      while (!/"file":"evented\.txt"/.test(received)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the event stream ended before the upload's event: ${received}`);
        received += decoder.decode(value, { stream: true });
      }
    } finally {
      controller.abort();
    }
    expect((await uploaded).status).toBe(201);
    expect(received).toMatch(/event: file\.\w+\ndata: \{[^\n]*"username":"big"[^\n]*"file":"evented\.txt"/);
  }, 60_000);

  it('relays an upload refused over the quota as the daemon’s 507, never a 502, and nginx counts no upstream failure', async () => {
    // A refusal answered before the body is read: the daemon used to close the connection with
    // the body unread, the kernel reset it, nginx failed writing the body (502) and counted
    // the failure against the daemon (max_fails), so one user over quota could mark every
    // daemon down ("no live upstreams") for everybody.
    expect((await post(`/api/role/create?name=tiny&maxStorage=1&badge=${encodeURIComponent('https://example.com/b.png')}`)).status).toBe(
      201,
    );
    expect((await post(`/api/user/create?username=tiny&email=tiny@example.com&password=password123`)).status).toBe(201);
    expect((await post(`/api/user/role?username=tiny&name=tiny`)).status).toBe(201);
    const errorsBefore = (await nginxErrors()).length;
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await fetch(`${nginx.url}/api/files/upload?username=tiny&file=big-${i}.bin`, {
        method: 'POST',
        headers,
        body: new Uint8Array(32 * MIB),
      });
      await res.text();
      statuses.push(res.status);
    }
    expect(statuses).toEqual(Array(12).fill(507));
    expect((await nginxErrors()).slice(errorsBefore)).toEqual([]);
  }, 120_000);
});
