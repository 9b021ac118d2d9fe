/**
 * Start-up with the whole library on disk: spawn → API answering (first 200 from
 * /api/dash) → index ready (`index.state` = ready), then the idle RSS of the daemon.
 * Each round is a fresh process on the same data directory; the last one stays up and
 * serves the other scenarios.
 */
import type { Dataset } from '../lib/dataset.js';
import { rssOf } from '../lib/machine.js';
import { api, pollUntil, request, startNimbus, type NimbusProcess } from '../lib/nimbus.js';
import { fmt, verdict, type Row } from '../lib/report.js';
import { median } from '../lib/stats.js';

interface Dash {
  index: { state: string; watcher: string };
  files: number;
}

const WATCHER_WAIT_MS = 240_000;

interface Timings {
  listening: number;
  answering: number;
  ready: number;
}

/** One start: resolves once the index is ready, with the daemon still running. */
async function startOnce(ds: Dataset, key: string, nodeArgs: string[]): Promise<{ nimbus: NimbusProcess; t: Timings }> {
  const nimbus = await startNimbus(ds.dataDir, key, { nodeArgs });
  try {
    await pollUntil(async () => ((await request('GET', `${nimbus.url}/api/dash`, key)).status === 200 ? true : undefined), 30_000, 5);
    const answering = performance.now() - nimbus.spawnedAt;
    const dash = await pollUntil(
      async () => {
        const d = await api<Dash>(nimbus, 'GET', '/api/dash');
        return d.index.state === 'ready' ? d : undefined;
      },
      120_000,
      10,
    );
    const ready = performance.now() - nimbus.spawnedAt;
    // The library plus the one big file (and files the watcher row dropped, when BENCH_DATA reuses a directory).
    if (dash.files < ds.spec.files + 1) throw new Error(`the index holds ${dash.files} files, the dataset ${ds.spec.files + 1}`);
    return { nimbus, t: { listening: nimbus.listeningMs, answering, ready } };
  } catch (err) {
    await nimbus.child.stop();
    throw err;
  }
}

export async function startupRows(
  ds: Dataset,
  key: string,
  rounds: number,
  nodeArgs: string[],
  log: (l: string) => void,
): Promise<{ rows: Row[]; nimbus: NimbusProcess }> {
  const timings: Timings[] = [];
  let nimbus: NimbusProcess | null = null;
  for (let round = 0; round < rounds; round++) {
    await nimbus?.child.stop();
    const started = await startOnce(ds, key, nodeArgs);
    nimbus = started.nimbus;
    timings.push(started.t);
    log(
      `  start-up round ${round + 1}: listening ${fmt.ms(started.t.listening)}, answering ${fmt.ms(started.t.answering)}, index ready ${fmt.ms(started.t.ready)}`,
    );
  }
  const n = nimbus!;
  try {
    // The file-system watcher starts after the first scan; the other rows wait for it, so
    // they measure a daemon at rest rather than one still setting up its watches.
    const watched = await pollUntil(
      async () => {
        const d = await api<Dash>(n, 'GET', '/api/dash');
        return d.index.watcher !== 'starting' ? d.index.watcher : undefined;
      },
      WATCHER_WAIT_MS,
      100,
    ).catch(() => null);
    const watcherMs = watched ? performance.now() - n.spawnedAt : null;
    log(
      `  watcher: ${watched ? `${watched} after ${fmt.ms(watcherMs!)}` : `still starting after ${fmt.ms(performance.now() - n.spawnedAt)}`} (RSS ${fmt.mib(rssOf(n.pid))})`,
    );
    return { rows: await idleRows(ds, n, timings, watcherMs), nimbus: n };
  } catch (err) {
    await n.child.stop();
    throw err;
  }
}

async function idleRows(ds: Dataset, n: NimbusProcess, timings: Timings[], watcherMs: number | null): Promise<Row[]> {
  // Idle: let the start-up garbage settle, as it would a few seconds after launch.
  await new Promise((r) => setTimeout(r, 5000));
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push(rssOf(n.pid));
    await new Promise((r) => setTimeout(r, 200));
  }
  const rss = median(samples);
  const answering = timings.map((t) => t.answering);
  const ready = timings.map((t) => t.ready);
  const files = ds.spec.files.toLocaleString('en-US');
  const users = ds.spec.users.toLocaleString('en-US');
  const dash = await api<Dash>(n, 'GET', '/api/dash');
  return [
    {
      scenario: `Start-up with ${files} files: API answering`,
      nimbus: fmt.ms(median(answering)),
      baseline: '—',
      ratio: '—',
      target: '< 0.5 s',
      verdict: verdict(median(answering) < 500),
      detail: `spawn of the daemon (\`nimbus daemon --port 0 --data-dir …\` as a child process) to the first 200 from /api/dash; rounds ${fmt.list(answering, fmt.ms)} (the "listening" line after ${fmt.list(
        timings.map((t) => t.listening),
        fmt.ms,
      )}).`,
    },
    {
      scenario: `Start-up with ${files} files: index ready`,
      nimbus: fmt.ms(median(ready)),
      baseline: '—',
      ratio: '—',
      target: '< 3 s',
      verdict: verdict(median(ready) < 3000),
      detail: `spawn to /api/dash reporting \`index.state: ready\`; rounds ${fmt.list(ready, fmt.ms)}.`,
    },
    {
      scenario: `Start-up with ${files} files: watcher on every directory`,
      nimbus: watcherMs === null ? `still starting after ${WATCHER_WAIT_MS / 1000} s` : fmt.ms(watcherMs),
      baseline: '—',
      ratio: '—',
      target: '—',
      verdict: 'info',
      detail: `spawn to /api/dash reporting a watcher mode other than \`starting\` (last round only; now "${dash.index.watcher}"). Until then the daemon polls directory mtimes, so files copied in still appear. The rows below start after this point.`,
    },
    {
      scenario: `Idle RSS, ${files} files + ${users} users`,
      nimbus: fmt.mib(rss),
      baseline: '—',
      ratio: '—',
      target: '< 400 MiB',
      verdict: verdict(rss < 400 * 2 ** 20),
      detail: `VmRSS of the daemon process 5 s after the watcher was up (median of 5 samples, ${fmt.list(samples, fmt.mib)}).`,
    },
  ];
}
