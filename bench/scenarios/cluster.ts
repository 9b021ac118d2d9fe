/**
 * The PostgreSQL + S3 backend (issue 14) beside the embedded one: the same requests on the
 * bench's embedded daemon and on a cluster daemon holding the same users and the same files
 * of `big`, in alternating rounds; then two cluster daemons behind nginx (deploy/nginx.conf)
 * against one cluster daemon direct. The engines are throwaway processes (bench/lib/engines.ts);
 * when they cannot start, every row says "not measured" and why, and the bench goes on.
 *
 * The cluster dataset is written directly, not through the API: the rows into PostgreSQL
 * (after a first daemon has migrated the schema and made the bucket) and one object per file
 * into the bucket, with the bytes of the embedded file of the same name. Its load time is a
 * row of its own.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import mime from 'mime-types';
import pg from 'pg';
import { S3ObjectStore } from '../../daemon/storage/objects/s3-store.js';
import { objectKey } from '../../daemon/storage/cluster/ids.js';
import type { DbData, StoredFile, StoredFolder } from '../../daemon/store/schema.js';
import { freePort, startNginx } from '../../test/helpers/nginx.js';
import { startChild } from '../lib/child.js';
import type { Bench } from '../lib/context.js';
import { BIG_USER, UPLOAD_USER } from '../lib/dataset.js';
import { startBenchEngines, type BenchEngines } from '../lib/engines.js';
import { load, LOADGEN, type LoadResult } from '../lib/load.js';
import { rssOf } from '../lib/machine.js';
import { api, DAEMON_COMMAND, ROOT, type NimbusProcess } from '../lib/nimbus.js';
import { fmt, notMeasured, verdict, type Row } from '../lib/report.js';
import { median, percentile } from '../lib/stats.js';
import { concurrently } from './store.js';

const exec = promisify(execFile);
const CONNECTIONS = 50;
const BUCKET = 'nimbus-bench';
/** Objects put at once while loading (Swift's one proxy worker is the limit, not this). */
const LOAD_CONCURRENCY = 32;
/** Rows per INSERT while loading. */
const ROW_BATCH = 5000;
/**
 * At most this many of `big`'s files go into the cluster (BENCH_CLUSTER_FILES): Swift takes
 * ~50 objects/s here, so 100,000 would take over half an hour. The big folder is always
 * loaded whole (the listing row pages through it); other folders follow until the cap.
 */
const MAX_FILES = Number(process.env.BENCH_CLUSTER_FILES ?? 12_000);

interface Target {
  url: string;
  key: string;
}

/** Every row this scenario produces, in order (titles for "not measured" too). */
const TITLES = {
  load: 'Cluster dataset load (PostgreSQL rows + Swift objects)',
  user: 'GET /api/user: PostgreSQL + S3 vs embedded',
  files: 'GET /api/files/?limit=100: PostgreSQL + S3 vs embedded',
  upload: 'Upload of the big file: PostgreSQL + S3 vs embedded',
  role: 'Concurrent POST /api/user/role: PostgreSQL + S3 vs embedded',
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
    const { row: loadRow, files: loaded } = await loadDataset(b, engines);
    const a = await start('a');
    const second = await start('b');
    const rows: Row[] = [loadRow];
    const attempt = async (title: string, run: () => Promise<Row>) => {
      b.log(`  ${title}…`);
      try {
        rows.push(await run());
      } catch (err) {
        b.log(`  failed: ${(err as Error).stack ?? String(err)}`);
        rows.push(notMeasured(title, '—', `the scenario failed: ${(err as Error).message.slice(0, 300)}`));
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
        `GET /api/files/?limit=100, folder of ${b.ds.spec.bigFolderFiles.toLocaleString('en-US')} files (user with ${loaded.toLocaleString('en-US')} files; embedded ${b.ds.spec.files.toLocaleString('en-US')})`,
      ),
    );
    await attempt(TITLES.upload, () => uploadRow(b, a, engines));
    await attempt(TITLES.role, () => roleRow(b, a, engines.databaseUrl));
    await attempt(TITLES.nginx, () => nginxRow(b, a, second, userRoute, nginxPort));
    return rows;
  } finally {
    for (const d of daemons) await d.child.stop();
    engines.close();
  }
}

