/**
 * Big files. Download: Nimbus against nginx (sendfile) serving the same file on
 * loopback, both fetched by curl into /dev/null. Upload: curl streaming the file to
 * Nimbus (which fsyncs it before answering) against `cp` of the same file on the same
 * disk followed by an fsync of the copy (the same durability), while the daemon's RSS is
 * sampled from /proc. Both sides read the same source file, in the page cache for both
 * (read once before the rounds); the order alternates from round to round.
 */
import { execFile } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { NGINX, startNginx } from '../baselines/nginx.js';
import type { Bench } from '../lib/context.js';
import { BIG_FILE, MEDIA_USER, UPLOAD_USER } from '../lib/dataset.js';
import { rssOf } from '../lib/machine.js';
import { api } from '../lib/nimbus.js';
import { fmt, notMeasured, verdict, type Row } from '../lib/report.js';
import { median } from '../lib/stats.js';

const run = promisify(execFile);

/** curl's own measurement: bytes/s of the transfer and the HTTP status. */
/** curl's arguments for streaming `file` (with its Content-Length) into POST `url` as the client of the upload rows. */
export function uploadArgs(file: string, key: string, url: string): string[] {
  return ['-X', 'POST', '-T', file, '-H', 'Expect:', '-H', 'Content-Type: application/octet-stream', '-H', `API-Key: ${key}`, url];
}

export async function curl(args: string[]): Promise<{ status: number; bytesPerSec: number; seconds: number }> {
  const { stdout } = await run('curl', ['-s', '-S', '-w', '%{http_code} %{size_download} %{size_upload} %{time_total}', ...args], {
    maxBuffer: 1 << 20,
  });
  const [status, down, up, seconds] = stdout.trim().split(/\s+/).slice(-4).map(Number);
  return { status, bytesPerSec: Math.max(down, up) / seconds, seconds };
}

/** Reads a file to its end (into the page cache), 1 MiB at a time whatever its size. */
export function readThrough(file: string): void {
  const fd = openSync(file, 'r');
  const buffer = Buffer.alloc(1 << 20);
  try {
    while (readSync(fd, buffer) > 0);
  } finally {
    closeSync(fd);
  }
}

export async function downloadRow(b: Bench): Promise<Row> {
  const size = fmt.mib(b.ds.spec.bigFileBytes);
  const scenario = `Download of a ${size} file`;
  const target = '≥ 0.9 × nginx';
  let nginx;
  try {
    nginx = await startNginx(b.root, b.ds.storageDir, `/${MEDIA_USER}/${BIG_FILE}`);
  } catch (err) {
    return notMeasured(scenario, target, `nginx (${NGINX}) did not start: ${(err as Error).message.slice(0, 200)}`);
  }
  try {
    const nimbusUrl = `${b.nimbus.url}/api/files/download?username=${MEDIA_USER}&file=${BIG_FILE}`;
    const nginxUrl = `${nginx.url}/${MEDIA_USER}/${BIG_FILE}`;
    const fetchNimbus = () => curl(['-o', '/dev/null', '-H', `API-Key: ${b.nimbus.key}`, nimbusUrl]);
    const fetchNginx = () => curl(['-o', '/dev/null', nginxUrl]);
    await fetchNimbus();
    await fetchNginx();
    const nimbus: number[] = [];
    const base: number[] = [];
    for (let round = 0; round < b.rounds; round++) {
      // Alternating which goes first: neither always follows the other's cache and CPU state.
      let x, y;
      if (round % 2 === 0) {
        x = await fetchNimbus();
        y = await fetchNginx();
      } else {
        y = await fetchNginx();
        x = await fetchNimbus();
      }
      if (x.status !== 200 || y.status !== 200) throw new Error(`download answered ${x.status} / nginx ${y.status}`);
      nimbus.push(x.bytesPerSec);
      base.push(y.bytesPerSec);
      b.log(`  download round ${round + 1}: nimbus ${fmt.mibps(x.bytesPerSec)} | nginx ${fmt.mibps(y.bytesPerSec)}`);
    }
    const ratio = median(nimbus) / median(base);
    return {
      scenario,
      nimbus: fmt.mibps(median(nimbus)),
      baseline: `${fmt.mibps(median(base))} (nginx)`,
      ratio: fmt.ratio(ratio),
      target,
      verdict: verdict(ratio >= 0.9),
      detail: `curl to /dev/null over loopback, file in the page cache; Nimbus ${fmt.list(nimbus, fmt.mibps)}; nginx (sendfile, 1 worker) ${fmt.list(base, fmt.mibps)}.`,
    };
  } finally {
    await nginx.child.stop();
  }
}

