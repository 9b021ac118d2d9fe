/**
 * The PostgreSQL + S3 backend beside the embedded one (issues 14 and 15): every row of the
 * embedded set, measured on a cluster daemon and on the bench's embedded daemon in the same
 * run, alternating — GET /api/user, a page of 100 from a user with 100,000 files, N durable
 * mutations against N reads, upload and download of the big file, the event stream and
 * start-up with 100,000 files — then two cluster daemons behind nginx (deploy/nginx.conf)
 * against one direct. The engines are throwaway processes (bench/lib/engines.ts); when they
 * cannot start, every row says "not measured" and why, and the bench goes on.
 *
 * The cluster dataset (bench/lib/cluster-dataset.ts) is written directly, not through the
 * API: all of `big`'s file rows into PostgreSQL, and an object only for the big file, the
 * one the download row reads (no other row reads objects; see that module).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { freePort, startNginx } from '../../test/helpers/nginx.js';
import { startChild } from '../lib/child.js';
import { loadClusterDataset, CLUSTER_BUCKET, type ClusterDataset } from '../lib/cluster-dataset.js';
import { clusterDurableRow } from '../lib/cluster-durable.js';
import { startupRows } from '../lib/cluster-startup.js';
import { clusterDownloadRow, clusterUploadRow } from '../lib/cluster-transfer.js';
import type { Bench } from '../lib/context.js';
import { BIG_USER } from '../lib/dataset.js';
import { startBenchEngines, type BenchEngines } from '../lib/engines.js';
import { load, LOADGEN, type LoadResult } from '../lib/load.js';
import { DAEMON_COMMAND, ROOT, type NimbusProcess } from '../lib/nimbus.js';
import { fmt, notMeasured, verdict, type Row } from '../lib/report.js';
import { median, percentile } from '../lib/stats.js';
import { measureEventFanout, type FanoutResult } from './events.js';

const CONNECTIONS = 50;
/** BENCH_PROFILE=1 profiles the cluster daemons too (one .cpuprofile per daemon, written when it stops). */
const PROFILE_ARGS =
  process.env.BENCH_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${path.join(ROOT, 'bench', 'data', 'profiles')}`] : [];
/** Reads answer from memory on both backends: the cluster daemon should keep 0.9× of the embedded one's rate. */
const READ_GOAL = 0.9;
/** …and its p99 within the issue's factor for GET /api/user against bare node:http. */
const P99_FACTOR = 2;
/** BENCH_CLUSTER_ROWS=durable,startup: only these of TITLES' keys (the dataset load always runs), for profiling one row. */
const ROWS_ONLY = process.env.BENCH_CLUSTER_ROWS ? new Set(process.env.BENCH_CLUSTER_ROWS.split(',')) : null;
const EVENT_SUBSCRIBERS = 1000;
const EVENT_CHANGES = 20;
const EVENT_P99_MS = 100;

interface Target {
  url: string;
  key: string;
}

/** Every row this scenario produces, in order (titles for "not measured" too). */
const TITLES = {
  load: 'Cluster dataset load (PostgreSQL rows + the big file’s object)',
  user: 'GET /api/user: PostgreSQL + S3 vs embedded',
  files: 'GET /api/files/?limit=100: PostgreSQL + S3 vs embedded',
  durable: 'Concurrent durable POST /api/user/role vs reads: PostgreSQL + S3',
  download: 'Download of the big file: PostgreSQL + S3 vs embedded',
  upload: 'Upload of the big file: PostgreSQL + S3 vs embedded',
  events: 'The event stream: PostgreSQL + S3 vs embedded',
  startupAnswering: 'Start-up with 100,000 files: API answering, PostgreSQL + S3',
  startupReady: 'Start-up with 100,000 files: index ready, PostgreSQL + S3',
  nginx: 'GET /api/user: 2 cluster daemons behind nginx vs 1 direct',
};

export async function clusterRows(b: Bench): Promise<Row[]> {
  let engines: BenchEngines;
  try {
    engines = await startBenchEngines();
  } catch (err) {
    const reason = `the engines did not start (${(err as Error).message.split('\n')[0].slice(0, 200)})`;
    b.log(`  ${reason}`);
    return Object.values(TITLES).map((title) => notMeasured(title, '—', reason));
  }
  const daemons: NimbusProcess[] = [];
  try {
    b.log(`  engines up: PostgreSQL ${fmt.ms(engines.startMs.postgres)}, Swift ${fmt.ms(engines.startMs.swift)}`);
    // nginx's port is known before the daemons start: its Host must be one they accept.
    const nginxPort = await freePort();
    const start = async (name: string) => {
      const d = await startClusterDaemon(b, engines, name, nginxPort);
      daemons.push(d);
      return d;
    };
    // The first daemon migrates the schema and makes the bucket; the rows written next are
    // read by daemons started after them (a daemon reads the tables once, at start).
    await (await start('migrate')).child.stop();
    const t = performance.now();
    const loaded = await loadClusterDataset(b, engines);
    const rows: Row[] = [loadRow(loaded, performance.now() - t)];
    b.log(`  ${rows[0].detail}`);
    const a = await start('a');
    const second = await start('b');
    const attempt = async (titles: string | string[], run: () => Promise<Row | Row[]>) => {
      const list = [titles].flat();
      const keys = Object.entries(TITLES)
        .filter(([, title]) => list.includes(title))
        .map(([k]) => k.replace(/^startup.*/, 'startup'));
      if (ROWS_ONLY && !keys.some((k) => ROWS_ONLY.has(k))) return;
      b.log(`  ${list[0]}…`);
      try {
        rows.push(...[await run()].flat());
      } catch (err) {
        b.log(`  failed: ${(err as Error).stack ?? String(err)}`);
        for (const title of list) rows.push(notMeasured(title, '—', `the scenario failed: ${(err as Error).message.slice(0, 300)}`));
      }
    };
    const userRoute = `/api/user?username=${b.ds.roleUsers.at(-1)!}`;
    await attempt(TITLES.user, () => readRow(b, a, userRoute, `GET /api/user (${b.ds.spec.users.toLocaleString('en-US')} users)`));
    const offset = Math.floor(b.ds.spec.bigFolderFiles / 2);
    const filesRoute = `/api/files/?username=${BIG_USER}&folder=${b.ds.bigFolder}&limit=100&offset=${offset}`;
    await attempt(TITLES.files, () =>
      readRow(
        b,
        a,
        filesRoute,
        `GET /api/files/?limit=100, user with ${loaded.files.toLocaleString('en-US')} files (rows without objects: a listing reads none)`,
      ),
    );
    await attempt(TITLES.durable, () => clusterDurableRow(b, a, engines.databaseUrl));
    await attempt(TITLES.download, () => clusterDownloadRow(b, a, engines, loaded.bigObjectKey));
    await attempt(TITLES.upload, () => clusterUploadRow(b, a, engines));
    await attempt(TITLES.events, () => eventsRow(b, a));
    await attempt(TITLES.nginx, () => nginxRow(b, a, second, userRoute, nginxPort));
    // Last: each round spawns two more daemons.
    let starts = 0;
    await attempt([TITLES.startupAnswering, TITLES.startupReady], () =>
      startupRows(b, () => startClusterDaemon(b, engines, `startup-${starts++}`, nginxPort), loaded.files + 1),
    );
    return rows;
  } finally {
    for (const d of daemons) await d.child.stop();
    engines.close();
  }
}

function loadRow(loaded: ClusterDataset, ms: number): Row {
  return {
    scenario: TITLES.load,
    nimbus: fmt.ms(ms),
    baseline: '—',
    ratio: '—',
    target: '—',
    verdict: 'info',
    detail:
      `written directly (not through the API): \`big\`'s ${loaded.files.toLocaleString('en-US')} files read for their sizes and MD5 ETags in ${fmt.ms(loaded.readMs)}; ` +
      `the media user's big file put as one object (multipart, bucket ${CLUSTER_BUCKET}) in ${fmt.ms(loaded.objectMs)}; ` +
      `${loaded.users.toLocaleString('en-US')} users, ${loaded.folders.toLocaleString('en-US')} folders and ${(loaded.files + 1).toLocaleString('en-US')} file rows in one transaction, then VACUUM ANALYZE, in ${fmt.ms(loaded.rowsMs)}. ` +
      `The small files have rows and no objects: no row but the download reads bytes (listings, start-up and durable mutations read rows; the sweeper deletes objects without rows, never rows), and Swift's 37–80 PutObjects/s would take over 20 minutes for them.`,
  };
}

