/**
 * Small files on PostgreSQL + S3 (issue 30's last goal), `BENCH_ONLY=small-cluster`: a cluster
 * daemon beside a bare node:http server making the same promises on the same engines (an upload
 * is one PutObject, then the row and its NOTIFY in one statement, then 201; a rename one UPDATE;
 * a download one GetObject: bench/baselines/bare-cluster-files.ts), servers in
 * bench/lib/small-cluster-servers.ts, the series and rows' shape of small-files.ts:
 * - upload of 2,000 files of 4 KiB, then of 64 KiB, into a fresh folder (files/s), each followed
 *   by the download of those files, the 4 KiB ones also renamed (16 connections, Node's fetch);
 * - the listing of the 4 KiB folder just filled (2,000 files at full scale), before its renames,
 *   one request at a time (the round's p50): the daemon answers from its Maps, the bare server
 *   from one SELECT.
 * A warm-up round of 200 files per series that does not count (Swift takes 37–80 PutObjects/s
 * here: a full one would add minutes), then alternating rounds with the servers' order rotating;
 * medians over rounds; beside each rate the server process's CPU per operation (not PostgreSQL's
 * or Swift's: both servers share those). Every status is checked. The engines are throwaway
 * processes (bench/lib/engines.ts); when they cannot start, every row says "not measured" and why.
 */
import { randomBytes } from 'node:crypto';
import type { Bench } from '../lib/context.js';
import { UPLOAD_USER } from '../lib/dataset.js';
import { startBenchEngines, type BenchEngines } from '../lib/engines.js';
import type { NimbusProcess } from '../lib/nimbus.js';
import { fmt, notMeasured, verdict, type Row } from '../lib/report.js';
import { startClusterSmallServers, type ClusterSmallServer } from '../lib/small-cluster-servers.js';
import type { ServerName } from '../lib/small-servers.js';
import { median, percentile } from '../lib/stats.js';
import { startClusterDaemon } from './cluster.js';
import {
  CONNECTIONS,
  emptySamples,
  fileCount,
  LABEL,
  LISTINGS,
  perSec,
  SERIES,
  series,
  TARGET,
  us,
  type Samples,
  type Series,
} from './small-files.js';

const WARM_UP_FILES = 200;
const listingTitle = (count: string) => `API listing of a ${count}-file folder, PostgreSQL + S3 (p50)`;
const titleOf = (k: Series, count: string) =>
  k === 'rename' ? `API rename of ${count} 4 KiB files, PostgreSQL + S3` : `API ${LABEL[k]} × ${count} files, PostgreSQL + S3`;

/** One round on one server: per size, upload, (the listing,) download (and rename) in a fresh folder. */
async function roundOn(s: ClusterSmallServer, tag: string, count: number, out: Samples): Promise<void> {
  for (const [size, kind] of [
    [4096, '4k'],
    [65_536, '64k'],
  ] as const) {
    const dir = `small-${tag}-${kind}`;
    await s.createFolder(dir);
    const body = new Uint8Array(randomBytes(size));
    await series(s, `upload${kind}`, out, count, (i) => s.upload(dir, `f-${i}.bin`, body));
    if (kind === '4k') {
      const times: number[] = [];
      for (let i = 0; i < LISTINGS; i++) {
        const t0 = performance.now();
        const listed = await s.listFolder(UPLOAD_USER, dir);
        times.push(performance.now() - t0);
        if (listed !== count) throw new Error(`${s.name} listed ${listed} files, not ${count}`);
      }
      out.listingMs.push(percentile(times, 50));
    }
    await series(s, `download${kind}`, out, count, (i) => s.download(dir, `f-${i}.bin`, size));
    if (kind === '4k') await series(s, 'rename', out, count, (i) => s.rename(dir, `f-${i}.bin`, `r-${i}.bin`));
    await s.clean(dir);
  }
}

