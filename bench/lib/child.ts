/** Child processes the bench starts (daemon, baselines), each stopped by its own pid. */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

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

export function spawnChild(cmd: string, args: string[], options: SpawnOptions = {}): Child {
  const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  let err = '';
  let out = '';
  proc.stderr?.on('data', (d: Buffer) => {
    err = (err + d.toString()).slice(-20_000);
  });
  proc.stdout?.on('data', (d: Buffer) => {
    out = (out + d.toString()).slice(-20_000);
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const running = () => proc.exitCode === null && proc.signalCode === null;
  return {
    proc,
    pid: proc.pid ?? -1,
    stderr: () => err,
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
          reject(new Error(`${cmd} ${args.join(' ')} exited (${code ?? signal}): ${err.slice(-2000)}`));
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${cmd} printed no ${pattern} in ${timeoutMs} ms: ${err.slice(-2000)}`));
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
