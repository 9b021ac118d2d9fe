/**
 * Small files through the API (issue 30), `BENCH_ONLY=small`: Nimbus beside a bare node:http
 * server at the API's own paths that makes Nimbus's fsyncs (bench/baselines/bare-files.ts) and
 * nginx's WebDAV module (no fsync), servers in bench/lib/small-servers.ts. A warm-up round that
 * does not count, then alternating rounds with the servers' order rotating; medians over rounds:
 * - upload of 2,000 files of 4 KiB, then of 64 KiB, into a fresh folder (files/s), each followed
 *   by the download of those files (files/s), the 4 KiB ones also renamed in their folder
 *   (renames/s): 16 keep-alive connections through Node's fetch (undici), as in dav.ts;
 * - the listing of the dataset's 10,000-file folder, one request at a time (the round's p50):
 *   `GET /api/folders/files`, the bare server's readdir + stat, nginx's PROPFIND Depth 1.
 * Each series runs on the servers in turns of 250 jobs (bench/lib/interleaved.ts), each turn
 * after a `sync`, and the folders are deleted only after the last round (the disk as quiet for
 * every server: bench/lib/quiet-disk.ts).
 * Beside each series' rate, the server's CPU time per operation (/proc/<pid>/stat) from the
 * series' start until the server is quiet again, so work set off in the background counts.
 * Every answer's status is checked (and each download's length, each listing's count). Then the
 * large-file rows on the same servers (big-files.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Bench } from '../lib/context.js';
import { deleting, settle, untilDeletionsAged } from '../lib/quiet-disk.js';
import { cpuMsOf, waitUntilQuiet } from '../lib/machine.js';
import { fmt, verdict, type Row } from '../lib/report.js';
import { startSmallFileServers, type ServerName, type SmallFileServer } from '../lib/small-servers.js';
import { jobsPerSecond, median, percentile } from '../lib/stats.js';
import { bigFileRows } from './big-files.js';
import { interleavedSeries, TURN } from '../lib/interleaved.js';

export const CONNECTIONS = 16;
/** Listings per server and round, one at a time: the round's sample is their p50. */
export const LISTINGS = 10;
/** Files per series: 2,000 at full scale (fewer with BENCH_SCALE < 1, never under 200), as dav.ts's putCount. */
export const fileCount = (b: Bench) => Math.max(200, Math.round((2000 * b.ds.spec.files) / 100_000));

export const SERIES = ['upload4k', 'upload64k', 'download4k', 'download64k', 'rename'] as const;
export type Series = (typeof SERIES)[number];

export interface Samples {
  listingMs: number[];
  perSec: Record<Series, number[]>;
  cpuUs: Record<Series, number[]>;
}

export const emptySamples = (): Samples => ({
  listingMs: [],
  perSec: Object.fromEntries(SERIES.map((k) => [k, []])) as unknown as Record<Series, number[]>,
  cpuUs: Object.fromEntries(SERIES.map((k) => [k, []])) as unknown as Record<Series, number[]>,
});

const rate = (count: number, job: (i: number) => Promise<void>) => jobsPerSecond(count, CONNECTIONS, job);

/** One series on a quiet server and disk: its rate and the server's CPU µs per job, until it is quiet again. */
export async function series(
  s: Pick<SmallFileServer, 'pid'>,
  k: Series,
  out: Samples,
  count: number,
  job: (i: number) => Promise<void>,
): Promise<void> {
  settle();
  await waitUntilQuiet(s.pid);
  const cpuBefore = cpuMsOf(s.pid);
  out.perSec[k].push(await rate(count, job));
  out.cpuUs[k].push(((await waitUntilQuiet(s.pid)) - cpuBefore) * (1000 / count));
}

/**
 * One round on every server: the listings, then per size upload, download (and rename) in a
 * fresh folder, each series in turns across the servers (bench/lib/interleaved.ts), the folders
 * noted in `made` to be removed after the last round (bench/lib/quiet-disk.ts says why).
 */
async function roundOn(
  servers: SmallFileServer[],
  tag: string,
  b: Bench,
  samplesOf: (s: SmallFileServer) => Samples,
  made: [SmallFileServer, string][],
): Promise<void> {
  const files = b.ds.spec.bigFolderFiles;
  for (const s of servers) {
    const times: number[] = [];
    for (let i = 0; i < LISTINGS; i++) {
      const t0 = performance.now();
      const listed = await s.listBigFolder();
      times.push(performance.now() - t0);
      if (listed !== files) throw new Error(`${s.name} listed ${listed} files, not ${files}`);
    }
    samplesOf(s).listingMs.push(percentile(times, 50));
  }
  const count = fileCount(b);
  const inTurns = async (k: Series, job: (s: SmallFileServer, i: number) => Promise<void>) => {
    const results = await interleavedSeries(servers, count, CONNECTIONS, job);
    for (const [n, s] of servers.entries()) {
      samplesOf(s).perSec[k].push(results[n].perSec);
      samplesOf(s).cpuUs[k].push(results[n].cpuUs);
    }
  };
  for (const [size, kind] of [
    [4096, '4k'],
    [65_536, '64k'],
  ] as const) {
    const dir = `small-${tag}-${kind}`;
    for (const s of servers) {
      await s.createFolder(dir);
      made.push([s, dir]);
    }
    const body = new Uint8Array(randomBytes(size));
    await inTurns(`upload${kind}`, (s, i) => s.upload(dir, `f-${i}.bin`, body));
    await inTurns(`download${kind}`, (s, i) => s.download(dir, `f-${i}.bin`, size));
    if (kind === '4k') await inTurns('rename', (s, i) => s.rename(dir, `f-${i}.bin`, `r-${i}.bin`));
  }
}

