/**
 * Runs a command to completion for the engine starters, keeping its output for error messages
 * (an engine that fails to start must say why, not just "exit 1").
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { killGroup } from './home.js';

export async function run(command: string, args: string[], options: { signal?: AbortSignal } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    // Its own process group, so an abort kills what it started too (runuser's child, say): a
    // grandchild still holding our pipes would keep the test run's process alive.
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const { signal: abortSignal } = options;
    const onAbort = () => {
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
      child.stdout.destroy();
      child.stderr.destroy();
      reject(abortSignal?.reason as Error);
    };
    if (abortSignal?.aborted) return onAbort();
    abortSignal?.addEventListener('abort', onAbort, { once: true });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      abortSignal?.removeEventListener('abort', onAbort);
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? code}):\n${output.trim()}`));
    });
  });
}

/** The last lines of a log file, for an error message ('' when it cannot be read). */
export async function logTail(file: string, lines = 30): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/** Whether a process exists (signal 0 probes without touching it). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
