/** What every `nimbus` command shares: its configuration, a refusal that exits 1, and who holds the data directory. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { resolveConfig, type ConfigInput, type DaemonConfig } from '../config.js';
import { PACKAGE_ROOT } from '../version.js';

/**
 * A refusal with a message for the operator: the dispatcher prints `nimbus <command>: <message>`
 * and exits 1. Thrown before anything is changed, so a bad input leaves everything as it was.
 */
export class CommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandError';
  }
}

/** The options a command takes besides the configuration flags, as node:util's parseArgs takes them. */
export type Options = Record<string, { type: 'string' | 'boolean'; short?: string }>;

/** One command: its own options, its --help text, and what it does with the parsed line. */
export interface Command {
  options: Options;
  help: string;
  run(args: string[], values: Record<string, string | boolean | undefined>, input: ConfigInput): Promise<number>;
}

export function configFor(input: ConfigInput, env: NodeJS.ProcessEnv = process.env): DaemonConfig {
  return resolveConfig(input, env, path.join(PACKAGE_ROOT, 'renderer', 'dist'));
}

export const say = (line = ''): void => void process.stdout.write(`${line}\n`);
export const warn = (line: string): void => void process.stderr.write(`${line}\n`);

/** The pid in the data directory's lock file when that process is alive, else null. */
export async function lockHolder(dataDir: string): Promise<number | null> {
  let pid: number;
  try {
    pid = Number((JSON.parse(await readFile(path.join(dataDir, 'nimbus.lock'), 'utf8')) as { pid: unknown }).pid);
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}

/** Exactly `count` operands, else a refusal naming the usage. */
export function operands(args: string[], count: number, usage: string): string[] {
  if (args.length !== count) throw new CommandError(`${args.length < count ? 'missing' : 'unexpected'} argument: usage: ${usage}`);
  return args;
}

/** Prints rows as aligned columns (the first row is the header). */
export function printTable(rows: string[][]): void {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  for (const row of rows) say(row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join('  '));
}
