/**
 * The tree rows that change the tree, on the running tree daemon; each leaves the tree as it
 * found it (the data is reused by the next run):
 * - a subtree move (`park-a/moved`, a tenth of the files) to `park-b` and back, against the
 *   same moves of an empty folder (`park-a/empty`): O(1) means the two cost the same;
 * - a tree copied into `drop` by `cp -r`, from the start of the copy until folders.list counts
 *   every file of it, against the `cp` alone; then removed with `rm -rf` (untimed).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Bench } from './context.js';
import { cpuMsOf, QUIET_CPU_MS, QUIET_WINDOW_MS, waitUntilQuiet } from './machine.js';
import { api, pollUntil, type NimbusProcess } from './nimbus.js';
import { fmt, verdict, type Row } from './report.js';
import { median } from './stats.js';
import type { TreeDataset } from './tree-dataset.js';
import { DROP, EMPTY, MOVED, PARK_A, PARK_B, TREE_USER } from './tree-layout.js';

const exec = promisify(execFile);
/** "O(1)": a subtree move within this factor of an empty folder's (both a few ms; the factor is the noise). */
const MOVE_FACTOR = 2;
const VISIBLE_TIMEOUT_MS = 5 * 60_000;

interface FolderEntry {
  name: string;
  path: string;
  fileCount: number;
  folderCount: number;
}

const listFolders = (n: NimbusProcess, folder: string) =>
  api<{ folders: FolderEntry[] }>(n, 'GET', '/api/folders', { username: TREE_USER, folder }).then((r) => r.folders);

interface Moved {
  /** Request to the 201. */
  ms: number;
  /** The daemon's CPU from the request until it was quiet again (what the move set off: the watcher's echo, too). */
  cpuMs: number;
}

async function timedMove(n: NimbusProcess, folder: string, to: string): Promise<Moved> {
  await waitUntilQuiet(n.pid);
  const cpu = cpuMsOf(n.pid);
  const t = performance.now();
  await api(n, 'POST', '/api/folders/move', { username: TREE_USER, folder, to });
  const ms = performance.now() - t;
  await waitUntilQuiet(n.pid);
  // Less the quiet window's own allowance, so an idle daemon counts about 0.
  return { ms, cpuMs: Math.max(0, cpuMsOf(n.pid) - cpu - QUIET_CPU_MS) };
}

export async function moveRow(b: Bench, n: NimbusProcess, ds: TreeDataset): Promise<Row> {
  const big: Moved[] = [];
  const empty: Moved[] = [];
  const name = (p: string) => path.posix.basename(p);
  const show = (m: Moved[]) => m.map((x) => `${fmt.ms(x.ms)} (CPU ${fmt.ms(x.cpuMs)})`).join(', ');
  // A warm-up round first, not counted; then each round moves both there and back (two samples each), the daemon quiet before each.
  for (let round = -1; round < b.rounds; round++) {
    const times = [
      await timedMove(n, MOVED, PARK_B),
      await timedMove(n, `${PARK_B}/${name(MOVED)}`, PARK_A),
      await timedMove(n, EMPTY, PARK_B),
      await timedMove(n, `${PARK_B}/${name(EMPTY)}`, PARK_A),
    ];
    if (round >= 0) {
      big.push(times[0], times[1]);
      empty.push(times[2], times[3]);
    }
    b.log(`  move round ${round + 1}: subtree ${show(times.slice(0, 2))}; empty ${show(times.slice(2))}`);
  }
  // The subtree came back whole, counted where it is.
  const moved = (await listFolders(n, PARK_A)).find((f) => f.name === name(MOVED));
  if (moved?.fileCount !== ds.spec.movedFiles) {
    throw new Error(`after the moves ${MOVED} counts ${moved?.fileCount} files, not ${ds.spec.movedFiles}`);
  }
  const ms = (m: Moved[]) => median(m.map((x) => x.ms));
  const cpu = (m: Moved[]) => median(m.map((x) => x.cpuMs));
  const ratio = ms(big) / ms(empty);
  // CPU is counted in clock ticks (10 ms): below a few ticks the ratio says nothing, so the goal is "within MOVE_FACTOR or 50 ms".
  const cpuOk = cpu(big) <= Math.max(MOVE_FACTOR * cpu(empty), 50);
  const files = ds.spec.movedFiles.toLocaleString('en-US');
  return {
    scenario: `Tree: move a subtree of ${files} files (POST /api/folders/move)`,
    nimbus: `median ${fmt.ms(ms(big))}, daemon CPU ${fmt.ms(cpu(big))}`,
    baseline: `median ${fmt.ms(ms(empty))}, CPU ${fmt.ms(cpu(empty))} (an empty folder)`,
    ratio: `${fmt.ratio(ratio)} time`,
    target: `≤ ${MOVE_FACTOR}× time and CPU (O(1))`,
    verdict: verdict(ratio <= MOVE_FACTOR && cpuOk),
    detail:
      `\`POST /api/folders/move?username=${TREE_USER}&folder=${MOVED}&to=${PARK_B}\` and back, ${b.rounds} rounds after one warm-up round (two samples a round), ` +
      `request to the 201, and the daemon's CPU time (/proc/<pid>/stat) from the request until it was quiet again (under ${QUIET_CPU_MS} ms of CPU in ${QUIET_WINDOW_MS} ms, that allowance taken off): ` +
      `what the move set off in the background counts too, the watcher's echo of the rename included. Each move starts on a quiet daemon. ` +
      `${files} files in ${ds.spec.movedFolders.toLocaleString('en-US')} folders: ${show(big)}; the same moves of \`${EMPTY}\` (no file, no folder): ${show(empty)}. ` +
      `Afterwards folders.list counts the subtree's ${moved.fileCount.toLocaleString('en-US')} files in ${moved.folderCount.toLocaleString('en-US')} folders below it.`,
  };
}

