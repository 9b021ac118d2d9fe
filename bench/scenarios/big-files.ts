/**
 * Issue 30's large-file rows, run by `BENCH_ONLY=small` after its small-file rounds on the same
 * servers: the dataset's 1 GiB file uploaded through the API by curl -T (Content-Length,
 * streamed) and downloaded by curl to /dev/null, on Nimbus and on the bare node:http server
 * with the same fsyncs (bench/baselines/bare-files.ts), alternating which goes first each round;
 * each server's peak RSS growth during its upload (VmRSS every 20 ms). nginx has no API path
 * and is left out (transfer.ts compares downloads with it).
 */
import { randomBytes } from 'node:crypto';
import type { Bench } from '../lib/context.js';
import { rssOf } from '../lib/machine.js';
import { fmt, verdict, type Row } from '../lib/report.js';
import type { ServerName, SmallFileServer } from '../lib/small-servers.js';
import { median } from '../lib/stats.js';
import { curl, readThrough, uploadArgs } from './transfer.js';

/** Issue 30: the upload at least the bare server's speed, the download 0.9 of it, the daemon's memory growing less than this. */
const UPLOAD_TARGET = 1;
const DOWNLOAD_TARGET = 0.9;
const RSS_GROWTH_LIMIT = 16 * 2 ** 20;

interface BigSamples {
  upload: number[];
  download: number[];
  rssGrowth: number[];
}

/** One upload and one download of `src` on `s`, into a fresh folder removed after. */
async function roundOn(s: SmallFileServer, dir: string, src: string, bytes: number, out: BigSamples): Promise<void> {
  const urls = s.urls!;
  await s.createFolder(dir);
  try {
    const before = rssOf(s.pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssOf(s.pid));
    }, 20);
    let up;
    try {
      up = await curl(['-o', '/dev/null', ...uploadArgs(src, urls.key, urls.upload(dir, 'big.bin'))]);
    } finally {
      clearInterval(sampler);
    }
    if (up.status !== 201) throw new Error(`${s.name} answered the upload with ${up.status}`);
    out.upload.push(up.bytesPerSec);
    out.rssGrowth.push(peak - before);
    const down = await curl(['-o', '/dev/null', '-H', `API-Key: ${urls.key}`, urls.download(dir, 'big.bin')]);
    if (down.status !== 200 || Math.round(down.bytesPerSec * down.seconds) !== bytes)
      throw new Error(`${s.name} answered the download with ${down.status}, ${Math.round(down.bytesPerSec * down.seconds)} bytes`);
    out.download.push(down.bytesPerSec);
  } finally {
    await s.clean(dir);
  }
}

export async function bigFileRows(b: Bench, servers: SmallFileServer[]): Promise<Row[]> {
  const [nimbus, bare] = (['Nimbus', 'bare'] as ServerName[]).map((name) => servers.find((s) => s.name === name && s.urls));
  if (!nimbus || !bare) throw new Error('the big-file rows need the Nimbus and bare servers');
  const src = b.ds.bigFilePath;
  const bytes = b.ds.spec.bigFileBytes;
  readThrough(src);
  const run = randomBytes(3).toString('hex');
  const samples = new Map<ServerName, BigSamples>([nimbus, bare].map((s) => [s.name, { upload: [], download: [], rssGrowth: [] }]));
  const warm: BigSamples = { upload: [], download: [], rssGrowth: [] };
  for (const s of [nimbus, bare]) await roundOn(s, `big-${run}-w`, src, bytes, warm);
  for (let round = 0; round < b.rounds; round++) {
    const order = round % 2 === 0 ? [nimbus, bare] : [bare, nimbus];
    for (const s of order) await roundOn(s, `big-${run}-${round}`, src, bytes, samples.get(s.name)!);
    b.log(
      `  big round ${round + 1}: ` +
        order
          .map((s) => {
            const x = samples.get(s.name)!;
            return `${s.name} up ${fmt.mibps(x.upload.at(-1)!)} (+${fmt.mib(x.rssGrowth.at(-1)!)} RSS), down ${fmt.mibps(x.download.at(-1)!)}`;
          })
          .join(' | '),
    );
  }
  const n = samples.get('Nimbus')!;
  const c = samples.get('bare')!;
  const size = fmt.mib(bytes);
  const how = `curl over loopback, the source in the page cache, ${b.rounds} rounds after a warm-up, alternating which server goes first; the bare server is node:http with Nimbus's fsyncs (bench/baselines/bare-files.ts)`;
  const up = median(n.upload) / median(c.upload);
  const down = median(n.download) / median(c.download);
  const growth = median(n.rssGrowth);
  return [
    {
      scenario: `API upload of a ${size} file, beside the bare server`,
      nimbus: `${fmt.mibps(median(n.upload))}, RSS +${fmt.mib(growth)}`,
      baseline: `${fmt.mibps(median(c.upload))}, RSS +${fmt.mib(median(c.rssGrowth))} (bare)`,
      ratio: fmt.ratio(up),
      target: `≥ ${UPLOAD_TARGET} × the bare server, RSS growth < ${fmt.mib(RSS_GROWTH_LIMIT)}`,
      verdict: verdict(up >= UPLOAD_TARGET && growth < RSS_GROWTH_LIMIT),
      detail:
        `curl -T (Content-Length, streamed) into \`POST /api/files/upload\`, fsynced before the 201 on both; ${how}. ` +
        `Nimbus ${fmt.list(n.upload, fmt.mibps)}, peak RSS growth ${fmt.list(n.rssGrowth, fmt.mib)}; bare ${fmt.list(c.upload, fmt.mibps)}, ${fmt.list(c.rssGrowth, fmt.mib)} (VmRSS every 20 ms).`,
    },
    {
      scenario: `API download of a ${size} file, beside the bare server`,
      nimbus: fmt.mibps(median(n.download)),
      baseline: `${fmt.mibps(median(c.download))} (bare)`,
      ratio: fmt.ratio(down),
      target: `≥ ${DOWNLOAD_TARGET} × the bare server`,
      verdict: verdict(down >= DOWNLOAD_TARGET),
      detail: `curl to /dev/null from \`GET /api/files/download\`, the file just uploaded (in the page cache); ${how}. Nimbus ${fmt.list(n.download, fmt.mibps)}; bare ${fmt.list(c.download, fmt.mibps)}.`,
    },
  ];
}
