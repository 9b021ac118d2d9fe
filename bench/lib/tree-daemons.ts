/**
 * Start-up of the tree scenario's two daemons (the deep tree and its one-level copy), one at a
 * time: each holds an inotify watch per directory (~130,000 at full size), and two at once
 * would pass this machine's fs.inotify.max_user_watches (192,536), sending one of them — and
 * any other process of the user starting a watch — to polling.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { rssOf } from './machine.js';
import { api, pollUntil, request, startNimbus, type NimbusProcess } from './nimbus.js';
import { median } from './stats.js';

const exec = promisify(execFile);

/** Long enough for a million files on a loaded machine; the row reports the time, not this. */
const READY_TIMEOUT_MS = 15 * 60_000;
const WATCHER_TIMEOUT_MS = 10 * 60_000;

interface Dash {
  index: { state: string; watcher: string };
  files: number;
  folders: number;
}

export interface StartTimes {
  answering: number;
  ready: number;
}

export interface IdleState {
  /** ms from spawn until the watcher left `starting` (null: it never did). */
  watcherMs: number | null;
  watcher: string;
  /** VmRSS samples 5 s after that. */
  rss: number[];
}

/** Spawns a daemon on `dataDir` and waits until its index is ready and counts every file and folder; the daemon keeps running. */
export async function startAndTime(
  dataDir: string,
  key: string,
  nodeArgs: string[],
  expect: { files: number; folders: number },
): Promise<{ n: NimbusProcess; t: StartTimes }> {
  const n = await startNimbus(dataDir, key, { nodeArgs });
  try {
    await pollUntil(async () => ((await request('GET', `${n.url}/api/dash`, key)).status === 200 ? true : undefined), 60_000, 5);
    const answering = performance.now() - n.spawnedAt;
    const dash = await pollUntil(
      async () => {
        const d = await api<Dash>(n, 'GET', '/api/dash');
        return d.index.state === 'ready' ? d : undefined;
      },
      READY_TIMEOUT_MS,
      20,
    );
    const ready = performance.now() - n.spawnedAt;
    if (dash.files < expect.files || dash.folders < expect.folders) {
      throw new Error(
        `the daemon on ${dataDir} indexed ${dash.files} files in ${dash.folders} folders, the data has ${expect.files} in ${expect.folders}`,
      );
    }
    return { n, t: { answering, ready } };
  } catch (err) {
    await n.child.stop();
    throw err;
  }
}

/** Waits for the watcher to be up, lets start-up garbage settle 5 s, then samples VmRSS. */
export async function idleState(n: NimbusProcess): Promise<IdleState> {
  const watcher = await pollUntil(
    async () => {
      const d = await api<Dash>(n, 'GET', '/api/dash');
      return d.index.watcher !== 'starting' ? d.index.watcher : undefined;
    },
    WATCHER_TIMEOUT_MS,
    100,
  ).catch(() => null);
  const watcherMs = watcher ? performance.now() - n.spawnedAt : null;
  await new Promise((r) => setTimeout(r, 5000));
  const rss: number[] = [];
  for (let i = 0; i < 5; i++) {
    rss.push(rssOf(n.pid));
    await new Promise((r) => setTimeout(r, 200));
  }
  return { watcherMs, watcher: watcher ?? 'starting', rss };
}

/** Wall time of `find <dir> | wc -l` (what a directory walk costs with no index kept), and the count it printed. */
export async function timeFind(dir: string): Promise<{ ms: number; entries: number }> {
  const t = performance.now();
  const { stdout } = await exec('sh', ['-c', 'find "$1" | wc -l', 'sh', dir]);
  return { ms: performance.now() - t, entries: Number(stdout.trim()) };
}

export const medianRss = (s: IdleState): number => median(s.rss);
