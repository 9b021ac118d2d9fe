/**
 * The 1 GiB rows of the cluster backend (issue 15), each against the embedded daemon in the
 * same run, alternating, and against the object store alone: upload (curl -T into the API;
 * the daemon streams a multipart upload to Swift, then commits the row) with the daemon's
 * RSS growth, and download (curl of the big file; the daemon streams the object from Swift).
 * The target is the object store's own speed, not the embedded daemon's: a cluster daemon
 * moves every byte through Swift's proxy on this same machine, and can go no faster than it.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Bench } from './context.js';
import { CLUSTER_BUCKET } from './cluster-dataset.js';
import { BIG_FILE, MEDIA_USER, UPLOAD_USER } from './dataset.js';
import type { BenchEngines } from './engines.js';
import { rssOf } from './machine.js';
import { api, ROOT, type NimbusProcess } from './nimbus.js';
import { fmt, verdict, type Row } from './report.js';
import { median } from './stats.js';
import { uploadArgs } from '../scenarios/transfer.js';

const exec = promisify(execFile);
/** Of the object store's own speed (the same SDK upload, or a signed GET by curl). */
const OF_STORE = 0.8;
const RSS_LIMIT = 64 * 2 ** 20;

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
        ...uploadArgs(b.ds.bigFilePath, b.nimbus.key, `${d.url}/api/files/upload?username=${UPLOAD_USER}&file=${name}`),
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
 * (lib-storage's Upload, 5 MiB parts, 3 in flight, as the daemon sends them, the client settings Swift needs) put the
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
await new Upload({ client, params: { Bucket: bucket, Key: key, Body: createReadStream(file) }, partSize: 5 * 2 ** 20, queueSize: 3 }).done();
const seconds = (performance.now() - t0) / 1000;
await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
console.log('PUT ' + statSync(file).size / seconds);
`;

/** Bytes/s of SDK_PUT, or null (logged) when it fails: the row then has no Swift-alone baseline. */
async function sdkPut(b: Bench, engines: BenchEngines, name: string): Promise<number | null> {
  const { s3 } = engines;
  try {
    const args = [s3.endpoint, s3.region, s3.accessKeyId, s3.secretAccessKey, CLUSTER_BUCKET, `bench-baseline/${name}`, b.ds.bigFilePath];
    const out = await exec(process.execPath, ['--input-type=module', '-e', SDK_PUT, ...args], { cwd: ROOT, maxBuffer: 1 << 20 });
    const speed = Number(/PUT (\S+)/.exec(out.stdout)?.[1]);
    return Number.isFinite(speed) ? speed : null;
  } catch (err) {
    b.log(`  the SDK's PUT failed (${(err as Error).message.slice(0, 300)}): no Swift-alone baseline`);
    return null;
  }
}

export async function clusterUploadRow(b: Bench, a: NimbusProcess, engines: BenchEngines): Promise<Row> {
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
  const store = direct.length ? median(direct) : null;
  const maxGrowth = Math.max(...cluster.map((x) => x.growth));
  return {
    scenario: `Upload of a ${fmt.mib(b.ds.spec.bigFileBytes)} file, PostgreSQL + S3 (Swift)`,
    nimbus: `${fmt.mibps(speed)}, RSS +${fmt.mib(median(cluster.map((x) => x.growth)))}`,
    baseline: `${fmt.mibps(base)} (embedded, fsync'ed); ${store === null ? 'no SDK-alone run' : `${fmt.mibps(store)} (SDK alone)`}`,
    ratio: `${fmt.ratio(speed / base)} embedded; ${store === null ? '—' : `${fmt.ratio(speed / store)} SDK alone`}`,
    target: `≥ ${OF_STORE} × the SDK alone, RSS growth < 64 MiB`,
    verdict: store === null ? 'not measured' : verdict(speed / store >= OF_STORE && maxGrowth < RSS_LIMIT),
    detail:
      `curl -T (Content-Length) into POST /api/files/upload, alternating embedded and cluster; the cluster daemon streams a multipart upload ` +
      `(5 MiB parts, 3 in flight, as the daemon sends them) to a single-node Swift on the same machine, then commits the row (a 201 only after COMMIT). Cluster ${fmt.list(
        cluster.map((x) => x.bytesPerSec),
        fmt.mibps,
      )} (peak RSS growth ${fmt.list(
        cluster.map((x) => x.growth),
        fmt.mib,
      )}); embedded ${fmt.list(
        embedded.map((x) => x.bytesPerSec),
        fmt.mibps,
      )}. ` +
      (store !== null
        ? `The bytes without Nimbus, the same SDK upload (5 MiB parts, 3 in flight, as the daemon sends them) from a process of its own, timed around the upload: ${fmt.list(direct, fmt.mibps)}. `
        : 'No Swift-alone baseline (the SDK upload from its own process failed; see the log). ') +
      `Target against the SDK alone, not the embedded daemon: every byte goes through Swift's proxy on this machine, which no cluster daemon can outrun.`,
  };
}

/** curl of a URL into /dev/null: bytes/s, after checking the status and the length. */
async function fetchOnce(url: string, bytes: number, extra: string[]): Promise<number> {
  const out = await exec('curl', ['-s', '-S', '-o', '/dev/null', '-w', '%{http_code} %{size_download} %{time_total}', ...extra, url], {
    maxBuffer: 1 << 20,
  });
  const [status, size, seconds] = out.stdout.trim().split(/\s+/).map(Number);
  if (status !== 200 || size !== bytes) throw new Error(`GET ${url} answered ${status} with ${size} of ${bytes} bytes`);
  return size / seconds;
}

