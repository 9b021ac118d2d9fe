/**
 * A bucket outage behind nginx (issue 23, item 3; docs/scaling.md, "Failure behaviour"): two
 * cluster daemons behind deploy/nginx.conf (test/helpers/nginx.ts), their bucket reached
 * through a TCP proxy the test cuts (the shared Swift keeps serving the other files). While it
 * is cut, through nginx: a download answers 503 storage_unavailable (never 502), listings,
 * renames and shares answer 2xx, /api/health answers 200 `degraded` naming the bucket, and more
 * requests than max_fails × daemons never turn into 502s (nginx passes an application's 503
 * on and counts no failure for it). Downloads the bucket cuts midway do not mark the daemons
 * down either. Once the bucket is back, everything works at once.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, spawnDaemon, type CliRun } from '../helpers/child.js';
import { eventually } from '../helpers/cluster.js';
import { TEST_KEY } from '../helpers/daemon.js';
import { clusterEnv } from '../helpers/engines.js';
import { freePort, startNginx, type RunningNginx } from '../helpers/nginx.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const USER = 'ana';
const MIB = 1024 * 1024;
const headers = { 'API-Key': TEST_KEY };
/** More than max_fails (3) × 2 daemons: enough failures, were they counted, to mark both down. */
const ROUNDS = 10;

type Child = CliRun & { url: string };

let nginx: RunningNginx;
let proxy: TcpProxy;
const daemons: Child[] = [];
const dataDirs: string[] = [];

const call = async (method: string, route: string, init: { body?: BodyInit; key?: boolean } = {}) => {
  const res = await fetch(`${nginx.url}${route}`, { method, headers: init.key === false ? {} : headers, body: init.body });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers };
};
const listing = () => call('GET', `/api/files?username=${USER}`);
const download = (file: string) => call('GET', `/api/files/download?username=${USER}&file=${file}`);

beforeAll(async () => {
  const env = await clusterEnv();
  const endpoint = new URL(env.NIMBUS_S3_ENDPOINT);
  proxy = await startTcpProxy({ host: endpoint.hostname, port: Number(endpoint.port) });
  endpoint.port = String(proxy.port);
  const port = await freePort();
  for (let i = 0; i < 2; i++) {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-nginx-outage-'));
    dataDirs.push(dataDir);
    daemons.push(
      await spawnDaemon(
        dataDir,
        childEnv({
          ...env,
          NIMBUS_S3_ENDPOINT: endpoint.origin,
          NIMBUS_API_KEY: TEST_KEY,
          NIMBUS_KEYCHAIN: 'off',
          NIMBUS_PUBLIC_URL: `http://127.0.0.1:${port}`,
        }),
      ),
    );
  }
  nginx = await startNginx({ upstreams: daemons.map((d) => new URL(d.url).host), port });
  expect((await call('POST', `/api/user/create?username=${USER}&email=ana@example.com&password=password123`)).status).toBe(201);
  for (const d of daemons)
    await eventually(
      'each daemon knows the user',
      async () => (await fetch(`${d.url}/api/user?username=${USER}`, { headers })).status === 200,
    );
  const put = (file: string, body: BodyInit) => call('POST', `/api/files/upload?username=${USER}&file=${file}`, { body });
  expect((await put('kept.txt', new TextEncoder().encode('kept bytes'))).status).toBe(201);
  expect((await put('big.bin', new Uint8Array(8 * MIB).fill(7))).status).toBe(201);
  // One file to rename and one to share per round (a file changed through one daemon a moment
  // ago may not be known so yet by the other: no request depends on an earlier one).
  for (let i = 0; i < ROUNDS; i++) {
    expect((await put(`r${i}.txt`, `round ${i}`)).status).toBe(201);
    expect((await put(`s${i}.txt`, `round ${i}`)).status).toBe(201);
  }
  for (const d of daemons)
    await eventually('each daemon lists every file', async () =>
      (await (await fetch(`${d.url}/api/files?username=${USER}`, { headers })).text()).includes(`s${ROUNDS - 1}.txt`),
    );
}, 120_000);

afterAll(async () => {
  await nginx?.stop();
  for (const d of daemons) {
    if (d.child.exitCode === null && d.child.signalCode === null) {
      d.child.kill('SIGTERM');
      await d.exited;
    }
  }
  await proxy?.close();
  for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
});

describe('two cluster daemons behind nginx with their bucket cut', () => {
  it('answers downloads 503 and everything else 2xx, however many requests, and /api/health 200 degraded', async () => {
    proxy.cut();
    try {
      for (let i = 0; i < ROUNDS; i++) {
        const down = await download('kept.txt');
        expect(down.status, down.text).toBe(503);
        expect(JSON.parse(down.text).code).toBe('storage_unavailable');
        expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0);
        const list = await listing();
        expect(list.status, list.text).toBe(200);
        const renamed = await call('POST', `/api/files/rename?username=${USER}&file=r${i}.txt&newname=renamed${i}.txt`);
        expect(renamed.status, renamed.text).toBe(201);
        const shared = await call('POST', `/api/files/share?username=${USER}&file=s${i}.txt`);
        expect(shared.status, shared.text).toBe(201);
        const health = await call('GET', '/api/health', { key: false });
        expect(health.status, health.text).toBe(200);
        expect(JSON.parse(health.text)).toMatchObject({ status: 'degraded', checks: { bucket: expect.any(String), database: 'ok' } });
        expect(JSON.parse(health.text).checks.bucket).not.toBe('ok');
      }
    } finally {
      proxy.mend();
    }
    // Back at once: no daemon was marked down, so the first requests after the bucket's return succeed.
    expect((await listing()).status).toBe(200);
    const back = await eventually('a download works again', async () => {
      const res = await download('kept.txt');
      expect(res.status).not.toBe(502);
      return res.status === 200 ? res : undefined;
    });
    expect(back.text).toBe('kept bytes');
    expect(
      await eventually(
        'health is ok again',
        async () => JSON.parse((await call('GET', '/api/health', { key: false })).text).status === 'ok',
      ),
    ).toBe(true);
  }, 60_000);

  it('keeps both daemons in the pool when the bucket cuts downloads midway', async () => {
    for (let i = 0; i < ROUNDS; i++) {
      proxy.cutAfter(MIB);
      const res = await fetch(`${nginx.url}/api/files/download?username=${USER}&file=big.bin`, { headers });
      expect(res.status).toBe(200);
      // The transfer is cut: the body ends in an error or short, never whole.
      const got = await res.arrayBuffer().then(
        (b) => b.byteLength,
        () => -1,
      );
      expect(got).not.toBe(8 * MIB);
      proxy.mend();
      const list = await listing();
      expect(list.status, `after ${i + 1} cut downloads: ${list.text}`).toBe(200);
    }
    // nginx saw each cut ("upstream prematurely closed connection while reading upstream"), a
    // response already started: it cannot retry it and counts no failure of the daemon for it.
    const log = await readFile(path.join(nginx.dir, 'error.log'), 'utf8');
    expect(log.match(/upstream prematurely closed/g)?.length).toBe(ROUNDS);
    expect(log).not.toMatch(/temporarily disabled|no live upstreams/);
    const whole = await eventually('a whole download', async () => {
      const res = await fetch(`${nginx.url}/api/files/download?username=${USER}&file=big.bin`, { headers });
      expect(res.status).not.toBe(502);
      return res.status === 200 ? (await res.arrayBuffer()).byteLength : undefined;
    });
    expect(whole).toBe(8 * MIB);
  }, 60_000);
});