/** `nimbus daemon` on the engines, with the embedded daemon's API key and its own data directory (logs, temp files). */
async function startClusterDaemon(b: Bench, engines: BenchEngines, name: string, nginxPort: number): Promise<NimbusProcess> {
  const dataDir = path.join(b.root, `cluster-${name}`);
  mkdirSync(dataDir, { recursive: true });
  const spawnedAt = performance.now();
  const { child, match } = await startChild(
    process.execPath,
    [...DAEMON_COMMAND, 'daemon', '--port', '0', '--data-dir', dataDir],
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
        NIMBUS_S3_BUCKET: BUCKET,
        NIMBUS_S3_ACCESS_KEY_ID: engines.s3.accessKeyId,
        NIMBUS_S3_SECRET_ACCESS_KEY: engines.s3.secretAccessKey,
      },
    },
    120_000,
  );
  return { child, pid: child.pid, url: match[1], key: b.nimbus.key, listeningMs: performance.now() - spawnedAt, spawnedAt };
}

/**
 * The embedded dataset's users and roles (from its db.json) and `big`'s folders and files
 * (from its storage folder, each file's own bytes) into PostgreSQL and the bucket.
 */
async function loadDataset(b: Bench, engines: BenchEngines): Promise<{ row: Row; files: number }> {
  const db = JSON.parse(readFileSync(path.join(b.ds.dataDir, 'db.json'), 'utf8')) as DbData;
  const bigDir = path.join(b.ds.storageDir, BIG_USER);
  const now = Date.now();
  const folders: StoredFolder[] = [];
  const files: { row: StoredFile; file: string }[] = [];
  const folderNames = readdirSync(bigDir).sort();
  for (const name of [b.ds.bigFolder, ...folderNames.filter((n) => n !== b.ds.bigFolder)]) {
    if (files.length >= MAX_FILES && name !== b.ds.bigFolder) break;
    const folder: StoredFolder = { id: randomBytes(16).toString('hex'), username: BIG_USER, name, mtimeMs: now, trashId: null };
    folders.push(folder);
    for (const fileName of readdirSync(path.join(bigDir, name))) {
      const row: StoredFile = {
        id: randomBytes(16).toString('hex'),
        username: BIG_USER,
        folderId: folder.id,
        name: fileName,
        size: 0,
        mtimeMs: now,
        contentType: mime.lookup(fileName) || 'application/octet-stream',
        etag: '',
        trashId: null,
      };
      files.push({ row, file: path.join(bigDir, name, fileName) });
    }
  }

  // Objects first, as an upload does: a row never names missing bytes.
  const objects = new S3ObjectStore({
    endpoint: engines.s3.endpoint,
    region: engines.s3.region,
    accessKeyId: engines.s3.accessKeyId,
    secretAccessKey: engines.s3.secretAccessKey,
    forcePathStyle: true,
    bucket: BUCKET,
  });
  let t = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const { row, file } = files[next++];
      const bytes = await readFile(file);
      const stored = await objects.put(objectKey(row.id), Readable.from([bytes]), { contentType: row.contentType });
      row.size = stored.size;
      row.etag = stored.etag;
    }
  };
  await Promise.all(Array.from({ length: LOAD_CONCURRENCY }, worker));
  objects.close();
  const objectsMs = performance.now() - t;

  t = performance.now();
  const client = new pg.Client({ connectionString: engines.databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    const insert = async (table: string, rows: { key: string; data: unknown }[]) => {
      for (let i = 0; i < rows.length; i += ROW_BATCH) {
        await client.query(
          `INSERT INTO "${table}" (key, data) SELECT r.key, r.data FROM jsonb_to_recordset($1::jsonb) AS r(key text, data jsonb)`,
          [JSON.stringify(rows.slice(i, i + ROW_BATCH))],
        );
      }
    };
    const builtIn = new Set((await client.query<{ key: string }>('SELECT key FROM roles')).rows.map((r) => r.key));
    await insert(
      'roles',
      db.roles.filter((r) => !builtIn.has(r.name)).map((r) => ({ key: r.name, data: r })),
    );
    await insert(
      'users',
      db.users.map((u) => ({ key: u.username, data: u })),
    );
    await insert(
      'folders',
      folders.map((f) => ({ key: f.id, data: f })),
    );
    await insert(
      'files',
      files.map(({ row }) => ({ key: row.id, data: row })),
    );
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
  const rowsMs = performance.now() - t;
  const perSecond = files.length / (objectsMs / 1000);
  b.log(
    `  loaded ${files.length} objects in ${fmt.ms(objectsMs)} (${perSecond.toFixed(0)}/s), ${db.users.length} users + rows in ${fmt.ms(rowsMs)}`,
  );
  const row: Row = {
    scenario: TITLES.load,
    nimbus: `${fmt.ms(objectsMs + rowsMs)}`,
    baseline: '—',
    ratio: '—',
    target: '—',
    verdict: 'info',
    detail:
      `written directly (not through the API): ${files.length.toLocaleString('en-US')} objects (\`big\`'s files, each with its embedded bytes, ` +
      `${LOAD_CONCURRENCY} PutObjects in flight) in ${fmt.ms(objectsMs)} — ${perSecond.toFixed(0)} objects/s; then ` +
      `${db.users.length.toLocaleString('en-US')} users, ${folders.length.toLocaleString('en-US')} folders and the file rows in one transaction in ${fmt.ms(rowsMs)}. ` +
      `${folders.length < folderNames.length ? `Of \`big\`'s ${folderNames.length.toLocaleString('en-US')} folders, the first ${folders.length.toLocaleString('en-US')} (the big folder whole; at most ${MAX_FILES.toLocaleString('en-US')} files, BENCH_CLUSTER_FILES). ` : ''}` +
      `Not loaded: the media user's big file and the other users' (empty) folders.`,
  };
  return { row, files: files.length };
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
  return {
    scenario: `${what}, PostgreSQL + S3`,
    nimbus: `${fmt.rps(rps)}, p99 ${fmt.ms(median(cluster.map((x) => x.p99)))}`,
    baseline: `${fmt.rps(base)}, p99 ${fmt.ms(median(embedded.map((x) => x.p99)))} (embedded)`,
    ratio: `${fmt.ratio(ratio)} req/s`,
    target: '≥ 0.9 × embedded',
    verdict: verdict(ratio >= 0.9),
    detail:
      `\`GET ${route}\`, ${CONNECTIONS} connections, ${LOADGEN}, ${b.seconds} s per run, alternating; both daemons answer from their in-memory Maps. ` +
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

/** curl -T of the big file to `/api/files/upload`, with the daemon's peak RSS growth; the file is deleted after. */
async function uploadOnce(b: Bench, d: { url: string; pid: number }, name: string): Promise<{ bytesPerSec: number; growth: number }> {
  const before = rssOf(d.pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(d.pid))), 20);
  let out;
  try {
    out = await exec(
      'curl',
      [
        '-s',
        '-S',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code} %{size_upload} %{time_total}',
        '-X',
        'POST',
        '-T',
        b.ds.bigFilePath,
        '-H',
        'Expect:',
        '-H',
        'Content-Type: application/octet-stream',
        '-H',
        `API-Key: ${b.nimbus.key}`,
        `${d.url}/api/files/upload?username=${UPLOAD_USER}&file=${name}`,
      ],
      { maxBuffer: 1 << 20 },
    );
  } finally {
    clearInterval(sampler);
  }
  const [status, bytes, seconds] = out.stdout.trim().split(/\s+/).map(Number);
  if (status !== 201) throw new Error(`upload to ${d.url} answered ${status}`);
  await api({ url: d.url, key: b.nimbus.key }, 'POST', '/api/files/delete', { username: UPLOAD_USER, file: name }, 200);
  return { bytesPerSec: bytes / seconds, growth: peak - before };
}

