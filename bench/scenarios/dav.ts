/**
 * WebDAV (issue 26), `BENCH_ONLY=dav`: Nimbus's `/dav/` beside nginx's WebDAV module, `rclone
 * serve webdav` and a bare node:http server that makes Nimbus's fsyncs (bench/baselines/bare-dav.ts),
 * in alternating rounds (the servers' order rotates each round), medians over rounds:
 * - PROPFIND Depth 1 of the dataset's 10,000-file folder, one request at a time (p50 ms); goal:
 *   at least as fast as nginx;
 * - PUT of 2,000 small files (4 KiB, then 64 KiB) into a fresh folder, 16 keep-alive connections
 *   (Node's fetch, undici), files/s; goal: at least the bare server's;
 * - MOVE of those 4 KiB files to new names in the same folder and back, three passes, 16
 *   connections, renames/s (the round's sample the passes' median); goal: at least the bare server's.
 * nginx and rclone do not fsync what they store (the bare server and Nimbus do before their 201).
 * Each series runs on the servers in turns of 250 requests (bench/lib/interleaved.ts), each turn
 * after a `sync`, and the folders are deleted only after the last round (the disk as quiet for
 * every server: bench/lib/quiet-disk.ts).
 * Every server's output goes to a file; each answer's status is checked, and each listing's length.
 */
import { randomBytes } from 'node:crypto';
import type { Bench } from '../lib/context.js';
import { deleting, untilDeletionsAged } from '../lib/quiet-disk.js';
import { dav, expectStatus, startServers, type DavServer } from '../lib/dav-servers.js';
import { fmt, verdict, type Row } from '../lib/report.js';
import { interleavedSeries, TURN } from '../lib/interleaved.js';
import { median, percentile } from '../lib/stats.js';

const CONNECTIONS = 16;
/** MOVE passes over the 4 KiB files per server and round: the round's sample is their median. */
const MOVE_PASSES = 3;
/** PROPFIND requests per server and round, one at a time: the round's sample is their p50. */
const PROPFIND_REQUESTS = 10;
/** Files per PUT series: 2,000 at full scale (fewer with BENCH_SCALE < 1, never under 200). */
const putCount = (b: Bench) => Math.max(200, Math.round((2000 * b.ds.spec.files) / 100_000));
const PROPFIND_BODY =
  '<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/><D:getcontentlength/><D:getlastmodified/><D:getetag/></D:prop></D:propfind>';

/** Folder names of this run's own, so a run with BENCH_DATA never meets a folder an interrupted one left. */
const RUN = randomBytes(3).toString('hex');

interface Samples {
  propfindMs: number[];
  put4k: number[];
  put64k: number[];
  move: number[];
}

/**
 * One round on every server: PROPFIND samples, the two PUT series and the MOVE passes, each in
 * turns across the servers (bench/lib/interleaved.ts), in folders noted in `made` to be removed
 * after the last round (bench/lib/quiet-disk.ts says why).
 */
async function roundOn(
  servers: DavServer[],
  round: number,
  b: Bench,
  samplesOf: (s: DavServer) => Samples,
  made: [DavServer, string][],
): Promise<void> {
  const files = b.ds.spec.bigFolderFiles;
  for (const s of servers) {
    const times: number[] = [];
    for (let i = 0; i < PROPFIND_REQUESTS; i++) {
      const t0 = performance.now();
      const text = await expectStatus(
        await dav('PROPFIND', s.bigFolder, { Depth: '1', 'Content-Type': 'application/xml' }, PROPFIND_BODY),
        [207],
        `${s.name} PROPFIND`,
      );
      times.push(performance.now() - t0);
      const responses = text.match(/<([A-Za-z0-9]+:)?response[\s>]/g)?.length ?? 0;
      if (responses !== files + 1) throw new Error(`${s.name} PROPFIND listed ${responses - 1} entries, not ${files}`);
    }
    samplesOf(s).propfindMs.push(percentile(times, 50));
  }
  const count = putCount(b);
  const inTurns = (job: (s: DavServer, i: number) => Promise<void>) => interleavedSeries(servers, count, CONNECTIONS, job);
  for (const [size, key] of [
    [4096, 'put4k'],
    [65_536, 'put64k'],
  ] as const) {
    const dir = `dav-bench-${RUN}-${round}-${size}`;
    const base = (s: DavServer) => `${s.writeBase}${dir}/`;
    for (const s of servers) {
      await expectStatus(await dav('MKCOL', base(s)), [201], `${s.name} MKCOL`);
      made.push([s, dir]);
    }
    const body = new Uint8Array(size).fill(round + 1);
    const puts = await inTurns(
      async (s, i) => void (await expectStatus(await dav('PUT', `${base(s)}f-${i}.bin`, {}, body), [201, 204], `${s.name} PUT`)),
    );
    for (const [n, s] of servers.entries()) samplesOf(s)[key].push(puts[n].perSec);
    if (size !== 4096) continue;
    // Back and forth (f → r → f → r), the median pass: one pass of ~0.3 s right after the PUTs
    // swung by ±30 % from round to round.
    const passes: number[][] = servers.map(() => []);
    for (let pass = 0; pass < MOVE_PASSES; pass++) {
      const [from, to] = pass % 2 === 0 ? ['f', 'r'] : ['r', 'f'];
      const moved = await inTurns(async (s, i) => {
        const headers = { Destination: `${base(s)}${to}-${i}.bin`, Overwrite: 'F' };
        await expectStatus(await dav('MOVE', `${base(s)}${from}-${i}.bin`, headers), [201, 204], `${s.name} MOVE`);
      });
      for (const n of servers.keys()) passes[n].push(moved[n].perSec);
    }
    for (const [n, s] of servers.entries()) samplesOf(s).move.push(median(passes[n]));
  }
}