/** `nimbus daemon` on the engines, with the embedded daemon's API key and its own data directory (logs, temp files). */
export async function startClusterDaemon(b: Bench, engines: BenchEngines, name: string, nginxPort: number): Promise<NimbusProcess> {
  const dataDir = path.join(b.root, `cluster-${name}`);
  mkdirSync(dataDir, { recursive: true });
  const spawnedAt = performance.now();
  const { child, match } = await startChild(
    process.execPath,
    [...PROFILE_ARGS, ...DAEMON_COMMAND, 'daemon', '--port', '0', '--data-dir', dataDir],
    /Nimbus daemon listening on (http:\/\/\S+)/,
    {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'production',
        NIMBUS_API_KEY: b.nimbus.key,
        NIMBUS_KEYCHAIN: 'off',
        // Requests through the balancer carry its Host (NIMBUS_PUBLIC_URL would do too, but it changes the answers' URLs).
        NIMBUS_ALLOWED_HOSTS: `127.0.0.1:${nginxPort}`,
        NIMBUS_DATABASE_URL: engines.databaseUrl,
        NIMBUS_S3_ENDPOINT: engines.s3.endpoint,
        NIMBUS_S3_REGION: engines.s3.region,
        NIMBUS_S3_BUCKET: CLUSTER_BUCKET,
        NIMBUS_S3_ACCESS_KEY_ID: engines.s3.accessKeyId,
        NIMBUS_S3_SECRET_ACCESS_KEY: engines.s3.secretAccessKey,
      },
    },
    120_000,
  );
  return { child, pid: child.pid, url: match[1], key: b.nimbus.key, listeningMs: performance.now() - spawnedAt, spawnedAt };
}

