/**
 * `npm run bench`: compiles the project first (`npm run build`, so the daemon measured is the
 * compiled one an install runs), builds a realistic library in a temp directory, runs every scenario
 * against Nimbus and its baseline in alternating rounds, prints the table and writes
 * bench/RESULTS.md. Settings (environment):
 *   BENCH_SCALE=0.1    smaller data for a trial run (results go to bench/data/, not RESULTS.md)
 *   BENCH_SECONDS=5    seconds per HTTP load run        BENCH_ROUNDS=3  alternating rounds
 *   BENCH_ONLY=a,b     only these scenarios (keys below) BENCH_PROFILE=1 daemon under --cpu-prof
 *   BENCH_DIR=/path    where the temp directory goes (default: the OS temp dir)
 *   BENCH_DAEMON_NODE_ARGS='--flag …'  extra node flags for the bench's own daemon only (A/B of a V8 flag)
 *   BENCH_DATA=/path   keep the data there and reuse it next time (for profiling sessions; never cleaned)
 *   BENCH_CLUSTER_ROWS=durable,startup,…  only these rows of the PostgreSQL + S3 scenario (bench/scenarios/cluster.ts)
 *   BENCH_TREE_FILES=20000  size of the tree scenario's tree (default 1,000,000; bench/scenarios/tree.ts)
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Bench } from './lib/context.js';
import { buildDataset, diskNeeded, specFor } from './lib/dataset.js';
import { LOADGEN } from './lib/load.js';
import { describeMachine, freeBytes, rssOf } from './lib/machine.js';
import { DAEMON_RUNTIME, ROOT, type NimbusProcess } from './lib/nimbus.js';
import { detailList, fmt, machineSection, markdownTable, notMeasured, textTable, type Row } from './lib/report.js';
import { filesPageRow, fullListingRow, userGetRow } from './scenarios/api.js';
import { routerRow } from './scenarios/router.js';
import { searchRow } from './scenarios/search.js';
import { clusterRows } from './scenarios/cluster.js';
import { startupRows } from './scenarios/startup.js';
import { eventsRow } from './scenarios/events.js';
import { groupCommitRow } from './scenarios/store.js';
import { downloadRow, uploadRow } from './scenarios/transfer.js';
import { formUploadRow } from './scenarios/form-upload.js';
import { uiRow } from './scenarios/ui.js';
import { zipRow } from './scenarios/zip.js';
import { watcherRow } from './scenarios/watcher.js';
import { watchersRow } from './scenarios/watchers.js';
import { treeRows } from './scenarios/tree.js';
import { treeClusterRows } from './scenarios/tree-cluster.js';
import { davRows } from './scenarios/dav.js';
import { smallFileRows } from './scenarios/small-files.js';
import { smallClusterRows } from './scenarios/small-cluster.js';
import { passwordRows } from './scenarios/passwords.js';

const env = process.env;
const scale = Number(env.BENCH_SCALE ?? 1);
const seconds = Number(env.BENCH_SECONDS ?? 5);
const rounds = Number(env.BENCH_ROUNDS ?? 3);
const only = env.BENCH_ONLY ? new Set(env.BENCH_ONLY.split(',')) : null;
const profileDir = env.BENCH_PROFILE === '1' ? path.join(ROOT, 'bench', 'data', 'profiles') : null;

/** Scenarios after start-up, in run order; each gets the running daemon and gives one row or several. */
const SCENARIOS: [key: string, title: string, run: (b: Bench) => Promise<Row | Row[]>][] = [
  ['user', 'GET /api/user', userGetRow],
  ['router', 'Routing: @koa/router vs the endpoint table', routerRow],
  ['files', 'GET /api/files/?limit=100', filesPageRow],
  ['listing', 'Full listing of the big folder', fullListingRow],
  ['search', 'Search 100,000 files', searchRow],
  ['role', 'Concurrent POST /api/user/role', groupCommitRow],
  ['events', 'The event stream: 1,000 subscribers', eventsRow],
  ['watcher', 'File copied into the storage dir', watcherRow],
  ['watchers', 'Watching the storage folder: chokidar 6', watchersRow('chokidar')],
  ['watchers', "Watching the storage folder: Nimbus's inotify reader", watchersRow('nimbus')],
  ['watchers', 'Watching the storage folder: @parcel/watcher', watchersRow('parcel')],
  ['watchers', 'Watching the storage folder: fs.watch per directory', watchersRow('fs-watch')],
  ['download', 'Download of the big file', downloadRow],
  ['upload', 'Upload of the big file', uploadRow],
  ['form-upload', 'Form upload of the big file', formUploadRow],
  ['zip', 'Zip of the big file’s folder', zipRow],
  ['ui', 'UI: open the big folder', uiRow],
  ['dav', 'WebDAV beside nginx, rclone serve and a bare server', davRows],
  ['small', 'Small files: the API beside a bare server and nginx', smallFileRows],
  // Its own daemon (its users need real password hashes); the bench's daemon idles meanwhile.
  ['passwords', 'Passwords: argon2id beside the old scrypt, and sign-ins per second', passwordRows],
  // Its own data and daemons (a million files at full size); the bench's daemon idles meanwhile.
  ['tree', 'A tree of BENCH_TREE_FILES files up to 12 levels deep', treeRows],
  // Last: it starts PostgreSQL, Swift and more daemons, which would load the machine under the others.
  ['cluster', 'PostgreSQL + S3 beside the embedded daemon', clusterRows],
  ['small-cluster', 'Small files on PostgreSQL + S3 beside a bare server there', smallClusterRows],
  ['tree-cluster', 'A subtree move on PostgreSQL + S3', treeClusterRows],
];

