/** Child processes the bench starts (daemon, baselines), each stopped by its own pid. */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { closeSync, fstatSync, ftruncateSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Child {
  proc: ChildProcess;
  pid: number;
  /** Everything the child wrote to stderr (the last 20 kB, for error messages). */
  stderr(): string;
  /** Resolves with the first match of `pattern` in the child's stdout. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** SIGTERM, then SIGKILL after 15 s; resolves once the child has exited. */
  stop(): Promise<void>;
}

/** A child's stderr file is emptied once past this size (checked every 5 s). */
const STDERR_KEEP_BYTES = 64 << 20;

/**
 * Starts a child whose stderr goes to a file of its own, read back only for an error message:
 * a daemon under load echoes a JSON line per request there (~10 MB/s at 40,000 requests/s), and
 * a pipe read into a string here took the bench's CPU on the cores the load generator and the
 * server share, counted against the server that logs (bench/NOTES.md, issue 30). The child
 * still writes every line.
 */
export function spawnChild(cmd: string, args: string[], options: SpawnOptions = {}): Child {
  const errDir = mkdtempSync(path.join(os.tmpdir(), 'nimbus-bench-stderr-'));
  // Appending, so that the child's next line lands at the start once the file is emptied.
  const errFd = openSync(path.join(errDir, 'stderr'), 'a+');
  const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', errFd], ...options });
  let out = '';
  const err = () => {
    const size = fstatSync(errFd).size;
    const length = Math.min(size, 20_000);
    const tail = Buffer.alloc(length);
    readSync(errFd, tail, 0, length, size - length);
    return tail.toString();
  };
  // Only the tail is ever read: a run's request lines would otherwise fill the disk.
  const trim = setInterval(() => {
    if (fstatSync(errFd).size > STDERR_KEEP_BYTES) ftruncateSync(errFd, 0);
  }, 5000).unref();
  proc.once('exit', () => {
    clearInterval(trim);
    closeSync(errFd);
    rmSync(errDir, { recursive: true, force: true });
  });
  proc.stdout?.on('data', (d: Buffer) => {
    out = (out + d.toString()).slice(-20_000);
  });
  let lastErr = '';
  const stderr = () => (proc.exitCode === null && proc.signalCode === null ? err() : lastErr);
  proc.prependOnceListener('exit', () => {
    lastErr = err();
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const running = () => proc.exitCode === null && proc.signalCode === null;
  return {
    proc,
    pid: proc.pid ?? -1,
    stderr,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(out);
          if (match) {
            done();
            resolve(match);
          }
        };
        const onExit = (code: number | null, signal: string | null) => {
          done();
          reject(new Error(`${cmd} ${args.join(' ')} exited (${code ?? signal}): ${stderr().slice(-2000)}`));
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${cmd} printed no ${pattern} in ${timeoutMs} ms: ${stderr().slice(-2000)}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          proc.stdout?.off('data', check);
          proc.off('exit', onExit);
        };
        proc.stdout?.on('data', check);
        proc.once('exit', onExit);
        check();
      });
    },
    async stop() {
      if (!running()) return;
      proc.kill('SIGTERM');
      const killer = setTimeout(() => running() && proc.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Starts a command and resolves once a stdout line matches `ready`. */
export async function startChild(
  cmd: string,
  args: string[],
  ready: RegExp,
  options: SpawnOptions = {},
  timeoutMs = 60_000,
): Promise<{ child: Child; match: RegExpExecArray }> {
  const child = spawnChild(cmd, args, options);
  try {
    return { child, match: await child.waitFor(ready, timeoutMs) };
  } catch (err) {
    await child.stop();
    throw err;
  }
}
