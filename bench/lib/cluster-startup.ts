/**
 * Start-up with 100,000 files, a cluster daemon beside an embedded one (issue 15): spawn →
 * API answering (first 200 from /api/dash) → index ready (`index.state: ready`), in
 * alternating rounds, each a fresh process. The embedded daemon starts on a copy of the
 * bench's data directory (db.json copied, the storage folder hard-linked: the files are the
 * same inodes, read the same way), since the bench's own embedded daemon keeps running and
 * holds its directory's lock. The cluster daemon loads every table of PostgreSQL and builds
 * its index from the rows; it reads no object.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Bench } from './context.js';
import { api, pollUntil, request, startNimbus, type NimbusProcess } from './nimbus.js';
import { fmt, verdict, type Row } from './report.js';
import { median } from './stats.js';

const exec = promisify(execFile);

export interface StartTimes {
  answering: number;
  ready: number;
}

/** Polls a daemon just spawned until its API answers and its index is ready; stops it after. */
export async function timeStart(n: NimbusProcess, expectFiles: number): Promise<StartTimes> {
  try {
    await pollUntil(async () => ((await request('GET', `${n.url}/api/dash`, n.key)).status === 200 ? true : undefined), 60_000, 5);
    const answering = performance.now() - n.spawnedAt;
    const dash = await pollUntil(
      async () => {
        const d = await api<{ index: { state: string }; files: number }>(n, 'GET', '/api/dash');
        return d.index.state === 'ready' ? d : undefined;
      },
      120_000,
      10,
    );
    const ready = performance.now() - n.spawnedAt;
    if (dash.files < expectFiles) throw new Error(`the daemon at ${n.url} counts ${dash.files} files, the dataset ${expectFiles}`);
    return { answering, ready };
  } finally {
    await n.child.stop();
  }
}

/** A copy of the embedded data directory to start a second embedded daemon on (made once per run). */
export async function embeddedCopy(b: Bench): Promise<string> {
  const dir = path.join(b.root, 'cluster-startup-embedded');
  if (!existsSync(path.join(dir, 'storage'))) {
    mkdirSync(dir, { recursive: true });
    await exec('cp', ['-al', b.ds.storageDir, path.join(dir, 'storage')], { maxBuffer: 1 << 20 });
  }
  // db.json afresh each run: the bench's daemon may have changed roles since.
  copyFileSync(path.join(b.ds.dataDir, 'db.json'), path.join(dir, 'db.json'));
  return dir;
}

export async function startupRows(b: Bench, startCluster: () => Promise<NimbusProcess>, clusterFiles: number): Promise<Row[]> {
  const copy = await embeddedCopy(b);
  const startEmbedded = () => startNimbus(copy, b.nimbus.key);
  // One start each first, not counted: the page cache and the first compile of the modules.
  await timeStart(await startEmbedded(), b.ds.spec.files);
  await timeStart(await startCluster(), clusterFiles);
  const cluster: StartTimes[] = [];
  const embedded: StartTimes[] = [];
  for (let round = 0; round < b.rounds; round++) {
    embedded.push(await timeStart(await startEmbedded(), b.ds.spec.files));
    cluster.push(await timeStart(await startCluster(), clusterFiles));
    b.log(
      `  start-up round ${round + 1}: cluster answering ${fmt.ms(cluster.at(-1)!.answering)}, ready ${fmt.ms(cluster.at(-1)!.ready)} | embedded ${fmt.ms(embedded.at(-1)!.answering)}, ${fmt.ms(embedded.at(-1)!.ready)}`,
    );
  }
  const files = clusterFiles.toLocaleString('en-US');
  const row = (what: 'answering' | 'ready', title: string, limit: number): Row => {
    const c = median(cluster.map((x) => x[what]));
    const e = median(embedded.map((x) => x[what]));
    return {
      scenario: `Start-up with ${files} files, PostgreSQL + S3: ${title}`,
      nimbus: fmt.ms(c),
      baseline: `${fmt.ms(e)} (embedded)`,
      ratio: fmt.ratio(c / e),
      target: `< ${limit >= 1000 ? `${limit / 1000} s` : `${limit} ms`}`,
      verdict: verdict(c < limit),
      detail:
        `spawn of \`nimbus daemon\` (a fresh process each round, alternating) to ${what === 'answering' ? 'the first 200 from /api/dash' : '/api/dash reporting `index.state: ready`'}; ` +
        `the cluster daemon loads every PostgreSQL table (${files} file rows of \`big\`, no objects: start-up reads none) and builds its index from the rows; ` +
        `the embedded one reads db.json and scans a hard-linked copy of the storage folder. Cluster ${fmt.list(
          cluster.map((x) => x[what]),
          fmt.ms,
        )}; embedded ${fmt.list(
          embedded.map((x) => x[what]),
          fmt.ms,
        )}. Target: the issue's for the embedded daemon.`,
    };
  };
  return [row('answering', 'API answering', 500), row('ready', 'index ready', 3000)];
}