export async function uploadRow(b: Bench): Promise<Row> {
  const src = b.ds.bigFilePath;
  const size = fmt.mib(b.ds.spec.bigFileBytes);
  const cpDir = path.join(b.root, 'cp-target');
  mkdirSync(cpDir, { recursive: true });
  const nimbus: number[] = [];
  const growth: number[] = [];
  const cp: number[] = [];
  const cpSynced: number[] = [];
  const bytes = b.ds.spec.bigFileBytes;
  // Both sides read the same source: read it once so it is in the page cache for both.
  readThrough(src);

  const uploadOnce = async (round: number) => {
    const name = `upload-${round}.bin`;
    const before = rssOf(b.nimbus.pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssOf(b.nimbus.pid));
    }, 20);
    const url = `${b.nimbus.url}/api/files/upload?username=${UPLOAD_USER}&file=${name}`;
    let x;
    try {
      x = await curl(['-o', '/dev/null', ...uploadArgs(src, b.nimbus.key, url)]);
    } finally {
      clearInterval(sampler);
    }
    if (x.status !== 201) throw new Error(`upload answered ${x.status}`);
    nimbus.push(x.bytesPerSec);
    growth.push(peak - before);
    await api(b.nimbus, 'POST', '/api/files/delete', { username: UPLOAD_USER, file: name }, 200);
  };
  const copyOnce = async (round: number) => {
    const dst = path.join(cpDir, `upload-${round}.bin`);
    const t0 = performance.now();
    await run('cp', [src, dst]);
    const tCp = (performance.now() - t0) / 1000;
    await run('sync', [dst]); // coreutils: fsync of that one file
    const tSync = (performance.now() - t0) / 1000;
    cp.push(bytes / tCp);
    cpSynced.push(bytes / tSync);
    rmSync(dst);
  };

  for (let round = 0; round < b.rounds; round++) {
    // Alternating which goes first: neither always runs while the other's writeback ends.
    if (round % 2 === 0) {
      await uploadOnce(round);
      await copyOnce(round);
    } else {
      await copyOnce(round);
      await uploadOnce(round);
    }
    b.log(
      `  upload round ${round + 1}: nimbus ${fmt.mibps(nimbus.at(-1)!)} (+${fmt.mib(growth.at(-1)!)} RSS) | cp+fsync ${fmt.mibps(cpSynced.at(-1)!)}, cp ${fmt.mibps(cp.at(-1)!)}`,
    );
  }
  const ratio = median(nimbus) / median(cpSynced);
  const rss = median(growth);
  return {
    scenario: `Upload of a ${size} file`,
    nimbus: `${fmt.mibps(median(nimbus))}, RSS +${fmt.mib(rss)}`,
    baseline: `${fmt.mibps(median(cpSynced))} (cp + fsync)`,
    ratio: fmt.ratio(ratio),
    target: '≥ 0.8 × cp + fsync of the copy, RSS growth < 64 MiB',
    verdict: verdict(ratio >= 0.8 && Math.max(...growth) < 64 * 2 ** 20),
    detail:
      `curl -T (streamed, Content-Length) into POST /api/files/upload; the daemon fsyncs the file before its 201. Nimbus ${fmt.list(nimbus, fmt.mibps)}, ` +
      `peak RSS growth ${fmt.list(growth, fmt.mib)} (VmRSS every 20 ms). cp followed by an fsync of the copy (the durability Nimbus gives) ` +
      `${fmt.list(cpSynced, fmt.mibps)}; plain cp (into the page cache, nothing durable yet) ${fmt.list(cp, fmt.mibps)} — Nimbus ÷ that: ` +
      `${fmt.ratio(median(nimbus) / median(cp))}. Same source file, in the page cache for both; the order alternates by round.`,
  };
}
