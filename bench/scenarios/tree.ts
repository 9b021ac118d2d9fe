/**
 * Issue 25's scale rows (`BENCH_ONLY=tree`): a tree of BENCH_TREE_FILES files (default
 * 1,000,000) in a tenth as many folders, up to 12 levels deep, in one user, beside a hundredth
 * as many users with small trees (bench/lib/tree-layout.ts). Each row beside a same-run baseline:
 * - index ready and idle RSS: against the same files with every folder one level deep (a second
 *   data directory of hard links, its own daemon) and `find | wc -l` of the tree;
 * - a full listing of the 10,000-file folder at depth 10 against the same folder in the one-level
 *   copy (its path made one name: the same bytes), and against the same files in a folder at
 *   depth 1 of the tree's daemon (`top`: shorter paths, fewer bytes), alternating;
 * - search over the whole tree against the same search over the one-level copy;
 * - moving a subtree of 100,000 files against moving an empty folder, and a tree copied in by
 *   `cp -r` until the API counts all of it, against the `cp` itself (bench/lib/tree-changes.ts).
 * The two daemons run one after the other (bench/lib/tree-daemons.ts says why), so the search
 * and listing baselines of the one-level copy are measured minutes before the tree's, not
 * alternating with them.
 */
import path from 'node:path';
import type { Bench } from '../lib/context.js';
import { freeBytes } from '../lib/machine.js';
import { request, ROOT, type NimbusProcess } from '../lib/nimbus.js';
import { fmt, notMeasured, verdict, type Row } from '../lib/report.js';
import { median, percentile } from '../lib/stats.js';
import { copyRow, moveRow } from '../lib/tree-changes.js';
import { buildTreeDataset, treeDiskNeeded, type TreeDataset } from '../lib/tree-dataset.js';
import { idleState, medianRss, startAndTime, timeFind, type IdleState, type StartTimes } from '../lib/tree-daemons.js';
import { DEEP_FOLDER, fileName, flatName, TOP_FOLDER, TREE_USER, treeSpecFor } from '../lib/tree-layout.js';
import { treeStartRows } from '../lib/tree-start-rows.js';