export async function smallClusterRows(b: Bench): Promise<Row[]> {
  const count = fileCount(b);
  let engines: BenchEngines;
  try {
    engines = await startBenchEngines();
  } catch (err) {
    const reason = `the engines did not start (${(err as Error).message.split('\n')[0].slice(0, 200)})`;
    b.log(`  ${reason}`);
    const files = count.toLocaleString('en-US');
    const titles = [listingTitle(files), ...SERIES.map((k) => titleOf(k, files))];
    return titles.map((title) => notMeasured(title, '—', reason));
  }
  let daemon: NimbusProcess | undefined;
  let stopBare: () => Promise<void> = async () => undefined;
  try {
    b.log(`  engines up: PostgreSQL ${fmt.ms(engines.startMs.postgres)}, Swift ${fmt.ms(engines.startMs.swift)}`);
    // Only the bench's client reaches this daemon: no balancer's Host to allow (port 0).
    daemon = await startClusterDaemon(b, engines, 'small', 0);
    const started = await startClusterSmallServers(b, engines, daemon);
    stopBare = started.stop;
    const { servers } = started;
    const samples = new Map<ServerName, Samples>(servers.map((s) => [s.name, emptySamples()]));
    const run = randomBytes(3).toString('hex');
    const warm = emptySamples();
    for (const s of servers) await roundOn(s, `${run}-w`, Math.min(count, WARM_UP_FILES), warm);
    for (let round = 0; round < b.rounds; round++) {
      const order = servers.map((_, i) => servers[(i + round) % servers.length]);
      for (const s of order) await roundOn(s, `${run}-${round}`, count, samples.get(s.name)!);
      const last = (f: (x: Samples) => string) => servers.map((s) => `${s.name} ${f(samples.get(s.name)!)}`).join(', ');
      const rateLine = (k: Series) => last((x) => `${perSec(x.perSec[k].at(-1)!)} (${us(x.cpuUs[k].at(-1)!)} CPU)`);
      b.log(
        `  small-cluster round ${round + 1} (${order.map((s) => s.name).join(' → ')}): listing p50 ${last((x) => fmt.ms(x.listingMs.at(-1)!))}`,
      );
      for (const k of SERIES) b.log(`    ${LABEL[k]}: ${rateLine(k)}`);
    }
    return rowsFrom(count, samples);
  } finally {
    await stopBare();
    await daemon?.child.stop();
    engines.close();
  }
}

const PROMISES =
  'both answer 201 once the object is in the bucket and its row (with a NOTIFY) committed in PostgreSQL; a rename is one row UPDATE, a download one GetObject';

function rowsFrom(count: number, samples: Map<ServerName, Samples>): Row[] {
  const of = (name: ServerName) => samples.get(name)!;
  const files = count.toLocaleString('en-US');
  const perRound = (values: (x: Samples) => number[], f: (v: number) => string) =>
    [...samples.keys()].map((name) => `${name} ${fmt.list(values(of(name)), f)} (median ${f(median(values(of(name))))})`).join('; ');
  const listing = (name: ServerName) => median(of(name).listingMs);
  const rows: Row[] = [
    {
      scenario: listingTitle(files),
      nimbus: fmt.ms(listing('Nimbus')),
      baseline: `${fmt.ms(listing('bare'))} (bare node:http, one SELECT)`,
      ratio: fmt.ratio(listing('bare') / listing('Nimbus')),
      target: '—',
      verdict: 'info',
      detail:
        `\`GET /api/folders/files\` of the 4 KiB folder just uploaded (before its renames), ${LISTINGS} requests one at a time per server and round; ` +
        `the daemon answers from its in-memory Maps, the bare server with one SELECT of the folder's rows. Ratio = bare time ÷ Nimbus time. ` +
        `Per-round p50: ${perRound((x) => x.listingMs, fmt.ms)}.`,
    },
  ];
  for (const k of SERIES) {
    const m = (name: ServerName) => median(of(name).perSec[k]);
    const cpu = (name: ServerName) => median(of(name).cpuUs[k]);
    const ratio = m('Nimbus') / m('bare');
    rows.push({
      scenario: titleOf(k, files),
      nimbus: `${perSec(m('Nimbus'))}, ${us(cpu('Nimbus'))} CPU each`,
      baseline: `${perSec(m('bare'))}, ${us(cpu('bare'))} CPU each (bare node:http, same promises on the same engines)`,
      ratio: fmt.ratio(ratio),
      target: `≥ ${TARGET[k]} × the bare server`,
      verdict: verdict(ratio >= TARGET[k]),
      detail:
        `${CONNECTIONS} keep-alive connections (Node's fetch), a fresh folder per round; ${PROMISES}. ` +
        `Server CPU per operation from /proc/<pid>/stat (the server process alone, not PostgreSQL or Swift), from the series' start until it is quiet again. ` +
        `Per round: ${perRound((x) => x.perSec[k], perSec)}. CPU: ${perRound((x) => x.cpuUs[k], us)}.`,
    });
  }
  return rows;
}