export const perSec = (v: number) => `${Math.round(v).toLocaleString('en-US')}/s`;
export const us = (v: number) => `${Math.round(v).toLocaleString('en-US')} µs`;

export async function smallFileRows(b: Bench): Promise<Row[]> {
  const { servers, stop } = await startSmallFileServers(b);
  const samples = new Map<ServerName, Samples>(servers.map((s) => [s.name, emptySamples()]));
  // Folder names of their own, so a run with BENCH_DATA never meets a folder an interrupted one left.
  const run = randomBytes(3).toString('hex');
  const made: [SmallFileServer, string][] = [];
  await untilDeletionsAged(b.log);
  try {
    // A warm-up round (JIT, connection pools, the listing in the page cache) that does not count.
    const warm = emptySamples();
    await roundOn(servers, `${run}-w`, b, () => warm, made);
    for (let round = 0; round < b.rounds; round++) {
      const order = servers.map((_, i) => servers[(i + round) % servers.length]);
      await roundOn(order, `${run}-${round}`, b, (s) => samples.get(s.name)!, made);
      const last = (f: (x: Samples) => string) => servers.map((s) => `${s.name} ${f(samples.get(s.name)!)}`).join(', ');
      const rateLine = (k: Series) => last((x) => `${perSec(x.perSec[k].at(-1)!)} (${us(x.cpuUs[k].at(-1)!)} CPU)`);
      b.log(
        `  small round ${round + 1} (${order.map((s) => s.name).join(' → ')}): listing p50 ${last((x) => fmt.ms(x.listingMs.at(-1)!))}`,
      );
      for (const k of SERIES) b.log(`    ${LABEL[k]}: ${rateLine(k)}`);
    }
    return [...rowsFrom(b, samples), ...(await bigFileRows(b, servers))];
  } finally {
    await deleting(async () => {
      for (const [s, dir] of made) await s.clean(dir);
      await stop();
    });
  }
}

export const LABEL: Record<Series, string> = {
  upload4k: 'upload 4 KiB',
  upload64k: 'upload 64 KiB',
  download4k: 'download 4 KiB',
  download64k: 'download 64 KiB',
  rename: 'rename',
};
/** Issue 30's goals, as a share of the bare server's rate. */
export const TARGET: Record<Series, number> = { upload4k: 1, upload64k: 1, download4k: 0.9, download64k: 0.9, rename: 0.9 };
const NO_FSYNC = 'nginx (WebDAV PUT, GET, MOVE) does not fsync; the bare server and Nimbus fsync file and directory before their 201';

function rowsFrom(b: Bench, samples: Map<ServerName, Samples>): Row[] {
  const of = (name: ServerName) => samples.get(name)!;
  const count = fileCount(b).toLocaleString('en-US');
  const perRound = (values: (x: Samples) => number[], f: (v: number) => string) =>
    [...samples.keys()].map((name) => `${name} ${fmt.list(values(of(name)), f)} (median ${f(median(values(of(name))))})`).join('; ');
  const listing = (name: ServerName) => median(of(name).listingMs);
  const listingRatio = listing('nginx') / listing('Nimbus');
  const rows: Row[] = [
    {
      scenario: `API listing of a ${b.ds.spec.bigFolderFiles.toLocaleString('en-US')}-file folder (p50)`,
      nimbus: fmt.ms(listing('Nimbus')),
      baseline: `${fmt.ms(listing('nginx'))} (nginx PROPFIND Depth 1)`,
      ratio: fmt.ratio(listingRatio),
      target: '≥ 2 × nginx (nginx time ÷ Nimbus time)',
      verdict: verdict(listingRatio >= 2),
      detail:
        `\`GET /api/folders/files\` (every entry), nginx's PROPFIND Depth 1 (resourcetype, getcontentlength, getlastmodified, getetag) and the bare server's ` +
        `readdir + a stat per file (${fmt.ms(listing('bare'))}) of the same folder on disk, ${LISTINGS} requests one at a time per server and round; per-round p50: ${perRound((x) => x.listingMs, fmt.ms)}.`,
    },
  ];
  for (const k of SERIES) {
    const m = (name: ServerName) => median(of(name).perSec[k]);
    const cpu = (name: ServerName) => median(of(name).cpuUs[k]);
    const ratio = m('Nimbus') / m('bare');
    const what = k === 'rename' ? `API rename of ${count} 4 KiB files` : `API ${LABEL[k]} × ${count} files`;
    rows.push({
      scenario: what,
      nimbus: `${perSec(m('Nimbus'))}, ${us(cpu('Nimbus'))} CPU each`,
      baseline: `${perSec(m('bare'))}, ${us(cpu('bare'))} CPU each (bare node:http with the same fsyncs)`,
      ratio: fmt.ratio(ratio),
      target: `≥ ${TARGET[k]} × the bare server`,
      verdict: verdict(ratio >= TARGET[k]),
      detail:
        `${CONNECTIONS} keep-alive connections (Node's fetch), a fresh folder per round, the servers in turns of ${TURN} (bench/lib/interleaved.ts), \`sync\` before each turn and the folders deleted after the last round (bench/lib/quiet-disk.ts); ${NO_FSYNC}. nginx ${perSec(m('nginx'))}, ${us(cpu('nginx'))} CPU each. ` +
        `Server CPU per operation from /proc/<pid>/stat, from the series' start until the server is quiet after its last turn. ` +
        `Per round: ${perRound((x) => x.perSec[k], perSec)}. CPU: ${perRound((x) => x.cpuUs[k], us)}.`,
    });
  }
  return rows;
}