/**
 * The bytes without Nimbus, from a process of their own: the same SDK calls the daemon makes
 * (lib-storage's Upload, 8 MiB parts, 4 in flight, the client settings Swift needs) put the
 * file straight into the bucket, timed around the upload alone; the object is deleted after.
 */
const SDK_PUT = `
const [endpoint, region, accessKeyId, secretAccessKey, bucket, key, file] = process.argv.slice(1);
const { S3Client, DeleteObjectCommand } = await import('@aws-sdk/client-s3');
const { Upload } = await import('@aws-sdk/lib-storage');
const { createReadStream, statSync } = await import('node:fs');
const client = new S3Client({ endpoint, region, forcePathStyle: true, credentials: { accessKeyId, secretAccessKey },
  requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });
const t0 = performance.now();
await new Upload({ client, params: { Bucket: bucket, Key: key, Body: createReadStream(file) }, partSize: 8 * 2 ** 20, queueSize: 4 }).done();
const seconds = (performance.now() - t0) / 1000;
await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
console.log('PUT ' + statSync(file).size / seconds);
`;

/** Bytes/s of SDK_PUT, or null (logged) when it fails: the row then has no Swift-alone baseline. */
async function sdkPut(b: Bench, engines: BenchEngines, name: string): Promise<number | null> {
  const { s3 } = engines;
  try {
    const args = [s3.endpoint, s3.region, s3.accessKeyId, s3.secretAccessKey, BUCKET, `bench-baseline/${name}`, b.ds.bigFilePath];
    const out = await exec(process.execPath, ['--input-type=module', '-e', SDK_PUT, ...args], { cwd: ROOT, maxBuffer: 1 << 20 });
    const speed = Number(/PUT (\S+)/.exec(out.stdout)?.[1]);
    return Number.isFinite(speed) ? speed : null;
  } catch (err) {
    b.log(`  the SDK's PUT failed (${(err as Error).message.slice(0, 300)}): no Swift-alone baseline`);
    return null;
  }
}

