/** What the numbers were measured on: cores, memory, Node, disk, load. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';

export interface Machine {
  cores: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  os: string;
  loadBefore: string;
}

export function describeMachine(): Machine {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${osRelease()} (${os.platform()} ${os.release()})`,
    loadBefore: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
  };
}

function osRelease(): string {
  try {
    return /PRETTY_NAME="([^"]+)"/.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? 'Linux';
  } catch {
    return os.type();
  }
}

/** Free bytes on the file system holding `dir` (from `df`, as the issue asks). */
export function freeBytes(dir: string): number {
  const out = execFileSync('df', ['-Pk', dir], { encoding: 'utf8' }).trim().split('\n').pop() ?? '';
  return Number(out.split(/\s+/)[3]) * 1024;
}

/** Resident memory of a process in bytes, from /proc/<pid>/status (VmRSS). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
  if (!kb) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) * 1024;
}

/** CPU time (user + system) a process has used, in ms, from /proc/<pid>/stat. */
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
export function cpuMsOf(pid: number): number {
  // The fields after the command name (which may hold spaces) start at field 3; utime and stime are fields 14 and 15.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** "Quiet": under 20 ms of CPU in half a second (timers, the request log's flush). */
export const QUIET_WINDOW_MS = 500;
export const QUIET_CPU_MS = 20;
const QUIET_TIMEOUT_MS = 60_000;

/**
 * Waits until the process uses less than QUIET_CPU_MS of CPU in a QUIET_WINDOW_MS window (at most
 * QUIET_TIMEOUT_MS); resolves with its CPU time (ms) at the start of that quiet window, so work it
 * set off in the background counts and the idle window itself does not.
 */
export async function waitUntilQuiet(pid: number, windowMs = QUIET_WINDOW_MS, cpuMs = QUIET_CPU_MS): Promise<number> {
  const deadline = performance.now() + QUIET_TIMEOUT_MS;
  let last = cpuMsOf(pid);
  while (performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, windowMs));
    const now = cpuMsOf(pid);
    if (now - last < cpuMs) return last;
    last = now;
  }
  return last;
}