/** Alternating load runs of `route` on the embedded daemon and on cluster daemon `a`. */
async function readRow(b: Bench, a: Target, route: string, what: string): Promise<Row> {
  const headers = { 'API-Key': b.nimbus.key };
  const embeddedUrl = `${b.nimbus.url}${route}`;
  const clusterUrl = `${a.url}${route}`;
  const r = await alternate(b, 'read', [embeddedUrl, clusterUrl], headers);
  const [embedded, cluster] = r;
  const rps = median(cluster.map((x) => x.reqPerSec));
  const base = median(embedded.map((x) => x.reqPerSec));
  const ratio = rps / base;
  const p99 = median(cluster.map((x) => x.p99));
  const baseP99 = median(embedded.map((x) => x.p99));
  return {
    scenario: `${what}, PostgreSQL + S3`,
    nimbus: `${fmt.rps(rps)}, p99 ${fmt.ms(p99)}`,
    baseline: `${fmt.rps(base)}, p99 ${fmt.ms(baseP99)} (embedded)`,
    ratio: `${fmt.ratio(ratio)} req/s; p99 ${fmt.ratio(p99 / baseP99)}`,
    target: `≥ ${READ_GOAL} × embedded, p99 ≤ ${P99_FACTOR} ×`,
    verdict: verdict(ratio >= READ_GOAL && p99 <= P99_FACTOR * baseP99),
    detail:
      `\`GET ${route}\`, ${CONNECTIONS} connections, ${LOADGEN}, ${b.seconds} s per run, alternating; both daemons answer from their in-memory Maps (so the target is near parity: ${READ_GOAL}× the rate, p99 within the issue's ${P99_FACTOR}×). ` +
      `Cluster ${fmt.list(
        cluster.map((x) => x.reqPerSec),
        fmt.rps,
      )}; embedded ${fmt.list(
        embedded.map((x) => x.reqPerSec),
        fmt.rps,
      )}.`,
  };
}

/** Warms each URL up, then `b.rounds` rounds of one load run per URL, in order; throws on any error answer. */
async function alternate(b: Bench, name: string, urls: string[], headers: Record<string, string>): Promise<LoadResult[][]> {
  for (const url of urls) await load({ url, connections: CONNECTIONS, seconds: 2, headers });
  const results: LoadResult[][] = urls.map(() => []);
  for (let round = 0; round < b.rounds; round++) {
    for (const [i, url] of urls.entries()) {
      const r = await load({ url, connections: CONNECTIONS, seconds: b.seconds, headers });
      if (r.errors + r.non2xx > 0) throw new Error(`${name}: ${r.errors} errors, ${r.non2xx} non-2xx answers from ${url}`);
      results[i].push(r);
    }
    b.log(
      `  ${name} round ${round + 1}: ${results.map((r) => `${fmt.rps(r.at(-1)!.reqPerSec)} p99 ${fmt.ms(r.at(-1)!.p99)}`).join(' | ')}`,
    );
  }
  return results;
}