const FILES = Number(process.env.BENCH_TREE_FILES ?? 1_000_000);
const PROFILE_ARGS =
  process.env.BENCH_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${path.join(ROOT, 'bench', 'data', 'profiles')}`] : [];
const WARM_UPS = 3;
/** Per folder, daemon and round. */
const LISTINGS = 10;
/** Per query, daemon and round. */
const SEARCHES = 10;
/** "As fast as today's one-level rows": within this factor of the one-level baseline (the noise of a shared machine). */
const SAME_SPEED = 1.25;

export async function treeRows(b: Bench): Promise<Row[]> {
  const spec = treeSpecFor(FILES);
  const files = spec.files.toLocaleString('en-US');
  if (freeBytes(b.root) < treeDiskNeeded(spec)) {
    return [
      notMeasured(
        `Tree of ${files} files`,
        '—',
        `${b.root} has ${fmt.mib(freeBytes(b.root))} free, the tree needs ${fmt.mib(treeDiskNeeded(spec))}`,
      ),
    ];
  }
  const t = performance.now();
  const { ds, reused } = buildTreeDataset(b.root, spec, b.log);
  b.log(
    `  tree data ${reused ? 'reused' : 'built'} (${fmt.ms(performance.now() - t)}): ${ds.totals.files.toLocaleString('en-US')} files, ${ds.totals.folders.toLocaleString('en-US')} folders`,
  );

  const tree: StartTimes[] = [];
  const flat: StartTimes[] = [];
  const finds: number[] = [];
  const treeIdle: IdleState[] = [];
  const flatIdle: IdleState[] = [];
  const treeSearch: Searched[] = [];
  const flatSearch: Searched[] = [];
  const listed: Listed = { deep: [], flat: [], top: [], bytes: { deep: 0, flat: 0, top: 0 } };
  let daemon: NimbusProcess | null = null;
  try {
    // Alternating rounds, each daemon fresh: ready, its watcher up, idle RSS, then the searches.
    for (let round = 0; round < b.rounds; round++) {
      const f = await startAndTime(ds.flatDir, b.nimbus.key, PROFILE_ARGS, ds.totals);
      flat.push(f.t);
      flatIdle.push(await idleState(f.n));
      flatSearch.push(await searches(b, f.n, ds, 'one level'));
      await listings(f.n, [['flat', flatName(DEEP_FOLDER)]], listed);
      await f.n.child.stop();
      finds.push((await timeFind(path.join(ds.treeDir, 'storage'))).ms);
      const d = await startAndTime(ds.treeDir, b.nimbus.key, PROFILE_ARGS, ds.totals);
      daemon = d.n;
      tree.push(d.t);
      treeIdle.push(await idleState(d.n));
      treeSearch.push(await searches(b, d.n, ds, 'tree'));
      await listings(
        d.n,
        [
          ['deep', DEEP_FOLDER],
          ['top', TOP_FOLDER],
        ],
        listed,
      );
      if (round < b.rounds - 1) await d.n.child.stop();
      b.log(
        `  round ${round + 1}: ready tree ${fmt.ms(d.t.ready)}, flat ${fmt.ms(f.t.ready)}, find ${fmt.ms(finds.at(-1)!)}; ` +
          `idle RSS tree ${fmt.mib(medianRss(treeIdle.at(-1)!))}, flat ${fmt.mib(medianRss(flatIdle.at(-1)!))}`,
      );
    }
    const n = daemon!;
    const rows = treeStartRows({ spec, tree, flat, finds, treeIdle, flatIdle });
    rows.push(searchRow(ds, treeSearch, flatSearch), listingRow(ds, listed));
    const attempt = async (title: string, run: () => Promise<Row>) => {
      try {
        rows.push(await run());
      } catch (err) {
        b.log(`  failed: ${(err as Error).stack ?? String(err)}`);
        rows.push(notMeasured(title, '—', `the row failed: ${(err as Error).message.slice(0, 300)}`));
      }
    };
    await attempt('Tree: subtree move', () => moveRow(b, n, ds));
    await attempt('Tree: cp -r', () => copyRow(b, n, ds));
    return rows;
  } finally {
    await daemon?.child.stop();
  }
}

async function timedGet(n: NimbusProcess, route: string): Promise<{ ms: number; bytes: number; total: string }> {
  const start = performance.now();
  const reply = await request('GET', `${n.url}${route}`, n.key);
  const ms = performance.now() - start;
  if (reply.status !== 200) throw new Error(`GET ${route} answered ${reply.status}: ${reply.body.toString().slice(0, 200)}`);
  return { ms, bytes: reply.body.length, total: String(reply.headers['x-total-count'] ?? '?') };
}

interface Listed {
  deep: number[];
  flat: number[];
  top: number[];
  bytes: { deep: number; flat: number; top: number };
}

const listRoute = (folder: string) => `/api/folders/files?username=${TREE_USER}&folder=${encodeURIComponent(folder)}`;

/** Full listings of each folder, alternating between them, after warm-ups; times and body sizes into `into`. */
async function listings(n: NimbusProcess, folders: [keyof Listed['bytes'], string][], into: Listed): Promise<void> {
  for (let i = 0; i < WARM_UPS + LISTINGS; i++) {
    for (const [which, folder] of folders) {
      const r = await timedGet(n, listRoute(folder));
      into.bytes[which] = r.bytes;
      if (i >= WARM_UPS) into[which].push(r.ms);
    }
  }
}

/**
 * The folder at depth 10 against the same folder one level deep in the one-level copy (the
 * same names and the same bytes: what depth itself costs), and against `top` in the same
 * daemon (depth 1, shorter paths: the bytes every entry's longer `folder` adds as well).
 */
function listingRow(ds: TreeDataset, l: Listed): Row {
  const ratio = median(l.deep) / median(l.flat);
  const topRatio = median(l.deep) / median(l.top);
  const count = ds.spec.deepFiles.toLocaleString('en-US');
  const perEntry = (bytes: number) => `${(bytes / 2 ** 20).toFixed(2)} MiB, ${Math.round(bytes / ds.spec.deepFiles)} bytes an entry`;
  return {
    scenario: `Tree: full listing of a ${count}-file folder at depth 10`,
    nimbus: `median ${fmt.ms(median(l.deep))}, p95 ${fmt.ms(percentile(l.deep, 95))}`,
    baseline: `one level median ${fmt.ms(median(l.flat))}, p95 ${fmt.ms(percentile(l.flat, 95))}; depth 1 (\`${TOP_FOLDER}\`) ${fmt.ms(median(l.top))}`,
    ratio: `${fmt.ratio(ratio)} (${fmt.ratio(topRatio)} depth 1)`,
    target: `≤ ${SAME_SPEED}× one level`,
    verdict: verdict(ratio <= SAME_SPEED),
    detail:
      `\`GET ${listRoute(DEEP_FOLDER)}\` on the tree's daemon, alternating with \`GET ${listRoute(TOP_FOLDER)}\` (the same ${count} names and sizes at depth 1), ` +
      `against \`GET ${listRoute(flatName(DEEP_FOLDER))}\` (the same folder with its path made one name) on the one-level daemon; ` +
      `${LISTINGS} of each per start-up round after ${WARM_UPS} warm-ups, request to last byte. Bodies: depth 10 ${perEntry(l.bytes.deep)}, ` +
      `one level ${perEntry(l.bytes.flat)}, depth 1 ${perEntry(l.bytes.top)} (each entry carries its folder's path, so the ratio to depth 1 is mostly bytes).`,
  };
}

