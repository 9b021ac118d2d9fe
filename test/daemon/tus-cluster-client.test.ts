/**
 * Resumable uploads across a cluster with a client nobody here wrote (docs/uploads.md,
 * "Backends"): tus-js-client, in Node, uploads 256 MiB from a fixed seed (one PATCH, its default)
 * to two `nimbus daemon` child processes on one PostgreSQL database and one bucket, through a TCP
 * proxy that forwards to daemon A. At ~30 % the proxy cuts every connection (the client resumes
 * through it, still to A); at ~60 % A is SIGKILLed and the proxy sent on to B, A staying dead: the
 * client resumes from the offset B answers, which is what A had recorded (A loses at most the
 * part it was sending to the bucket), and finishes through B. The download from B has the
 * source's SHA-256. The bytes sent in vain (sent, then sent again from an earlier offset) are
 * logged.
 *
 * The source is made on disk and hashed as it is written; tus-js-client reads it by ranges.
 */
import { ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
import { createReadStream, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as tus from 'tus-js-client';
import { afterAll, describe, expect, it } from 'vitest';
import { hashDownload, MIB, writeSeededFile } from '../helpers/big-transfers.js';
import { childEnv, spawnDaemon, type CliRun } from '../helpers/child.js';
import { bucketOf, eventually, type Bucket } from '../helpers/cluster.js';
import { TEST_KEY } from '../helpers/daemon.js';
import { clusterEnv } from '../helpers/engines.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const SIZE = 256 * MIB;
/** The part size of this upload (8 MiB: ceil(256 MiB / 9000) is less). */
const PART = 8 * MIB;
/**
 * What tus-js-client counts sent yet may still be in its own or the proxy's stream buffers (a
 * few 64 KiB chunks), or reach A between the kernel's count below and the interruption.
 */
const SLACK = 2 * MIB;
const headers = { 'API-Key': TEST_KEY };
const mb = (n: number) => `${(n / MIB).toFixed(1)} MiB`;

type Child = CliRun & { url: string };

let work = '';
const daemons: Child[] = [];
let proxy: TcpProxy | null = null;
let bucket: Bucket | null = null;

afterAll(async () => {
  for (const d of daemons)
    if (d.child.exitCode === null && d.child.signalCode === null) {
      d.child.kill('SIGKILL');
      await d.exited;
    }
  await proxy?.close();
  bucket?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

const portOf = (d: Child) => Number(new URL(d.url).port);

/**
 * The bytes the kernel holds on the TCP connections from or to `ports` (/proc/net/tcp's tx_queue,
 * sent but not acknowledged or not yet sent, and rx_queue, received but not yet read): what a
 * client counted sent that its receiver had not read. Loopback buffers grow to megabytes each
 * (tcp_rmem), and the proxy makes two connections of each request.
 */
function queuedOn(ports: number[]): number {
  let total = 0;
  for (const line of readFileSync('/proc/net/tcp', 'utf8').trim().split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    const [local, remote] = [fields[1], fields[2]].map((address) => parseInt(address.split(':')[1], 16));
    if (fields[3] === '0A' || !(ports.includes(local) || ports.includes(remote))) continue; // 0A: listening
    const [tx, rx] = fields[4].split(':').map((hex) => parseInt(hex, 16));
    total += tx + rx;
  }
  return total;
}

async function post(base: string, route: string): Promise<void> {
  const res = await fetch(`${base}${route}`, { method: 'POST', headers });
  if (res.status !== 201) throw new Error(`${route}: ${res.status} ${await res.text()}`);
}

describe('tus-js-client, 256 MiB, two cluster daemons behind a TCP proxy', () => {
  it('survives a network cut and its daemon SIGKILLed, finishing through the other daemon with the source’s SHA-256', async () => {
    const began = Date.now();
    work = await mkdtemp(path.join(os.tmpdir(), 'nimbus-tus-cluster-'));
    const source = path.join(work, 'source.bin');
    const expected = await writeSeededFile(source, SIZE);

    const cluster = await clusterEnv();
    bucket = bucketOf(cluster);
    const target = { host: '127.0.0.1', port: 0 };
    proxy = await startTcpProxy(target);
    const env = childEnv({
      ...cluster,
      NIMBUS_API_KEY: TEST_KEY,
      NIMBUS_KEYCHAIN: 'off',
      // The client knows either daemon by the proxy's address.
      NIMBUS_ALLOWED_HOSTS: `127.0.0.1:${proxy.port}`,
    });
    // One after the other: the first one migrates the fresh database.
    for (const name of ['a', 'b']) {
      const dataDir = path.join(work, name);
      await mkdir(dataDir);
      daemons.push(await spawnDaemon(dataDir, env));
    }
    const [a, b] = daemons;
    target.port = portOf(a);
    await post(a.url, '/api/role/create?name=big&maxStorage=-1&badge=https://example.com/b.png');
    await post(a.url, '/api/user/create?username=ana&email=ana@example.com&password=password123');
    await post(a.url, '/api/user/role?username=ana&name=big');
    await eventually('B knows ana and her role', async () => {
      const res = await fetch(`${b.url}/api/user?username=ana`, { headers });
      return res.status === 200 && (await res.text()).includes('"big"');
    });
    const ready = Date.now();

    const interruptions: { kind: string; at: number; queued: number }[] = [];
    /** Where the resume after each interruption began: the offset of the last HEAD after it (a retry may HEAD again). */
    const resumedAt: number[] = [];
    /** The furthest the client got since the last HEAD, and what it had to send again. */
    let peak = 0;
    let inVain = 0;
    const inVainBy: number[] = [];
    let stage = 0;
    const upload = new tus.Upload(createReadStream(source), {
      endpoint: `http://127.0.0.1:${proxy.port}/api/uploads/`,
      headers,
      metadata: { username: 'ana', filename: 'big.bin' },
      // Enough to outlast the move to B.
      retryDelays: [100, 200, 400, 800, 1000, 1000, 1000, 1000, 2000, 2000, 2000, 2000, 2000, 2000, 2000],
      onAfterResponse: (req, res) => {
        if (req.getMethod() !== 'HEAD' || res.getStatus() !== 200) return;
        const offset = Number(res.getHeader('Upload-Offset'));
        if (stage > 0) resumedAt[stage - 1] = offset;
        if (peak > offset) {
          inVain += peak - offset;
          inVainBy[stage - 1] = (inVainBy[stage - 1] ?? 0) + peak - offset;
        }
        peak = offset;
      },
      onProgress: (sent) => {
        peak = Math.max(peak, sent);
        if (stage === 0 && sent > SIZE * 0.3) {
          stage = 1;
          interruptions.push({ kind: 'network cut', at: sent, queued: queuedOn([proxy!.port, target.port]) });
          proxy!.cut();
          setTimeout(() => proxy!.mend(), 300);
        } else if (stage === 1 && sent > SIZE * 0.6) {
          stage = 2;
          interruptions.push({ kind: 'SIGKILL of A, on to B', at: sent, queued: queuedOn([proxy!.port, target.port]) });
          // New connections go to B from now on; A's die with it.
          target.port = portOf(b);
          a.child.kill('SIGKILL');
        }
      },
    });
    await new Promise<void>((resolve, reject) => {
      upload.options.onSuccess = () => resolve();
      upload.options.onError = (err) => reject(err);
      upload.start();
    });
    const uploaded = Date.now();
    // Logged before the checks, so that a failing run shows its numbers too.
    console.log(
      [
        `tus-js-client, 256 MiB through two cluster daemons, uploaded in ${((uploaded - ready) / 1000).toFixed(1)} s:`,
        ...interruptions.map(
          ({ kind, at, queued }, i) =>
            `  ${kind} at ${mb(at)} sent (${mb(queued)} of it in the kernel's buffers): ` +
            `resumed at ${mb(resumedAt[i] ?? NaN)}, ${mb(inVainBy[i] ?? 0)} sent in vain`,
        ),
        `  ${mb(inVain)} sent in vain in all (${((100 * inVain) / SIZE).toFixed(1)} % of the file)`,
      ].join('\n'),
    );

    expect(interruptions.map((i) => i.kind)).toEqual(['network cut', 'SIGKILL of A, on to B']);
    expect(await a.exited).toBe('SIGKILL');
    expect(resumedAt).toHaveLength(2);
    // Each resume began no further than what was sent, and no earlier than what had reached A:
    // what was sent less what the kernel still held on the way. The cut PATCH kept all of that;
    // A SIGKILLed lost at most the part it was filling or sending to the bucket.
    const reached = interruptions.map(({ at, queued }) => at - queued - SLACK);
    expect(resumedAt[0]).toBeLessThanOrEqual(interruptions[0].at);
    expect(resumedAt[0]).toBeGreaterThanOrEqual(reached[0]);
    expect(resumedAt[1]).toBeLessThanOrEqual(interruptions[1].at);
    expect(resumedAt[1]).toBeGreaterThanOrEqual(reached[1] - PART);

    await eventually('B lists big.bin', async () => {
      const res = await fetch(`${b.url}/api/files?username=ana`, { headers });
      const files = res.status === 200 ? ((await res.json()) as { files: { name: string; size: number }[] }).files : [];
      return files.some((f) => f.name === 'big.bin' && f.size === SIZE);
    });
    const download = await fetch(`${b.url}/api/files/download?username=ana&file=big.bin`, { headers });
    expect(download.status).toBe(200);
    expect(await hashDownload(download)).toEqual({ sha256: expected, bytes: SIZE });
    const open = await bucket.client.send(new ListMultipartUploadsCommand({ Bucket: bucket.name }));

    const done = Date.now();
    console.log(
      `multipart uploads left open in the bucket: ${(open.Uploads ?? []).length}; ` +
        `setup ${((ready - began) / 1000).toFixed(1)} s, upload ${((uploaded - ready) / 1000).toFixed(1)} s, ` +
        `download and checks ${((done - uploaded) / 1000).toFixed(1)} s`,
    );
  }, 180_000);
});