export async function davRows(b: Bench): Promise<Row[]> {
  const servers = await startServers(b);
  const samples = new Map(servers.map((s) => [s.name, { propfindMs: [], put4k: [], put64k: [], move: [] } as Samples]));
  const made: [DavServer, string][] = [];
  await untilDeletionsAged(b.log);
  try {
    // A warm-up round (JIT, connection pools, the listing in the page cache) that does not count.
    const warm: Samples = { propfindMs: [], put4k: [], put64k: [], move: [] };
    await roundOn(servers, -1, b, () => warm, made);
    for (let round = 0; round < b.rounds; round++) {
      const order = servers.map((_, i) => servers[(i + round) % servers.length]);
      await roundOn(order, round, b, (s) => samples.get(s.name)!, made);
      const line = (k: keyof Samples, f: (v: number) => string) =>
        servers.map((s) => `${s.name} ${f(samples.get(s.name)![k].at(-1)!)}`).join(', ');
      b.log(`  dav round ${round + 1}: PROPFIND p50 ${line('propfindMs', fmt.ms)}`);
      b.log(`    PUT 4 KiB ${line('put4k', perSec)}; PUT 64 KiB ${line('put64k', perSec)}; MOVE ${line('move', perSec)}`);
    }
  } finally {
    await deleting(async () => {
      for (const [s, dir] of made) await s.clean(dir).catch(() => undefined);
      for (const s of servers) await s.stop();
    });
  }
  return rowsFrom(b, samples);
}

const perSec = (v: number) => `${Math.round(v).toLocaleString('en-US')}/s`;
const NO_FSYNC = 'nginx and rclone serve do not fsync; the bare server and Nimbus fsync file and directory before their 201';

function rowsFrom(b: Bench, samples: Map<DavServer['name'], Samples>): Row[] {
  const m = (name: DavServer['name'], k: keyof Samples) => median(samples.get(name)![k]);
  const all = (k: keyof Samples, f: (v: number) => string) =>
    [...samples.keys()].map((name) => `${name} ${fmt.list(samples.get(name)![k], f)} (median ${f(m(name, k))})`).join('; ');
  const files = b.ds.spec.bigFolderFiles.toLocaleString('en-US');
  const count = putCount(b).toLocaleString('en-US');
  const propfindRatio = m('nginx', 'propfindMs') / m('Nimbus', 'propfindMs');
  const rows: Row[] = [
    {
      scenario: `WebDAV PROPFIND Depth 1 of a ${files}-file folder (p50)`,
      nimbus: fmt.ms(m('Nimbus', 'propfindMs')),
      baseline: `${fmt.ms(m('nginx', 'propfindMs'))} (nginx)`,
      ratio: fmt.ratio(propfindRatio),
      target: '≥ 1 × nginx (nginx time ÷ Nimbus time)',
      verdict: verdict(propfindRatio >= 1),
      detail: `One request at a time, four named properties (resourcetype, getcontentlength, getlastmodified, getetag), the same folder on disk for all; per-round p50: ${all('propfindMs', fmt.ms)}.`,
    },
  ];
  for (const [k, what] of [
    ['put4k', `WebDAV PUT of ${count} 4 KiB files`],
    ['put64k', `WebDAV PUT of ${count} 64 KiB files`],
    ['move', `WebDAV MOVE (rename) of ${count} files, ${MOVE_PASSES} passes`],
  ] as const) {
    const ratio = m('Nimbus', k) / m('bare', k);
    rows.push({
      scenario: what,
      nimbus: perSec(m('Nimbus', k)),
      baseline: `${perSec(m('bare', k))} (bare node:http with the same fsyncs)`,
      ratio: fmt.ratio(ratio),
      target: '≥ 1 × the bare server',
      verdict: verdict(ratio >= 1),
      detail: `${CONNECTIONS} keep-alive connections (Node's fetch), into a fresh folder per round, the servers in turns of ${TURN} (bench/lib/interleaved.ts), \`sync\` before each turn and the folders deleted after the last round (bench/lib/quiet-disk.ts)${k === 'move' ? `, the files moved to new names and back ${MOVE_PASSES} times (a round's sample the median pass)` : ''}; ${NO_FSYNC}. ${all(k, perSec)}.`,
    });
  }
  return rows;
}
