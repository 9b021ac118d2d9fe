/** The tree scenario's start-up rows: index ready and idle RSS, against the one-level copy and `find`. */
import { fmt, verdict, type Row } from './report.js';
import { median } from './stats.js';
import { medianRss, type IdleState, type StartTimes } from './tree-daemons.js';
import type { TreeSpec } from './tree-layout.js';

const READY_GOAL_MS = 15_000;
const RSS_GOAL = 2 ** 30;

export interface StartResults {
  spec: TreeSpec;
  tree: StartTimes[];
  flat: StartTimes[];
  /** `find | wc -l` of the tree's storage folder, one per round. */
  finds: number[];
  /** One per round. */
  treeIdle: IdleState[];
  flatIdle: IdleState[];
}

export function treeStartRows(r: StartResults): Row[] {
  const files = r.spec.files.toLocaleString('en-US');
  const folders = r.spec.folders.toLocaleString('en-US');
  const users = r.spec.smallUsers.toLocaleString('en-US');
  const what = `${files} files in ${folders} folders up to 12 deep + ${users} users with small trees`;
  const ready = median(r.tree.map((t) => t.ready));
  const flatReady = median(r.flat.map((t) => t.ready));
  const find = median(r.finds);
  const rss = median(r.treeIdle.map(medianRss));
  const flatRss = median(r.flatIdle.map(medianRss));
  const watcher = (s: IdleState[]) =>
    `watcher ${[...new Set(s.map((i) => i.watcher))].join('/')} after ${s.map((i) => (i.watcherMs === null ? 'never' : fmt.ms(i.watcherMs))).join(', ')}`;
  return [
    {
      scenario: `Tree start-up, ${what}: index ready`,
      nimbus: fmt.ms(ready),
      baseline: `${fmt.ms(find)} (find | wc -l); ${fmt.ms(flatReady)} (one level)`,
      ratio: `${fmt.ratio(ready / find)} find; ${fmt.ratio(ready / flatReady)} one level`,
      target: `< ${READY_GOAL_MS / 1000} s`,
      verdict: verdict(ready < READY_GOAL_MS),
      detail:
        `spawn of \`nimbus daemon\` (a fresh process each round) to /api/dash reporting \`index.state: ready\` with every file and folder counted; ` +
        `rounds ${fmt.list(
          r.tree.map((t) => t.ready),
          fmt.ms,
        )} (API answering after ${fmt.list(
          r.tree.map((t) => t.answering),
          fmt.ms,
        )}). ` +
        `Baselines in the same rounds: \`find <storage> | wc -l\` of the tree just before the tree daemon's start (the page cache as warm as the daemon finds it) ${fmt.list(r.finds, fmt.ms)}; ` +
        `a daemon on the same files with every folder one level deep (hard links, folder paths made one name) ${fmt.list(
          r.flat.map((t) => t.ready),
          fmt.ms,
        )}, started just before each tree daemon.`,
    },
    {
      scenario: `Tree idle RSS, ${what}`,
      nimbus: fmt.mib(rss),
      baseline: `${fmt.mib(flatRss)} (one level)`,
      ratio: fmt.ratio(rss / flatRss),
      target: '< 1 GiB',
      verdict: verdict(rss < RSS_GOAL),
      detail:
        `VmRSS of the tree daemon 5 s after its watcher was up (${watcher(r.treeIdle)} from spawn), median of 5 samples, per round ${fmt.list(r.treeIdle.map(medianRss), fmt.mib)}; ` +
        `the one-level daemon the same way in the same rounds (${watcher(r.flatIdle)}): ${fmt.list(r.flatIdle.map(medianRss), fmt.mib)}.`,
    },
  ];
}
