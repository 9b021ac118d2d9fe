/**
 * Watching the storage folder (issue 11): chokidar 6, @parcel/watcher, the fs.watch per
 * directory of before issue 11, and Nimbus's own inotify reader (issue 30), each alone in a fresh child process (bench/watchers/*.mjs)
 * over the dataset's tree (10,000 user directories, one user with 100,000 files in 1,000
 * folders). Per round: spawn to every directory watched, RSS, inotify watches, latency of
 * a new file, rename and delete reported right, a directory made after the start (and a
 * file written into it at once) picked up, a file written in a renamed directory.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Bench } from '../lib/context.js';
import { WATCH_USER } from '../lib/dataset.js';
import { rssOf } from '../lib/machine.js';
import { ROOT } from '../lib/nimbus.js';
import { fmt, verdict, type Row } from '../lib/report.js';
import { median, percentile } from '../lib/stats.js';

const WATCHERS = [
  ['chokidar', 'chokidar 6 (one watcher over the root)'],
  ['nimbus', "Nimbus's own inotify reader (the daemon's watch on Linux)"],
  ['parcel', '@parcel/watcher (one subscription)'],
  ['fs-watch', 'fs.watch per directory (the watcher before issue 11)'],
] as const;
type WatcherKey = (typeof WATCHERS)[number][0];
/** Which of them the running daemon uses, to estimate the daemon's RSS with each of the others. */
const DAEMON_WATCHER: WatcherKey = 'nimbus';
const LATENCY_SAMPLES = 40;
const MKDIR_SAMPLES = 10;
const WAIT_MS = 2000;
const GOALS = { readyMs: 5000, daemonRssMiB: 300, p95Ms: 200 };

interface Event {
  t: number;
  kind: 'create' | 'update' | 'delete';
  path: string;
  listed: boolean;
}

interface Round {
  readyMs: number;
  rss: number;
  watches: number;
  latencies: number[];
  missed: number;
  rename: boolean;
  remove: boolean;
  mkdirRaw: number;
  mkdirListed: number;
  dirRename: boolean;
}

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `inotify wd:` lines in the process's fdinfo: one per watch it holds. */
function inotifyWatches(pid: number): number {
  let count = 0;
  for (const fd of readdirSync(`/proc/${pid}/fdinfo`)) {
    const info = readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8');
    count += info.split('\n').filter((l) => l.startsWith('inotify wd:')).length;
  }
  return count;
}

async function runRound(key: WatcherKey, storageDir: string, scratch: string): Promise<Round> {
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch);
  const t0 = performance.now();
  const proc = spawn(process.execPath, [path.join(ROOT, 'bench', 'watchers', `${key}.mjs`), storageDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: Event[] = [];
  let readyMs = -1;
  let rest = '';
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  proc.stdout.on('data', (d: Buffer) => {
    const lines = (rest + d.toString()).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('READY')) readyMs = performance.now() - t0;
      else if (line) events.push(JSON.parse(line) as Event);
    }
  });
  const waitFor = async (test: (e: Event) => boolean, ms = WAIT_MS): Promise<Event | null> => {
    const until = performance.now() + ms;
    for (let from = 0; performance.now() < until; await sleep(2)) {
      for (; from < events.length; from++) if (test(events[from])) return events[from];
    }
    return null;
  };
  try {
    while (readyMs < 0) {
      if (proc.exitCode !== null) throw new Error(`${key} exited (${proc.exitCode}): ${stderr}`);
      if (performance.now() - t0 > 180_000) throw new Error(`${key} not ready in 180 s`);
      await sleep(5);
    }
    await sleep(2000);
    const rss = rssOf(proc.pid!);
    const watches = inotifyWatches(proc.pid!);
    const latencies: number[] = [];
    let missed = 0;
    for (let i = 0; i < LATENCY_SAMPLES; i++) {
      const file = path.join(scratch, `new-${i}.txt`);
      const start = now();
      writeFileSync(file, 'a new file\n');
      const e = await waitFor((x) => x.path === file && x.kind !== 'delete');
      if (e) latencies.push(e.t - start);
      else missed++;
      await sleep(20);
    }
    const a = path.join(scratch, 'rename-a.txt');
    const b = path.join(scratch, 'rename-b.txt');
    writeFileSync(a, 'to be renamed\n');
    await waitFor((x) => x.path === a);
    await sleep(300);
    let mark = events.length;
    renameSync(a, b);
    const rename = Boolean(
      (await waitFor((x) => events.indexOf(x) >= mark && x.path === a && x.kind === 'delete')) &&
      (await waitFor((x) => events.indexOf(x) >= mark && x.path === b && x.kind !== 'delete')),
    );
    await sleep(300);
    mark = events.length;
    unlinkSync(b);
    const remove = Boolean(await waitFor((x) => events.indexOf(x) >= mark && x.path === b && x.kind === 'delete'));
    let mkdirRaw = 0;
    let mkdirListed = 0;
    for (let i = 0; i < MKDIR_SAMPLES; i++) {
      const file = path.join(scratch, `dir-${i}`, 'inside.txt');
      mkdirSync(path.dirname(file));
      writeFileSync(file, 'written right after mkdir\n');
      if (await waitFor((x) => x.path === file && x.kind !== 'delete')) mkdirListed++;
      if (await waitFor((x) => x.path === file && x.kind !== 'delete' && !x.listed, 300)) mkdirRaw++;
    }
    const src = path.join(scratch, 'move-src');
    const dst = path.join(scratch, 'move-dst');
    mkdirSync(src);
    writeFileSync(path.join(src, 'before.txt'), 'x');
    await sleep(300);
    renameSync(src, dst);
    await sleep(300);
    const after = path.join(dst, 'after.txt');
    writeFileSync(after, 'written in the renamed directory\n');
    const dirRename = Boolean(await waitFor((x) => x.path === after && x.kind !== 'delete'));
    return { readyMs, rss, watches, latencies, missed, rename, remove, mkdirRaw, mkdirListed, dirRename };
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => (proc.exitCode === null ? proc.once('exit', r) : r(null)));
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** RSS of a Node process doing nothing, the base each watcher's RSS adds to. */
async function idleNodeRss(): Promise<number> {
  const proc = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await sleep(1000);
  const rss = rssOf(proc.pid!);
  proc.kill('SIGTERM');
  return rss;
}