export async function copyRow(b: Bench, n: NimbusProcess, ds: TreeDataset): Promise<Row> {
  const drop = path.join(ds.treeDir, 'storage', TREE_USER, DROP);
  const copied: number[] = [];
  const visible: number[] = [];
  let seen: FolderEntry | undefined;
  for (let round = 0; round < b.rounds; round++) {
    const name = `copy-${round}`;
    const t = performance.now();
    await exec('cp', ['-r', ds.copySource, path.join(drop, name)]);
    copied.push(performance.now() - t);
    seen = await pollUntil(
      async () => (await listFolders(n, DROP)).find((f) => f.name === name && f.fileCount === ds.spec.copyFiles),
      VISIBLE_TIMEOUT_MS,
      20,
    );
    visible.push(performance.now() - t);
    await exec('rm', ['-rf', path.join(drop, name)]);
    await pollUntil(async () => ((await listFolders(n, DROP)).some((f) => f.name === name) ? undefined : true), VISIBLE_TIMEOUT_MS, 100);
    b.log(`  cp -r round ${round + 1}: cp ${fmt.ms(copied.at(-1)!)}, all visible after ${fmt.ms(visible.at(-1)!)}`);
  }
  const files = ds.spec.copyFiles.toLocaleString('en-US');
  const lag = visible.map((v, i) => v - copied[i]);
  return {
    scenario: `Tree: ${files} files in ${ds.spec.copyFolders.toLocaleString('en-US')} folders copied in by cp -r, all visible through the API`,
    nimbus: `median ${fmt.ms(median(visible))}`,
    baseline: `median ${fmt.ms(median(copied))} (the cp -r)`,
    ratio: fmt.ratio(median(visible) / median(copied)),
    target: 'every file counted',
    verdict: verdict(visible.length === b.rounds),
    detail:
      `\`cp -r\` of a tree (three folders a folder) into ${TREE_USER}/${DROP} by another program, from the copy's start until \`GET /api/folders?folder=${DROP}\` counts all ${files} files below it ` +
      `(${seen?.folderCount.toLocaleString('en-US')} folders below it), polled every 20 ms; ${fmt.list(visible, fmt.ms)}; the cp alone ${fmt.list(copied, fmt.ms)}; ` +
      `so visible ${fmt.list(lag, fmt.ms)} after the cp returned. Removed with rm -rf after each round, untimed.`,
  };
}
