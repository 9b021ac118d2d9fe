/** What `nimbus migrate` says: progress while it copies, and the summary that decides its exit code. */
import { formatBytes } from './streams.js';

export interface MigrationReport {
  /** Per collection: [source, target]. */
  counts: Record<string, [number, number]>;
  /** Each difference found, named; any makes the command fail. */
  mismatches: string[];
  /** Files whose bytes were checked, and their bytes. */
  files: number;
  bytes: number;
  ms: number;
  notes: string[];
}

/** "Copied 120/5000 files (1.2 GiB)": after the first file, then every 100 files or 5 seconds, and at the end. */
export class Progress {
  #done = 0;
  #bytes = 0;
  #lastAt = 0;

  constructor(
    private readonly verb: string,
    private readonly total: number,
    private readonly out: (line: string) => void,
  ) {}

  step(bytes: number): void {
    this.#done++;
    this.#bytes += bytes;
    const now = Date.now();
    if (this.#done === 1 || this.#done % 100 === 0 || now - this.#lastAt >= 5000) this.#print(now);
  }

  done(): void {
    if (this.total > 0) this.#print(Date.now());
  }

  #print(now: number): void {
    this.#lastAt = now;
    this.out(`${this.verb} ${this.#done}/${this.total} files (${formatBytes(this.#bytes)})`);
  }
}

/** The summary's lines; the last says whether the migration is verified. */
export function summaryLines(report: MigrationReport): string[] {
  const lines = ['Collection      source  target'];
  for (const [name, [a, b]] of Object.entries(report.counts))
    lines.push(`${name.padEnd(14)} ${String(a).padStart(7)} ${String(b).padStart(7)}${a === b ? '' : '  DIFFERENT'}`);
  lines.push(`Files checked: ${report.files} (${formatBytes(report.bytes)}) in ${(report.ms / 1000).toFixed(1)} s`);
  lines.push(...report.notes);
  for (const m of report.mismatches) lines.push(`MISMATCH ${m}`);
  lines.push(
    report.mismatches.length === 0 && countsEqual(report)
      ? 'Verified: every count equal, every file checked by sha256.'
      : `NOT verified: ${report.mismatches.length} mismatch(es). Run the migration again (it carries on), or see above.`,
  );
  return lines;
}

export const countsEqual = (report: MigrationReport) => Object.values(report.counts).every(([a, b]) => a === b);

export const reportOk = (report: MigrationReport) => report.mismatches.length === 0 && countsEqual(report);
