/**
 * Issue 28, item 1: the parts of deploy/compose.yaml run together for real, without compose
 * (test/ship/compose.test.ts says why podman-compose cannot run it here): two containers of the
 * root Dockerfile's image in the cluster mode, the S3 server of deploy/compose/swift (Debian 12's
 * Swift with s3api) as a container, the run's PostgreSQL 15 (test/helpers/engines.ts), and
 * nginx running deploy/nginx.conf (test/helpers/nginx.ts). Every container on the host's network,
 * each on a free port. The admin key comes from one secret file, as compose gives it.
 * Uploads go through nginx; each daemon reads them back; one daemon restarts and still does.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedPostgres } from '../helpers/engines.js';
import { startNginx, type RunningNginx } from '../helpers/nginx.js';
import { buildNimbusImage, buildSwiftImage, containerSkipReason, freePort, NIMBUS_IMAGE, podman, podmanOk, SWIFT_IMAGE } from './podman.js';
import { MiB, removeTree } from './ship-tools.js';

const skipReason = containerSkipReason();
const run = randomBytes(4).toString('hex');
const S3_NAME = `nimbus-ci-s3-${run}`;
const daemonName = (i: number) => `nimbus-ci-cluster-${run}-${i}`;
const containers: string[] = [];
const volumes: string[] = [];

let work: string;
let nginx: RunningNginx | undefined;
let key: string;
let ports: number[];

/**
 * Polls `url` until it answers 200. A container that exited meanwhile is started again, up to
 * three times, as deploy/compose.yaml's `restart: unless-stopped` would: a daemon whose start met
 * Swift still busy (its S3 layer answering "Please reduce your request rate", a 503, on a loaded
 * machine) stops with that message, as it should, and its restart policy brings it back.
 */