async function uploadRow(b: Bench, a: NimbusProcess, engines: BenchEngines): Promise<Row> {
  const direct: number[] = [];
  const cluster: { bytesPerSec: number; growth: number }[] = [];
  const embedded: { bytesPerSec: number; growth: number }[] = [];
  // One upload each first, not counted: the first one loads the S3 client's modules and grows the heap once.
  await uploadOnce(b, b.nimbus, 'cluster-bench-warm-up.bin');
  await uploadOnce(b, a, 'cluster-bench-warm-up.bin');
  for (let round = 0; round < b.rounds; round++) {
    embedded.push(await uploadOnce(b, b.nimbus, `cluster-bench-${round}.bin`));
    cluster.push(await uploadOnce(b, a, `cluster-bench-${round}.bin`));
    const put = await sdkPut(b, engines, `round-${round}.bin`);
    if (put !== null) direct.push(put);
    b.log(
      `  upload round ${round + 1}: embedded ${fmt.mibps(embedded.at(-1)!.bytesPerSec)} | cluster ${fmt.mibps(cluster.at(-1)!.bytesPerSec)} (+${fmt.mib(cluster.at(-1)!.growth)} RSS) | SDK alone ${put === null ? '—' : fmt.mibps(put)}`,
    );
  }
  const speed = median(cluster.map((x) => x.bytesPerSec));
  const base = median(embedded.map((x) => x.bytesPerSec));
  const maxGrowth = Math.max(...cluster.map((x) => x.growth));
  return {
    scenario: `Upload of a ${fmt.mib(b.ds.spec.bigFileBytes)} file, PostgreSQL + S3 (Swift)`,
    nimbus: `${fmt.mibps(speed)}, RSS +${fmt.mib(median(cluster.map((x) => x.growth)))}`,
    baseline: `${fmt.mibps(base)} (embedded, fsync'ed)`,
    ratio: fmt.ratio(speed / base),
    target: '≥ 0.5 × embedded, RSS growth < 64 MiB',
    verdict: verdict(speed / base >= 0.5 && maxGrowth < 64 * 2 ** 20),
    detail:
      `curl -T (Content-Length) into POST /api/files/upload, alternating embedded and cluster; the cluster daemon streams a multipart upload ` +
      `(8 MiB parts, 4 in flight) to a single-node Swift on the same machine, then commits the row. Cluster ${fmt.list(
        cluster.map((x) => x.bytesPerSec),
        fmt.mibps,
      )} (peak RSS growth ${fmt.list(
        cluster.map((x) => x.growth),
        fmt.mib,
      )}); embedded ${fmt.list(
        embedded.map((x) => x.bytesPerSec),
        fmt.mibps,
      )}. ` +
      (direct.length
        ? `The bytes without Nimbus, the same SDK upload (8 MiB parts, 4 in flight) from a process of its own, timed around the upload: ${fmt.list(direct, fmt.mibps)}; cluster ÷ that: ${fmt.ratio(speed / median(direct))}.`
        : 'No Swift-alone baseline (the SDK upload from its own process failed; see the log).'),
  };
}

