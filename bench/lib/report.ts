/** The results table: one row per scenario, printed and written to bench/RESULTS.md. */
import type { Machine } from './machine.js';

export type Verdict = 'met' | 'missed' | 'not measured' | 'info';

export interface Row {
  scenario: string;
  nimbus: string;
  baseline: string;
  ratio: string;
  target: string;
  verdict: Verdict;
  /** Per-round numbers and anything else a reader needs to judge the row. */
  detail: string;
}

export const fmt = {
  ms: (v: number) => (v >= 100 ? `${v.toFixed(0)} ms` : `${v.toFixed(1)} ms`),
  rps: (v: number) => `${Math.round(v).toLocaleString('en-US')} req/s`,
  mibps: (bytesPerSec: number) => `${(bytesPerSec / 2 ** 20).toFixed(0)} MiB/s`,
  mib: (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`,
  ratio: (v: number) => `${v.toFixed(2)}×`,
  list: (values: number[], f: (v: number) => string) => values.map(f).join(', '),
};

export const verdict = (ok: boolean): Verdict => (ok ? 'met' : 'missed');

export function notMeasured(scenario: string, target: string, reason: string): Row {
  return { scenario, nimbus: `not measured: ${reason}`, baseline: '—', ratio: '—', target, verdict: 'not measured', detail: reason };
}

const MARK: Record<Verdict, string> = { met: '✅ met', missed: '❌ missed', 'not measured': '⚠️ not measured', info: 'ℹ️ for reference' };

export function markdownTable(rows: Row[]): string {
  const lines = ['| Scenario | Nimbus (median) | Baseline (median) | Ratio | Target | Result |', '|---|---|---|---|---|---|'];
  for (const r of rows) lines.push(`| ${[r.scenario, r.nimbus, r.baseline, r.ratio, r.target, MARK[r.verdict]].map(cell).join(' | ')} |`);
  return lines.join('\n');
}

export function detailList(rows: Row[]): string {
  return rows.map((r) => `- **${cell(r.scenario)}**: ${r.detail}`).join('\n');
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A plain-text table for the terminal. */
export function textTable(rows: Row[]): string {
  const head = ['Scenario', 'Nimbus', 'Baseline', 'Ratio', 'Target', 'Result'];
  const data = rows.map((r) => [r.scenario, r.nimbus, r.baseline, r.ratio, r.target, MARK[r.verdict]]);
  const widths = head.map((h, i) => Math.min(60, Math.max(h.length, ...data.map((d) => d[i].length))));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...data.map(line)].join('\n');
}

export interface RunInfo {
  machine: Machine;
  date: string;
  scale: number;
  seconds: number;
  rounds: number;
  loadgen: string;
  durationS: number;
  dataset: string;
  daemonRuntime: string;
}

export function machineSection(info: RunInfo): string {
  const m = info.machine;
  return [
    `- Date: ${info.date}`,
    `- Machine: ${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB memory, ${m.os}`,
    `- Node ${m.node}; daemon run as \`${info.daemonRuntime}\``,
    `- Load average before the run: ${m.loadBefore}`,
    `- Scale ${info.scale} (BENCH_SCALE): ${info.dataset}`,
    `- ${info.rounds} alternating rounds per scenario (Nimbus, baseline, Nimbus, baseline, …); HTTP load: ${info.loadgen}, ${info.seconds} s per run; medians over rounds`,
    `- Whole run: ${info.durationS.toFixed(0)} s`,
  ].join('\n');
}