async function until200(url: string, what: string, container: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  let last = '';
  let restarts = 0;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.status === 200) return;
      last = `${res.status}`;
    } catch (err) {
      last = (err as Error).message;
      const state = await podman(['inspect', '-f', '{{.State.Running}}', container]);
      if (state.code === 0 && state.stdout.trim() === 'false' && restarts < 3) {
        restarts += 1;
        await podman(['start', container]);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const logs = await podman(['logs', container]);
  throw new Error(`${what} did not answer 200 within 120 s (${last}):\n${logs.stdout.slice(-3000)}\n${logs.stderr.slice(-3000)}`);
}

async function runContainer(name: string, volume: string, args: string[]): Promise<void> {
  containers.push(name);
  volumes.push(volume);
  await podmanOk(['run', '-d', '--name', name, ...args]);
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe.skipIf(skipReason !== null)(`the cluster's containers${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'nimbus-cluster-containers-'));
    const [nimbusSeconds, swiftSeconds] = [await buildNimbusImage(), await buildSwiftImage()];
    console.log(`podman build: the Nimbus image ${nimbusSeconds.toFixed(1)} s, the Swift image ${swiftSeconds.toFixed(1)} s`);

    const started = Date.now();
    const taken = new Set<number>();
    while (taken.size < 6) taken.add(await freePort());
    const [s3Port, backendPort, memcachedPort, nginxPort, port1, port2] = [...taken];
    ports = [port1, port2];
    const s3Secret = randomBytes(12).toString('hex');
    // Three consecutive ports for Swift's backends: a free one and the two after it, as the
    // engines helper takes them (a collision fails the start loudly, not the test silently).
    await runContainer(S3_NAME, `${S3_NAME}-data`, [
      '-e',
      `PORT=${s3Port}`,
      '-e',
      `BACKEND_PORT=${backendPort}`,
      '-e',
      `MEMCACHED_PORT=${memcachedPort}`,
      '-e',
      'S3_ACCESS_KEY_ID=nimbus:files',
      '-e',
      `S3_SECRET_ACCESS_KEY=${s3Secret}`,
      '-v',
      `${S3_NAME}-data:/srv/swift`,
      SWIFT_IMAGE,
    ]);
    await until200(`http://127.0.0.1:${s3Port}/healthcheck`, 'Swift', S3_NAME);

    key = randomBytes(32).toString('base64url');
    const secret = path.join(work, 'nimbus_api_key');
    await writeFile(secret, `${key}\n`);
    await chmod(secret, 0o644);
    const databaseUrl = await (await sharedPostgres()).createDatabase();
    const shared = [
      ['NIMBUS_HOST', '127.0.0.1'],
      ['NIMBUS_PUBLIC_URL', `http://127.0.0.1:${nginxPort}`],
      ['NIMBUS_API_KEY_FILE', '/run/secrets/nimbus_api_key'],
      ['NIMBUS_DATABASE_URL', databaseUrl],
      ['NIMBUS_S3_ENDPOINT', `http://127.0.0.1:${s3Port}`],
      ['NIMBUS_S3_BUCKET', 'nimbus-files'],
      ['NIMBUS_S3_REGION', 'us-east-1'],
      ['NIMBUS_S3_ACCESS_KEY_ID', 'nimbus:files'],
      ['NIMBUS_S3_SECRET_ACCESS_KEY', s3Secret],
    ].flatMap(([name, value]) => ['-e', `${name}=${value}`]);
    for (const [i, port] of ports.entries()) {
      const name = daemonName(i + 1);
      await runContainer(name, `${name}-data`, [
        ...shared,
        '-e',
        `NIMBUS_PORT=${port}`,
        '-v',
        `${secret}:/run/secrets/nimbus_api_key:ro`,
        '-v',
        `${name}-data:/data`,
        NIMBUS_IMAGE,
      ]);
    }
    for (const [i, port] of ports.entries()) await until200(`http://127.0.0.1:${port}/api/health`, `daemon ${i + 1}`, daemonName(i + 1));
    nginx = await startNginx({ upstreams: ports.map((port) => `127.0.0.1:${port}`), port: nginxPort });
    console.log(`the cluster's containers started and healthy: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }, 1_200_000);

  afterAll(async () => {
    await nginx?.stop();
    for (const name of containers) await podman(['rm', '-f', '-t', '2', name]);
    for (const volume of volumes) await podman(['volume', 'rm', '-f', volume]);
    if (work) await removeTree(work);
  }, 120_000);

  it('serves through nginx what either daemon stored, in PostgreSQL and the bucket, before and after a restart', async () => {
    const headers = { 'API-Key': key };
    const created = await fetch(`${nginx!.url}/api/user/create`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'ana', email: 'ana@example.com', password: 'a cluster for ana' }),
    });
    expect(created.status).toBe(201);
    const blobs = [0, 1, 2, 3].map(() => randomBytes(3 * MiB));
    for (const [i, blob] of blobs.entries()) {
      const res = await fetch(`${nginx!.url}/api/files/upload?username=ana&file=blob${i}.bin`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/octet-stream' },
        body: blob,
      });
      expect(res.status).toBe(201);
    }
    const readAll = async () => {
      for (const port of ports) {
        for (const [i, blob] of blobs.entries()) {
          const res = await fetch(`http://127.0.0.1:${port}/api/files/download?username=ana&file=blob${i}.bin`, { headers });
          expect(res.status).toBe(200);
          expect(sha256(new Uint8Array(await res.arrayBuffer()))).toBe(sha256(blob));
        }
      }
    };
    await readAll();
    // The database is the cluster's mode: both daemons say so.
    const dash = (await (await fetch(`http://127.0.0.1:${ports[1]}/api/dash`, { headers })).json()) as { users: number; files: number };
    expect(dash).toMatchObject({ users: 1, files: 4 });

    await podmanOk(['restart', '-t', '30', daemonName(1)]);
    await until200(`http://127.0.0.1:${ports[0]}/api/health`, 'daemon 1 after its restart', daemonName(1));
    await readAll();
    const health = await fetch(`${nginx!.url}/api/health`);
    expect(await health.json()).toMatchObject({ status: 'ok' });
  }, 240_000);
});