/** The event stream on cluster daemon `a` and on the embedded daemon, alternating rounds (bench/scenarios/events.ts does the measuring). */
async function eventsRow(b: Bench, a: Target): Promise<Row> {
  const cluster: FanoutResult[] = [];
  const embedded: FanoutResult[] = [];
  const options = { subscribers: EVENT_SUBSCRIBERS, changes: EVENT_CHANGES, log: b.log };
  const p99 = (r: FanoutResult) => percentile(r.samples, 99);
  for (let round = 0; round < b.rounds; round++) {
    embedded.push(await measureEventFanout(b.nimbus, options));
    cluster.push(await measureEventFanout(a, options));
    const [c, e] = [cluster.at(-1)!, embedded.at(-1)!];
    b.log(
      `  events round ${round + 1}: cluster p99 ${fmt.ms(p99(c))}, missed ${c.missed} | embedded p99 ${fmt.ms(p99(e))}, missed ${e.missed}`,
    );
  }
  // As the embedded row does (fanoutRow): percentiles over every (subscriber, change) pair of every round.
  const pooled = (rounds: FanoutResult[], q: number) =>
    percentile(
      rounds.flatMap((r) => r.samples),
      q,
    );
  const c = pooled(cluster, 99);
  const e = pooled(embedded, 99);
  const missed = cluster.reduce((sum, r) => sum + r.missed, 0);
  return {
    scenario: `The event stream, ${EVENT_SUBSCRIBERS.toLocaleString('en-US')} subscribers, PostgreSQL + S3`,
    nimbus: `p50 ${fmt.ms(pooled(cluster, 50))}, p99 ${fmt.ms(c)}, ${missed} missed`,
    baseline: `p99 ${fmt.ms(e)} (embedded)`,
    ratio: fmt.ratio(c / e),
    target: `p99 ≤ ${EVENT_P99_MS} ms, none missed`,
    verdict: verdict(c <= EVENT_P99_MS && missed === 0),
    detail:
      `measureEventFanout (bench/scenarios/events.ts): ${EVENT_SUBSCRIBERS} GET /api/events streams with the admin key, ${EVENT_CHANGES} folders made one every 150 ms, ` +
      `each latency from the change's request sent to that stream's message; alternating embedded and cluster; percentiles over every pair of every round. ` +
      `A cluster daemon emits a change after its COMMIT in PostgreSQL (the embedded one after db.json's fsync). Per round, cluster p99 ${fmt.list(cluster.map(p99), fmt.ms)}; ` +
      `embedded p99 ${fmt.list(embedded.map(p99), fmt.ms)}; cluster p95 ${fmt.ms(pooled(cluster, 95))}, max ${fmt.ms(pooled(cluster, 100))}.`,
  };
}

async function nginxRow(b: Bench, a: NimbusProcess, second: NimbusProcess, route: string, port: number): Promise<Row> {
  const hostOf = (url: string) => new URL(url).host;
  let nginx;
  try {
    nginx = await startNginx({ upstreams: [hostOf(a.url), hostOf(second.url)], port });
  } catch (err) {
    return notMeasured(TITLES.nginx, '—', `nginx did not start: ${(err as Error).message.slice(0, 200)}`);
  }
  try {
    const headers = { 'API-Key': b.nimbus.key };
    const [direct, balanced] = await alternate(b, 'nginx', [`${a.url}${route}`, `${nginx.url}${route}`], headers);
    const rps = median(balanced.map((x) => x.reqPerSec));
    const base = median(direct.map((x) => x.reqPerSec));
    return {
      scenario: `GET /api/user through nginx to 2 cluster daemons`,
      nimbus: `${fmt.rps(rps)}, p99 ${fmt.ms(median(balanced.map((x) => x.p99)))}`,
      baseline: `${fmt.rps(base)}, p99 ${fmt.ms(median(direct.map((x) => x.p99)))} (1 cluster daemon, direct)`,
      ratio: `${fmt.ratio(rps / base)} req/s`,
      target: '—',
      verdict: 'info',
      detail:
        `deploy/nginx.conf (1 worker, keepalive to the upstreams) in front of two daemons on one database and bucket, ${CONNECTIONS} connections, ${LOADGEN}; ` +
        `everything (wrk, nginx, both daemons, PostgreSQL) shares this machine's cores, so this shows the balancer's cost, not a second machine's gain. ` +
        `Through nginx ${fmt.list(
          balanced.map((x) => x.reqPerSec),
          fmt.rps,
        )}; direct ${fmt.list(
          direct.map((x) => x.reqPerSec),
          fmt.rps,
        )}.`,
    };
  } finally {
    await nginx.stop();
  }
}