interface Searched {
  per: { q: string; total: string; times: number[] }[];
}

/** Queries from one hit to a tenth of the tree, and one that matches nothing (the bare walk). */
const queries = (ds: TreeDataset) => [
  fileName(ds.spec.files - ds.spec.deepFiles - 1).replace(/\.\w+$/, ''),
  'FILE-000',
  '.PDF',
  'no-such-name',
];

async function searches(b: Bench, n: NimbusProcess, ds: TreeDataset, which: string): Promise<Searched> {
  const per: Searched['per'] = [];
  for (const q of queries(ds)) {
    const route = `/api/files/search?username=${TREE_USER}&q=${encodeURIComponent(q)}&limit=100`;
    const times: number[] = [];
    let total = '';
    for (let i = 0; i < WARM_UPS + SEARCHES; i++) {
      const r = await timedGet(n, route);
      total = r.total;
      if (i >= WARM_UPS) times.push(r.ms);
    }
    per.push({ q, total, times });
    b.log(`  search (${which}) ${q}: ${total} hits, median ${fmt.ms(median(times))}`);
  }
  return { per };
}

function searchRow(ds: TreeDataset, tree: Searched[], flat: Searched[]): Row {
  const all = (s: Searched[]) => s.flatMap((r) => r.per.flatMap((p) => p.times));
  const perQuery = (s: Searched[]) => s[0].per.map((p, i) => ({ q: p.q, total: p.total, times: s.flatMap((r) => r.per[i].times) }));
  const ratio = median(all(tree)) / median(all(flat));
  const each = (s: Searched[]) =>
    perQuery(s)
      .map((p) => `\`${p.q}\` ${p.total} hits, median ${fmt.ms(median(p.times))}, p95 ${fmt.ms(percentile(p.times, 95))}`)
      .join('; ');
  const totals = (s: Searched[]) => s.flatMap((r) => r.per.map((p) => p.total)).join();
  const mismatch = totals(tree) !== totals(flat);
  return {
    scenario: `Tree: search ${ds.spec.files.toLocaleString('en-US')} files at every depth (limit=100)`,
    nimbus: `median ${fmt.ms(median(all(tree)))}, p95 ${fmt.ms(percentile(all(tree), 95))}`,
    baseline: `median ${fmt.ms(median(all(flat)))}, p95 ${fmt.ms(percentile(all(flat), 95))} (one level)`,
    ratio: fmt.ratio(ratio),
    target: `≤ ${SAME_SPEED}× one level`,
    verdict: mismatch ? 'missed' : verdict(ratio <= SAME_SPEED),
    detail:
      `\`GET /api/files/search?username=${TREE_USER}&q=…&limit=100\`, in each start-up round once the daemon's watcher was up: ${SEARCHES} sequential requests per query after ${WARM_UPS} warm-ups, request to last byte. ` +
      `Tree: ${each(tree)}. Baseline, the same files with every folder path made one name (\`${flatName('a/b')}\`) in their own daemon, in the same rounds just before the tree's: ${each(flat)}.` +
      (mismatch ? ' The hit counts differ between the two: a bug, the row is missed.' : ''),
  };
}