async function roleRow(b: Bench, a: NimbusProcess, databaseUrl: string): Promise<Row> {
  const users = b.ds.roleUsers;
  const roles = (d: Target, role: string) =>
    concurrently({ url: d.url, key: b.nimbus.key }, users, 'POST', (u) => `/api/user/role?username=${u}&name=${role}`, 201);
  const reads = (d: Target) => concurrently({ url: d.url, key: b.nimbus.key }, users, 'GET', (u) => `/api/user?username=${u}`, 200);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // Warm-up: JIT, the pools' connections.
    for (const d of [b.nimbus, a]) {
      await reads(d);
      await roles(d, 'admin');
    }
    const cluster: { wallMs: number; latencies: number[] }[] = [];
    const embedded: number[] = [];
    const control: number[] = [];
    for (let round = 0; round < b.rounds; round++) {
      const role = round % 2 === 0 ? 'user' : 'admin';
      embedded.push((await roles(b.nimbus, role)).wallMs);
      cluster.push(await roles(a, role));
      // Acknowledged means committed in PostgreSQL (read by another connection).
      const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM users WHERE key = ANY($1::text[]) AND role = $2`, [
        users,
        role,
      ]);
      if (Number(rows[0].n) !== users.length)
        throw new Error(`only ${rows[0].n} of ${users.length} acknowledged role changes are in PostgreSQL`);
      control.push((await reads(a)).wallMs);
      b.log(
        `  role round ${round + 1}: embedded ${fmt.ms(embedded.at(-1)!)} | cluster ${fmt.ms(cluster.at(-1)!.wallMs)} (p99 ${fmt.ms(percentile(cluster.at(-1)!.latencies, 99))}) | cluster reads ${fmt.ms(control.at(-1)!)}`,
      );
    }
    const wall = median(cluster.map((x) => x.wallMs));
    const base = median(embedded);
    const n = users.length.toLocaleString('en-US');
    return {
      scenario: `${n} concurrent POST /api/user/role, durable, PostgreSQL + S3`,
      nimbus: `${fmt.ms(wall)} for all, p99 ${fmt.ms(median(cluster.map((x) => percentile(x.latencies, 99))))}`,
      baseline: `${fmt.ms(base)} (embedded, db.json fsync'ed)`,
      ratio: `${fmt.ratio(base / wall)} of embedded speed`,
      target: '≥ 0.5 × embedded',
      verdict: verdict(base / wall >= 0.5),
      detail:
        `each request on its own connection, all at once, alternating embedded and cluster; PostgreSQL with its default durability ` +
        `(fsync, synchronous_commit on); every acknowledged change checked in PostgreSQL afterwards. Cluster ${fmt.list(
          cluster.map((x) => x.wallMs),
          fmt.ms,
        )}; embedded ${fmt.list(embedded, fmt.ms)}; control on the cluster daemon, ${n} concurrent GET /api/user: ${fmt.list(control, fmt.ms)}.`,
    };
  } finally {
    await client.end();
  }
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