const log = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<number> {
  const started = performance.now();
  const machine = describeMachine();
  const spec = specFor(scale);
  const parent = env.BENCH_DIR ?? os.tmpdir();
  const free = freeBytes(parent);
  if (free < diskNeeded(spec)) {
    log(`bench: ${parent} has ${fmt.mib(free)} free; the run needs ${fmt.mib(diskNeeded(spec))}. Set BENCH_DIR to a roomier disk.`);
    return 1;
  }
  const keep = env.BENCH_DATA !== undefined;
  const root = keep ? path.resolve(env.BENCH_DATA!) : mkdtempSync(path.join(parent, 'nimbus-bench-'));
  mkdirSync(root, { recursive: true });
  const children: NimbusProcess[] = [];
  const cleanUp = () => (keep ? undefined : rmSync(root, { recursive: true, force: true }));
  process.once('SIGINT', () => {
    for (const c of children) c.child.proc.kill('SIGKILL');
    cleanUp();
    process.exit(130);
  });
  log(
    `Nimbus bench: ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, load ${machine.loadBefore}; scale ${scale}, ${rounds} rounds, ${seconds} s runs (${LOADGEN}); data in ${root}`,
  );
  const rows: Row[] = [];
  try {
    let t = performance.now();
    const { ds, reused } = await buildDataset(root, spec);
    const datasetLine = `${spec.users.toLocaleString('en-US')} users, ${spec.files.toLocaleString('en-US')} files in ${spec.folders.toLocaleString('en-US')} folders (one of ${spec.bigFolderFiles.toLocaleString('en-US')}), a ${fmt.mib(spec.bigFileBytes)} file`;
    log(`dataset: ${datasetLine}, ${reused ? 'reused' : 'built'} in ${fmt.ms(performance.now() - t)}`);
    const key = `bench-${randomBytes(16).toString('hex')}`;
    const nodeArgs = [
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      ...(env.BENCH_DAEMON_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    ];
    if (profileDir) mkdirSync(profileDir, { recursive: true });

    t = performance.now();
    log('start-up and idle memory…');
    const startup = await startupRows(ds, key, rounds, nodeArgs, log);
    const nimbus = startup.nimbus;
    children.push(nimbus);
    if (!only || only.has('startup')) rows.push(...startup.rows);
    log(`  (${fmt.ms(performance.now() - t)})`);

    const bench: Bench = { ds, root, nimbus, seconds, rounds, log };
    for (const [k, title, run] of SCENARIOS) {
      if (only && !only.has(k)) continue;
      t = performance.now();
      log(`${title}…`);
      try {
        rows.push(...[await run(bench)].flat());
      } catch (err) {
        log(`  failed: ${(err as Error).stack ?? String(err)}`);
        rows.push(notMeasured(title, '—', `the scenario failed: ${(err as Error).message.slice(0, 300)}`));
      }
      log(`  (${fmt.ms(performance.now() - t)})`);
      if (nimbus.child.proc.exitCode !== null || nimbus.child.proc.signalCode !== null) {
        throw new Error(
          `the daemon exited (${nimbus.child.proc.exitCode ?? nimbus.child.proc.signalCode}) during "${title}": ${nimbus.child.stderr().slice(-3000)}`,
        );
      }
    }
    const rssAfter = rssOf(nimbus.pid);
    await nimbus.child.stop();

    const durationS = (performance.now() - started) / 1000;
    log(`\n${textTable(rows)}\n`);
    log(`Daemon RSS after every scenario: ${fmt.mib(rssAfter)}. Whole run ${durationS.toFixed(0)} s.`);
    const full = scale === 1 && !only && !keep;
    const out = full ? path.join(ROOT, 'bench', 'RESULTS.md') : path.join(ROOT, 'bench', 'data', `RESULTS-scale-${scale}.md`);
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(
      out,
      results({
        rows,
        info: {
          machine,
          date: new Date().toISOString(),
          scale,
          seconds,
          rounds,
          loadgen: LOADGEN,
          durationS,
          dataset: datasetLine,
          daemonRuntime: DAEMON_RUNTIME,
        },
        rssAfter,
      }),
    );
    log(`Wrote ${path.relative(process.cwd(), out)}`);
    return 0;
  } finally {
    for (const c of children) await c.child.stop();
    cleanUp();
  }
}

function results({ rows, info, rssAfter }: { rows: Row[]; info: Parameters<typeof machineSection>[0]; rssAfter: number }): string {
  const notesFile = path.join(ROOT, 'bench', 'NOTES.md');
  const notes = existsSync(notesFile) ? readFileSync(notesFile, 'utf8').trim() : '';
  return `# Nimbus benchmark results

Written by \`npm run bench\` (bench/run.ts); the notes at the end come from bench/NOTES.md.

${machineSection(info)}
- Daemon RSS after every scenario had run: ${fmt.mib(rssAfter)}

## Results

Ratio = Nimbus ÷ baseline (for the store row, baseline time ÷ Nimbus time).

${markdownTable(rows)}

## How each row was measured

${detailList(rows)}

${notes}
`;
}

process.exitCode = await main();
