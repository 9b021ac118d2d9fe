/**
 * folders.download: the media user's storage (the dataset's 1 GiB of incompressible bytes,
 * stored, not deflated) zipped by Nimbus and fetched by curl into /dev/null, against
 * Info-ZIP's `zip -0 -r` writing the same directory to /dev/null in the same run (the same
 * work: read, CRC-32, headers), with `cat` of the same bytes for reference, while the
 * daemon's RSS is sampled from /proc.
 */
import { execFile, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Bench } from '../lib/context.js';
import { MEDIA_USER } from '../lib/dataset.js';
import { rssOf } from '../lib/machine.js';
import { fmt, notMeasured, verdict, type Row } from '../lib/report.js';
import { median } from '../lib/stats.js';

const run = promisify(execFile);

/** Runs a command with its stdout into /dev/null; seconds it took. */
function timedToNull(command: string, args: string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const devNull = openSync('/dev/null', 'w');
    const started = performance.now();
    const child = spawn(command, args, { cwd, stdio: ['ignore', devNull, 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      closeSync(devNull);
      if (code === 0) resolve((performance.now() - started) / 1000);
      else reject(new Error(`${command} exited ${code}: ${stderr.slice(0, 300)}`));
    });
  });
}

/** curl's own measurement of a download into /dev/null: status, bytes and bytes/s. */
async function curlToNull(url: string, key: string): Promise<{ status: number; bytes: number; bytesPerSec: number }> {
  const { stdout } = await run('curl', [
    '-s',
    '-S',
    '-o',
    '/dev/null',
    '-H',
    `API-Key: ${key}`,
    '-w',
    '%{http_code} %{size_download} %{speed_download}',
    url,
  ]);
  const [status, bytes, bytesPerSec] = stdout.trim().split(/\s+/).map(Number);
  return { status, bytes, bytesPerSec };
}

export async function zipRow(b: Bench): Promise<Row> {
  const size = b.ds.spec.bigFileBytes;
  const scenario = `Zip of a ${fmt.mib(size)} folder (GET /api/folders/download)`;
  const target = '≥ 0.5 × zip -0 -r, RSS growth < 64 MiB';
  const dir = path.join(b.ds.storageDir, MEDIA_USER);
  try {
    await run('zip', ['-v']);
  } catch {
    return notMeasured(scenario, target, 'Info-ZIP `zip` is not installed (apt-get install zip)');
  }
  const url = `${b.nimbus.url}/api/folders/download?username=${MEDIA_USER}`;
  // Warm-ups: the file in the page cache, the daemon's zip code loaded.
  await curlToNull(url, b.nimbus.key);
  await timedToNull('zip', ['-0', '-r', '-q', '-', '.'], dir);
  const nimbus: number[] = [];
  const growth: number[] = [];
  const zip: number[] = [];
  const cat: number[] = [];
  for (let round = 0; round < b.rounds; round++) {
    const before = rssOf(b.nimbus.pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(b.nimbus.pid))), 20);
    let x;
    try {
      x = await curlToNull(url, b.nimbus.key);
    } finally {
      clearInterval(sampler);
    }
    if (x.status !== 200 || x.bytes < size) throw new Error(`the zip answered ${x.status} with ${x.bytes} bytes`);
    nimbus.push(x.bytesPerSec);
    growth.push(peak - before);
    zip.push(size / (await timedToNull('zip', ['-0', '-r', '-q', '-', '.'], dir)));
    cat.push(size / (await timedToNull('sh', ['-c', 'cat ./* > /dev/null'], dir)));
    b.log(
      `  zip round ${round + 1}: nimbus ${fmt.mibps(nimbus.at(-1)!)} (+${fmt.mib(growth.at(-1)!)} RSS) | zip -0 -r ${fmt.mibps(zip.at(-1)!)} | cat ${fmt.mibps(cat.at(-1)!)}`,
    );
  }
  const ratio = median(nimbus) / median(zip);
  return {
    scenario,
    nimbus: `${fmt.mibps(median(nimbus))}, RSS +${fmt.mib(median(growth))}`,
    baseline: `${fmt.mibps(median(zip))} (zip -0 -r)`,
    ratio: fmt.ratio(ratio),
    target,
    verdict: verdict(ratio >= 0.5 && Math.max(...growth) < 64 * 2 ** 20),
    detail:
      `curl into /dev/null over loopback, files in the page cache, entries stored (binary data is never deflated); Nimbus ${fmt.list(nimbus, fmt.mibps)}, ` +
      `peak RSS growth ${fmt.list(growth, fmt.mib)} (VmRSS every 20 ms). \`zip -0 -r -q - .\` of the same directory into /dev/null ` +
      `${fmt.list(zip, fmt.mibps)}; \`cat\` of the same files into /dev/null (no CRC, no HTTP) ${fmt.list(cat, fmt.mibps)}.`,
  };
}