/**
 * The bytes without Nimbus: the SDK's GetObject (the call the daemon makes) from a process of
 * its own, the body read to its end and dropped, timed from the request to the last byte.
 * (curl's --aws-sigv4 gets a 400 from Swift's S3 layer here.)
 */
const SDK_GET = `
const [endpoint, region, accessKeyId, secretAccessKey, bucket, key] = process.argv.slice(1);
const { S3Client, GetObjectCommand } = await import('@aws-sdk/client-s3');
const client = new S3Client({ endpoint, region, forcePathStyle: true, credentials: { accessKeyId, secretAccessKey },
  requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });
const t0 = performance.now();
const reply = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
let bytes = 0;
for await (const chunk of reply.Body) bytes += chunk.length;
console.log('GET ' + bytes + ' ' + bytes / ((performance.now() - t0) / 1000));
`;

/** Bytes/s of SDK_GET, or null (logged) when it fails or reads short. */
async function sdkGet(b: Bench, engines: BenchEngines, key: string): Promise<number | null> {
  const { s3 } = engines;
  try {
    const args = [s3.endpoint, s3.region, s3.accessKeyId, s3.secretAccessKey, CLUSTER_BUCKET, key];
    const out = await exec(process.execPath, ['--input-type=module', '-e', SDK_GET, ...args], { cwd: ROOT, maxBuffer: 1 << 20 });
    const [, bytes, speed] = /GET (\d+) (\S+)/.exec(out.stdout) ?? [];
    if (Number(bytes) !== b.ds.spec.bigFileBytes) throw new Error(`read ${bytes} of ${b.ds.spec.bigFileBytes} bytes`);
    return Number(speed);
  } catch (err) {
    b.log(`  the SDK's GET failed (${(err as Error).message.slice(0, 300)}): no Swift-alone baseline`);
    return null;
  }
}

/**
 * The big file downloaded from the embedded daemon, from cluster daemon `a` (which streams
 * the object from Swift) and from Swift itself (the SDK's GetObject from a process of its own, no Nimbus), in
 * alternating rounds.
 */
export async function clusterDownloadRow(b: Bench, a: NimbusProcess, engines: BenchEngines, objectKey: string): Promise<Row> {
  const bytes = b.ds.spec.bigFileBytes;
  const route = `/api/files/download?username=${MEDIA_USER}&file=${BIG_FILE}`;
  const auth = ['-H', `API-Key: ${b.nimbus.key}`];
  const fetchStore = () => sdkGet(b, engines, objectKey);
  // Warm-up, not counted: the page cache (embedded), Swift's object server and the S3 client's first connections.
  await fetchOnce(`${b.nimbus.url}${route}`, bytes, auth);
  await fetchOnce(`${a.url}${route}`, bytes, auth);
  await fetchStore();
  const embedded: number[] = [];
  const cluster: number[] = [];
  const direct: number[] = [];
  const growth: number[] = [];
  for (let round = 0; round < b.rounds; round++) {
    embedded.push(await fetchOnce(`${b.nimbus.url}${route}`, bytes, auth));
    const before = rssOf(a.pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(a.pid))), 20);
    try {
      cluster.push(await fetchOnce(`${a.url}${route}`, bytes, auth));
    } finally {
      clearInterval(sampler);
    }
    growth.push(peak - before);
    const own = await fetchStore();
    if (own !== null) direct.push(own);
    b.log(
      `  download round ${round + 1}: embedded ${fmt.mibps(embedded.at(-1)!)} | cluster ${fmt.mibps(cluster.at(-1)!)} (+${fmt.mib(growth.at(-1)!)} RSS) | Swift alone ${own === null ? '—' : fmt.mibps(own)}`,
    );
  }
  const speed = median(cluster);
  const base = median(embedded);
  const store = direct.length ? median(direct) : null;
  return {
    scenario: `Download of a ${fmt.mib(bytes)} file, PostgreSQL + S3 (Swift)`,
    nimbus: `${fmt.mibps(speed)}, RSS +${fmt.mib(median(growth))}`,
    baseline: `${fmt.mibps(base)} (embedded); ${store === null ? 'no Swift-alone run' : `${fmt.mibps(store)} (Swift alone)`}`,
    ratio: `${fmt.ratio(speed / base)} embedded; ${store === null ? '—' : `${fmt.ratio(speed / store)} Swift alone`}`,
    target: `≥ ${OF_STORE} × Swift alone`,
    verdict: store === null ? 'not measured' : verdict(speed / store >= OF_STORE),
    detail:
      `curl to /dev/null over loopback, alternating; the cluster daemon streams the object (one GetObject) from a single-node Swift on this machine. ` +
      `Cluster ${fmt.list(cluster, fmt.mibps)} (peak RSS growth ${fmt.list(growth, fmt.mib)}); embedded ${fmt.list(embedded, fmt.mibps)}; ` +
      `Swift alone (the SDK's GetObject of the same object from a process of its own, no Nimbus) ${store === null ? 'failed (see the log)' : fmt.list(direct, fmt.mibps)}. ` +
      `Target against Swift alone, not the embedded daemon: every byte comes through Swift's proxy, which no cluster daemon can outrun.`,
  };
}
