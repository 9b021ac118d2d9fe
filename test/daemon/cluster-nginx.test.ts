/**
 * nginx (deploy/nginx.conf, run by test/helpers/nginx.ts) in front of two cluster daemons
 * (`nimbus daemon` child processes on one PostgreSQL database and one bucket; issue 14): a
 * 1 GiB upload and its download stream through the balancer with both daemons' resident
 * memory flat and the bytes intact (sha256), and uploads the balancer spreads over both
 * daemons are all listed through either. "Flat" is growth under 96 MiB: S3's multipart
 * upload holds a few parts in memory by design (three 5 MiB parts, about 25 MiB with the
 * one being gathered and its copy), the rest must stream. The receiving daemon grew 53 and
 * 75 MiB in two runs: each part's Buffer.concat leaves 5 MiB of garbage that waits for a
 * collection (and malloc may keep it), so 64 MiB does not hold every time.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GIB, generated, hashDownload, MIB, rssOf, uploadStream } from '../helpers/big-transfers.js';
import { childEnv, spawnDaemon, type CliRun } from '../helpers/child.js';
import { eventually } from '../helpers/cluster.js';
import { TEST_KEY } from '../helpers/daemon.js';
import { clusterEnv } from '../helpers/engines.js';
import { freePort, startNginx, type RunningNginx } from '../helpers/nginx.js';

const USER = 'big';
const headers = { 'API-Key': TEST_KEY };
const FLAT = 96 * MIB;

type Child = CliRun & { url: string };

/** Samples both daemons' RSS every 50 ms while `work` runs: each one's growth over its start. */
async function peakGrowthOfAll<T>(pids: number[], work: () => Promise<T>): Promise<{ result: T; growth: number[] }> {
  const before = await Promise.all(pids.map(rssOf));
  const peak = [...before];
  const sample = () =>
    Promise.all(
      pids.map((pid, i) =>
        rssOf(pid).then(
          (rss) => (peak[i] = Math.max(peak[i], rss)),
          () => undefined,
        ),
      ),
    );
  const sampler = setInterval(() => void sample(), 50);
  try {
    const result = await work();
    await sample();
    return { result, growth: peak.map((p, i) => p - before[i]) };
  } finally {
    clearInterval(sampler);
  }
}

/** The names a daemon (or the balancer) lists at USER's root. */
async function names(base: string): Promise<string[]> {
  const res = await fetch(`${base}/api/files?username=${USER}`, { headers });
  if (res.status !== 200) throw new Error(`listing through ${base}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { files: { name: string }[] }).files.map((f) => f.name).sort();
}

describe('nginx in front of two cluster daemons', () => {
  const dataDirs: string[] = [];
  const daemons: Child[] = [];
  let nginx: RunningNginx;

  beforeAll(async () => {
    const env = await clusterEnv();
    const port = await freePort();
    for (let i = 0; i < 2; i++) {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-cluster-nginx-'));
      dataDirs.push(dataDir);
      daemons.push(
        await spawnDaemon(
          dataDir,
          childEnv({ ...env, NIMBUS_API_KEY: TEST_KEY, NIMBUS_KEYCHAIN: 'off', NIMBUS_PUBLIC_URL: `http://127.0.0.1:${port}` }),
        ),
      );
    }
    nginx = await startNginx({ upstreams: daemons.map((d) => new URL(d.url).host), port });
    const post = async (route: string) => {
      const res = await fetch(`${nginx.url}${route}`, { method: 'POST', headers });
      if (res.status !== 201) throw new Error(`${route}: ${res.status} ${await res.text()}`);
    };
    await post(`/api/role/create?name=big&maxStorage=4096&badge=${encodeURIComponent('https://example.com/b.png')}`);
    await post(`/api/user/create?username=${USER}&email=big@example.com&password=password123`);
    await post(`/api/user/role?username=${USER}&name=big`);
    // Both daemons know the user and its role before anything is sent to either.
    for (const d of daemons)
      await eventually('each daemon knows the user’s role', async () => {
        const res = await fetch(`${d.url}/api/user?username=${USER}`, { headers });
        return res.status === 200 && (await res.text()).includes('"big"');
      });
  }, 120_000);

  afterAll(async () => {
    await nginx?.stop();
    for (const d of daemons) {
      if (d.child.exitCode === null && d.child.signalCode === null) {
        d.child.kill('SIGTERM');
        await d.exited;
      }
    }
    for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
  });

  it('streams a 1 GiB upload and its download through nginx with both daemons’ memory flat and the bytes intact', async () => {
    const pids = daemons.map((d) => d.child.pid!);
    // Small transfers through each daemon first load the upload, S3 and download code, so what follows measures streaming alone.
    for (const [i, d] of daemons.entries()) {
      expect((await uploadStream(d.url, TEST_KEY, USER, `warm${i}.bin`, generated(8 * MIB).stream, 8 * MIB)).status).toBe(201);
      await (await fetch(`${d.url}/api/files/download?username=${USER}&file=warm${i}.bin`, { headers })).arrayBuffer();
    }

    const source = generated(GIB);
    const up = await peakGrowthOfAll(pids, () => uploadStream(nginx.url, TEST_KEY, USER, 'big.bin', source.stream, GIB));
    expect(up.result.status, up.result.text).toBe(201);
    for (const [i, growth] of up.growth.entries()) expect(growth, `upload: daemon ${i} grew ${growth >> 20} MiB`).toBeLessThan(FLAT);

    // The other daemon may hear of the file a moment later: the balancer may send the download to it.
    for (const d of daemons) await eventually('each daemon lists big.bin', async () => (await names(d.url)).includes('big.bin'));
    const down = await peakGrowthOfAll(pids, async () => {
      const res = await fetch(`${nginx.url}/api/files/download?username=${USER}&file=big.bin`, { headers });
      expect(res.status).toBe(200);
      expect(res.headers.get('Content-Length')).toBe(String(GIB));
      return hashDownload(res);
    });
    for (const [i, growth] of down.growth.entries()) expect(growth, `download: daemon ${i} grew ${growth >> 20} MiB`).toBeLessThan(FLAT);
    expect(down.result).toEqual({ sha256: source.sha256(), bytes: GIB });
  }, 600_000);

  it('lists through either daemon, and through the balancer, every upload the balancer spread over both', async () => {
    const files = Array.from({ length: 12 }, (_, i) => `spread${String(i).padStart(2, '0')}.txt`);
    for (const file of files) {
      const body = generated(1000 + files.indexOf(file));
      expect((await uploadStream(nginx.url, TEST_KEY, USER, file, body.stream, 1000 + files.indexOf(file))).status).toBe(201);
    }
    // nginx's round robin sent some to each: both daemons' logs name spread uploads.
    for (const d of daemons) expect(d.stderr(), 'each daemon received some of the uploads').toMatch(/spread\d\d\.txt/);
    for (const base of [...daemons.map((d) => d.url), nginx.url]) {
      const listed = await eventually(`${base} lists every spread upload`, async () => {
        const all = await names(base);
        return files.every((f) => all.includes(f)) ? all : undefined;
      });
      expect(listed.filter((n) => n.startsWith('spread'))).toEqual(files);
    }
  }, 120_000);
});