async function measureAll(b: Bench): Promise<Row[]> {
  const scratch = path.join(b.ds.storageDir, WATCH_USER, 'bench-watchers');
  const idle = await idleNodeRss();
  const results = new Map<WatcherKey, Round[]>(WATCHERS.map(([k]) => [k, []]));
  // Alternating rounds, each watcher in a fresh process.
  for (let r = 0; r < b.rounds; r++) {
    for (const [key] of WATCHERS) {
      const round = await runRound(key, b.ds.storageDir, scratch);
      b.log(
        `  ${key}: ready ${fmt.ms(round.readyMs)}, RSS ${fmt.mib(round.rss)}, ${round.watches} watches, p95 ${fmt.ms(percentile(round.latencies, 95))}`,
      );
      results.get(key)!.push(round);
    }
  }
  const rssMedian = (k: WatcherKey) => median(results.get(k)!.map((r) => r.rss));
  const daemonRss = rssOf(b.nimbus.pid);
  const daemonWithoutWatcher = daemonRss - (rssMedian(DAEMON_WATCHER) - idle);
  const { users, files, folders } = b.ds.spec;
  return WATCHERS.map(([key, title]) => {
    const rounds = results.get(key)!;
    const readyMs = median(rounds.map((r) => r.readyMs));
    const rss = rssMedian(key);
    const all = rounds.flatMap((r) => r.latencies);
    const p95 = percentile(all, 95);
    const daemonEstimate = daemonWithoutWatcher + (rss - idle);
    const last = rounds[rounds.length - 1];
    const count = (f: (r: Round) => boolean) => `${rounds.filter(f).length}/${rounds.length}`;
    const sum = (f: (r: Round) => number) => rounds.reduce((s, r) => s + f(r), 0);
    const ok =
      readyMs <= GOALS.readyMs && daemonEstimate <= GOALS.daemonRssMiB * 2 ** 20 && p95 <= GOALS.p95Ms && sum((r) => r.missed) === 0;
    return {
      scenario: `Watching ${users.toLocaleString('en-US')} user dirs + ${files.toLocaleString('en-US')} files: ${title}`,
      nimbus: `ready ${fmt.ms(readyMs)}, RSS ${fmt.mib(rss)} (daemon ≈ ${fmt.mib(daemonEstimate)}), ${last.watches.toLocaleString('en-US')} watches, p95 ${fmt.ms(p95)}`,
      baseline: '—',
      ratio: '—',
      target: `ready ≤ 5 s, daemon RSS ≤ 300 MiB, p95 ≤ 200 ms`,
      verdict: verdict(ok),
      detail:
        `fresh child (bench/watchers/${key}.mjs) over ${users.toLocaleString('en-US')} user directories and ${files.toLocaleString('en-US')} files in ${folders.toLocaleString('en-US')} folders; ` +
        `spawn to every directory watched ${fmt.list(
          rounds.map((r) => r.readyMs),
          fmt.ms,
        )}; RSS 2 s later ${fmt.list(
          rounds.map((r) => r.rss),
          fmt.mib,
        )} (an idle Node process: ${fmt.mib(idle)}); inotify watches ${rounds.map((r) => r.watches).join(', ')}; ` +
        `new-file latency median ${fmt.ms(median(all))}, p95 ${fmt.ms(p95)} over ${all.length} files (${sum((r) => r.missed)} not reported within ${WAIT_MS} ms); ` +
        `file rename reported as delete + create ${count((r) => r.rename)}, delete reported ${count((r) => r.remove)}; ` +
        `a file written right after mkdir reported by the watcher itself ${sum((r) => r.mkdirRaw)}/${rounds.length * MKDIR_SAMPLES}, ` +
        `with the new directory listed on its create event ${sum((r) => r.mkdirListed)}/${rounds.length * MKDIR_SAMPLES}; ` +
        `a file written in a directory after its rename reported under the new path ${count((r) => r.dirRename)}. ` +
        `Daemon estimate: the running daemon's RSS (${fmt.mib(daemonRss)}, with ${DAEMON_WATCHER}) minus that watcher's share over an idle Node, plus this one's.`,
    };
  });
}

let measured: Promise<Row[]> | null = null;

/** The row of one watcher; the first call measures all four (alternating, so they share the machine's state). */
export function watchersRow(key: WatcherKey): (b: Bench) => Promise<Row> {
  return async (b) => (await (measured ??= measureAll(b)))[WATCHERS.findIndex(([k]) => k === key)];
}
