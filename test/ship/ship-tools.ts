/**
 * What the shipping tests (tarball, container) share: running a command the way an operator
 * would type it, a copy of the working tree to pack or build from (the checkout's own dist/
 * and node_modules stay untouched while other test files use them), and a daemon's first line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, readdir, rm, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The environment of an operator's shell: this process's, without what vitest or an outer
 * `npm test` put there (npm_* would steer the npm we start; NIMBUS_* would configure the daemon),
 * with this Node first on PATH (the installed `nimbus` starts with `#!/usr/bin/env node`).
 */
export function operatorEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(npm_|NIMBUS_|VITEST|TEST$|NODE_ENV$|NODE_OPTIONS$)/i.test(name)) continue;
    env[name] = value;
  }
  env.PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`;
  return { ...env, ...extra };
}

export interface Ran {
  code: number | string;
  stdout: string;
  stderr: string;
  /** Seconds it took, for the log line the report quotes. */
  seconds: number;
}

/** Runs a command to its end; resolves with its exit code and output (never rejects on a non-zero exit). */
export function run(cmd: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<Ran> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: options.cwd ?? ROOT,
      env: options.env ?? operatorEnv(),
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    if (options.input !== undefined) child.stdin!.end(options.input);
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? signal ?? -1, stdout, stderr, seconds: (Date.now() - started) / 1000 }));
  });
}

/** Runs a command and throws, with its output, unless it exits 0. */
export async function runOk(cmd: string, args: string[], options: Parameters<typeof run>[2] = {}): Promise<Ran> {
  const ran = await run(cmd, args, options);
  if (ran.code !== 0) {
    throw new Error(
      `${cmd} ${args.join(' ')} exited ${ran.code}\n--- stdout\n${ran.stdout.slice(-4000)}\n--- stderr\n${ran.stderr.slice(-4000)}`,
    );
  }
  return ran;
}

/** What a clone would not have, or what is built from it: left out of the working tree's copy. */
const NOT_COPIED = new Set(['node_modules', 'dist', '.git', 'test-artifacts', 'release', '.probe', '.scratch', '.vite']);
const NOT_COPIED_PATHS = new Set(['renderer/dist', 'renderer/.build-lock', 'bench/data']);

/**
 * Copies the working tree (what a clone holds, plus uncommitted edits) to `target`, without
 * builds or node_modules. With `linkModules`, node_modules is a symlink to the checkout's (the
 * build tools, without another 400 MB install): never run `npm ci` in such a copy, it would
 * empty the checkout's node_modules through the link.
 */
export async function copyWorkingTree(target: string, { linkModules }: { linkModules: boolean }): Promise<void> {
  await mkdir(target, { recursive: true });
  for (const entry of await readdir(ROOT)) {
    if (NOT_COPIED.has(entry) || entry.endsWith('.tgz')) continue;
    await cp(path.join(ROOT, entry), path.join(target, entry), {
      recursive: true,
      filter: (source) => !NOT_COPIED_PATHS.has(path.relative(ROOT, source).split(path.sep).join('/')),
    });
  }
  if (linkModules) await symlink(path.join(ROOT, 'node_modules'), path.join(target, 'node_modules'), 'dir');
}

/** Bytes under a directory (symlinks not followed), for the log lines that measure an install. */
export async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await sizeOf(full);
    else if (entry.isFile()) total += (await stat(full)).size;
  }
  return total;
}

/** The packages under a node_modules folder, nested ones included (each folder with a package.json of its own). */
export async function countPackages(nodeModules: string): Promise<number> {
  let count = 0;
  for (const entry of await readdir(nodeModules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const dirs = entry.name.startsWith('@')
      ? (await readdir(path.join(nodeModules, entry.name))).map((name) => path.join(nodeModules, entry.name, name))
      : [path.join(nodeModules, entry.name)];
    for (const dir of dirs) {
      count += 1;
      const nested = path.join(dir, 'node_modules');
      if (await stat(nested).catch(() => null)) count += await countPackages(nested);
    }
  }
  return count;
}

export const LISTENING = /^Nimbus daemon listening on (http:\/\/[^\s]+)$/m;

export interface StartedDaemon {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** SIGTERM, then resolves with the exit code once the process is gone. */
  stop: () => Promise<number | string>;
}

/** Starts `cmd daemon …` and resolves once it prints its listening line. */
export function startDaemon(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<StartedDaemon> {
  const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | string>((resolve) => child.on('close', (code, signal) => resolve(code ?? signal ?? -1)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line within 60 s:\n${out}`)), 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = LISTENING.exec(out);
      if (!match) return;
      clearTimeout(timer);
      resolve({
        child,
        url: match[1].replace(/\/$/, ''),
        output: () => out,
        stop: async () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${cmd} exited (${code}) before listening:\n${out}`));
    });
  });
}

/** Removes a temp folder, ignoring what is already gone. */
export const removeTree = (dir: string) => rm(dir, { recursive: true, force: true });

export const MiB = 1024 * 1024;
