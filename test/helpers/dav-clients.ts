/**
 * Third-party WebDAV clients as child processes (issue 26, docs/webdav.md "Clients proven here"):
 * rclone's webdav backend and litmus, run the way a user would run them. Their output is captured
 * and shown only in the error of a run that fails or times out, never on the test's own stdout.
 * The mount (davfs2) is in dav-mount.ts, the peer servers (nginx, `rclone serve webdav`) in
 * dav-peers.ts.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface ClientRun {
  /** The exit code, or the signal's name. */
  code: number | string;
  stdout: string;
  stderr: string;
}

export interface ClientOptions {
  /** Killed (its whole process group) after this long; default 120 s. */
  timeoutMs?: number;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Resolve with a failing run instead of throwing (for tests that expect a refusal). */
  allowFailure?: boolean;
}

/** What the error of a failed run says: the command, its exit and the end of both outputs. */
function describeRun(cmd: string, args: readonly string[], run: ClientRun, why: string): string {
  const tail = (text: string) => (text.length > 6000 ? `…${text.slice(-6000)}` : text);
  return `${cmd} ${args.join(' ')}: ${why} (${run.code})\n--- stdout\n${tail(run.stdout)}\n--- stderr\n${tail(run.stderr)}`;
}

/**
 * Runs `cmd` with stdin closed and both outputs captured; throws (with the output) on a non-zero
 * exit or a timeout unless `allowFailure`. It runs in a process group of its own so a timeout
 * kills whatever it started too.
 */
export function runClient(cmd: string, args: readonly string[], options: ClientOptions = {}): Promise<ClientRun> {
  const { timeoutMs = 120_000, cwd, env = process.env, allowFailure = false } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`${cmd} could not start: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const run: ClientRun = { code: code ?? signal ?? -1, stdout, stderr };
      if (timedOut) reject(new Error(describeRun(cmd, args, run, `killed after ${timeoutMs} ms`)));
      else if (run.code !== 0 && !allowFailure) reject(new Error(describeRun(cmd, args, run, 'failed')));
      else resolve(run);
    });
  });
}

export const RCLONE = '/usr/bin/rclone';

/**
 * Runs rclone with no config file (`--config /dev/null`: nothing read from or written to the
 * user's home) and without its retries, so a server's first wrong answer fails the run instead of
 * being hidden by a second try.
 */
export function rclone(args: readonly string[], options: ClientOptions = {}): Promise<ClientRun> {
  return runClient(RCLONE, ['--config', '/dev/null', '--retries', '1', '--low-level-retries', '1', ...args], options);
}

/** A value for rclone's connection string, quoted (it holds `:` and maybe `,`). */
const quoted = (value: string) => `'${value.replace(/'/g, "''")}'`;

/**
 * The remote for rclone's command line that reaches the WebDAV server at `url` as `user`, with no
 * config file: `:webdav,url='…',vendor=other,user='…',pass=<obscured>:`. rclone wants the password
 * obscured (`rclone obscure`), as its config file keeps it. Append a path to address inside it.
 */
export async function rcloneWebdav(url: string, user: string, pass: string): Promise<string> {
  // `--`: a personal key may begin with "-" (one in 64 do), which rclone would take for a flag.
  const obscured = (await rclone(['obscure', '--', pass])).stdout.trim();
  return `:webdav,url=${quoted(url)},vendor=other,user=${quoted(user)},pass=${quoted(obscured)}:`;
}

export const LITMUS = '/usr/bin/litmus';

export interface LitmusResult extends ClientRun {
  /** Every "<n>. <name>...... <verdict>" line: the test, what litmus said (pass, FAIL, WARNING, SKIPPED) and why. */
  results: { suite: string; test: string; verdict: string; reason: string }[];
}

/**
 * Runs litmus against `url` (a collection; litmus makes `litmus/` inside it) with the suites named
 * (TESTS: basic, copymove, props, locks, http). Resolves even when tests fail: read `results`.
 * litmus runs no suite after one that failed, so a suite missing from `results` did not run.
 */
export async function litmus(
  url: string,
  user: string,
  pass: string,
  suites: readonly string[],
  timeoutMs = 180_000,
): Promise<LitmusResult> {
  // litmus writes debug.log (every request and answer) into its working directory.
  const cwd = await mkdtemp(path.join(os.tmpdir(), 'nimbus-litmus-'));
  try {
    const env = { ...process.env, TESTS: suites.join(' ') };
    const run = await runClient(LITMUS, [url, user, pass], { env, cwd, timeoutMs, allowFailure: true });
    const results: LitmusResult['results'] = [];
    let suite = '';
    for (const line of run.stdout.split('\n')) {
      const header = /^-> running `([^']+)':/.exec(line);
      if (header) suite = header[1];
      // Without a terminal litmus prints each test's name twice on its line ("0. init....  0. init.... pass").
      const test = /\d+\.\s+(\w+)\.+\s+(pass|FAIL|WARNING|SKIPPED)(.*)$/.exec(line);
      if (test) results.push({ suite, test: test[1], verdict: test[2], reason: test[3].trim() });
    }
    return { ...run, results };
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}
