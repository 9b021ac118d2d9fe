/**
 * Prints the hottest functions of a V8 CPU profile (`node --cpu-prof`) by self time and
 * by total time: `node --import tsx bench/profile-summary.ts <file.cpuprofile> [top] [fromMs]`.
 * The bench writes profiles with BENCH_PROFILE=1. `fromMs` keeps only the samples taken that
 * long after the profile started (to leave out a daemon's start-up when profiling one row).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export function summarize(file: string, top = 30, fromMs = 0): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  let elapsed = 0;
  profile.samples.forEach((id, i) => {
    elapsed += profile.timeDeltas[i] ?? 0;
    if (elapsed >= fromMs * 1000) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const label = (n: ProfileNode) => {
    const url = n.callFrame.url.replace(/^.*\/(node_modules\/)?/, (m) => (m.includes('node_modules') ? 'nm:' : ''));
    return `${n.callFrame.functionName || '(anonymous)'} ${url}:${n.callFrame.lineNumber + 1}`;
  };
  const selfBy = new Map<string, number>();
  const totalBy = new Map<string, number>();
  let all = 0;
  for (const [id, t] of self) {
    all += t;
    const n = byId.get(id)!;
    selfBy.set(label(n), (selfBy.get(label(n)) ?? 0) + t);
    // Total: count each label once per sample's stack.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const l = label(byId.get(cur)!);
      if (seen.has(l)) continue;
      seen.add(l);
      totalBy.set(l, (totalBy.get(l) ?? 0) + t);
    }
  }
  const fmt = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([l, t]) => `${((t / all) * 100).toFixed(1).padStart(5)}%  ${(t / 1000).toFixed(0).padStart(7)} ms  ${l}`)
      .join('\n');
  return `total ${(all / 1000).toFixed(0)} ms\n-- self --\n${fmt(selfBy)}\n-- total --\n${fmt(totalBy)}`;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, ''))) {
  process.stdout.write(`${summarize(process.argv[2], Number(process.argv[3] ?? 30), Number(process.argv[4] ?? 0))}\n`);
}
