/** Runs `nimbus` as a child process, the way a user or a service manager would. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = path.join(ROOT, 'bin', 'nimbus.js');
/**
 * The command line of `nimbus`: bin/nimbus.js runs dist/ when it is at least as new as the
 * sources and the sources through tsx otherwise, so a test never runs a stale build.
 */
export const NIMBUS = [BIN];

/** The environment of a child: PATH and HOME only, plus what the test gives (no NIMBUS_* leaks in). */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production', ...extra };
}

export interface CliRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or the signal's name) once the process is gone. */
  exited: Promise<number | string>;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv = childEnv(), entry: string[] = NIMBUS): CliRun {
  const child = spawn(process.execPath, [...entry, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | string>((resolve) => child.on('close', (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/**
 * Runs `code` as an ES module (through tsx, so it may import the sources) in a child process
 * with `env` added to this one's, and parses the last line it prints as JSON: for what is
 * process-wide (malloc's thresholds, V8's flags) and so cannot be measured in the test's own.
 */
export function runModuleJson<T>(code: string, env: NodeJS.ProcessEnv): T {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as T;
}

export const LISTENING = /^Nimbus daemon listening on (http:\/\/127\.0\.0\.1:(\d+))$/m;

/** Starts `nimbus daemon --port <port> --data-dir <dir>` (port 0: any) and resolves with its URL once it prints the listening line. */
export async function spawnDaemon(dataDir: string, env: NodeJS.ProcessEnv, port = 0): Promise<CliRun & { url: string }> {
  const run = runCli(['daemon', '--port', String(port), '--data-dir', dataDir], env);
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = LISTENING.exec(run.stdout());
      if (match) {
        run.child.stdout!.off('data', onData);
        resolve(match[1]);
      }
    };
    run.child.stdout!.on('data', onData);
    void run.exited.then((code) => reject(new Error(`nimbus daemon exited (${code}) before listening: ${run.stderr()}`)));
  });
  return { ...run, url };
}
