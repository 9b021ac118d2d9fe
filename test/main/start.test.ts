import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startDaemon, type RunningDaemon } from '../../daemon/index.js';
import type { StartDaemon } from '../../main/daemonHost.js';
import { runStart, type StartDeps } from '../../main/startup.js';
import { TEST_KEY } from '../helpers/daemon.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FALLBACK_LINE = /^.+; running the daemon with the web UI instead\.$/;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'nimbus-start-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The real daemon, started as `npm start` starts it (defaults), but in a temp directory on a free port. */
async function realDaemonLoader(): Promise<StartDaemon> {
  const dataDir = await tempDataDir();
  return (options) => startDaemon({ ...options, port: 0, dataDir, apiKey: TEST_KEY, env: {}, log: () => undefined });
}

function deps(overrides: Partial<StartDeps>): StartDeps & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    probe: () => ({ ok: false, reason: 'Electron is not available (binary not installed)' }),
    mainScript: '/app/dist/main/main.js',
    runElectron: vi.fn(async () => ({ code: 0, signal: null, ms: 60_000 })),
    loadDaemon: realDaemonLoader,
    print: (line) => lines.push(line),
    ...overrides,
  };
}

async function keep(outcome: Awaited<ReturnType<typeof runStart>>): Promise<RunningDaemon> {
  if (outcome.mode !== 'daemon') throw new Error(`expected the daemon, got ${outcome.mode}`);
  cleanups.push(() => outcome.daemon.close());
  return outcome.daemon;
}

describe('runStart when Electron cannot start', () => {
  it('says why in one line, then runs a real daemon and prints its URL', async () => {
    const d = deps({});
    const daemon = await keep(await runStart(d));
    expect(d.lines[0]).toBe('Electron is not available (binary not installed); running the daemon with the web UI instead.');
    expect(d.lines.filter((line) => FALLBACK_LINE.test(line))).toHaveLength(1);
    expect(d.lines.at(-1)).toContain(`open ${daemon.url}/`);
    expect(d.runElectron).not.toHaveBeenCalled();
    const res = await fetch(`${daemon.url}/api/dash`, { headers: { 'API-Key': TEST_KEY } });
    expect(res.status).toBe(200);
  });

  it('never prints the API key, only how to get it', async () => {
    const d = deps({});
    await keep(await runStart(d));
    expect(d.lines.join('\n')).not.toContain(TEST_KEY);
    expect(d.lines.at(-1)).toContain('npx nimbus key show');
  });

  it('falls back when the binary cannot be spawned', async () => {
    const d = deps({
      probe: () => ({ ok: true, binary: '/nowhere/electron' }),
      runElectron: vi.fn(async () => {
        throw new Error('spawn /nowhere/electron ENOENT');
      }),
    });
    await keep(await runStart(d));
    expect(d.lines[0]).toBe('Electron could not start (spawn /nowhere/electron ENOENT); running the daemon with the web UI instead.');
  });

  it('falls back when Electron dies at start-up (missing libraries, no GPU)', async () => {
    const d = deps({ probe: () => ({ ok: true, binary: '/e' }), runElectron: vi.fn(async () => ({ code: 127, signal: null, ms: 300 })) });
    await keep(await runStart(d));
    expect(d.lines[0]).toBe('Electron exited at start-up (code 127); running the daemon with the web UI instead.');
  });
});

describe('runStart when Electron can start', () => {
  it('runs the desktop app on the built main script and passes on its exit code', async () => {
    const loadDaemon = vi.fn(realDaemonLoader);
    const d = deps({
      probe: () => ({ ok: true, binary: '/e' }),
      loadDaemon,
      runElectron: vi.fn(async () => ({ code: 0, signal: null, ms: 90_000 })),
    });
    expect(await runStart(d)).toEqual({ mode: 'electron', exitCode: 0 });
    expect(d.runElectron).toHaveBeenCalledWith('/e', '/app/dist/main/main.js');
    expect(loadDaemon).not.toHaveBeenCalled();
    expect(d.lines).toEqual([]);
  });

  it('does not start a second daemon after the app ran for a while and failed', async () => {
    const d = deps({ probe: () => ({ ok: true, binary: '/e' }), runElectron: vi.fn(async () => ({ code: 1, signal: null, ms: 60_000 })) });
    expect(await runStart(d)).toEqual({ mode: 'electron', exitCode: 1 });
  });

  it('does not fall back when the user stopped Electron with Ctrl+C', async () => {
    const d = deps({
      probe: () => ({ ok: true, binary: '/e' }),
      runElectron: vi.fn(async () => ({ code: null, signal: 'SIGINT' as const, ms: 500 })),
    });
    expect((await runStart(d)).mode).toBe('electron');
  });
});

describe('npm start on this machine (no Electron binary, no display)', () => {
  it('prints one line, serves the web UI, and stops cleanly on Ctrl+C', async () => {
    const dataDir = await tempDataDir();
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'main/start.ts')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: dataDir,
        NIMBUS_DATA_DIR: dataDir,
        NIMBUS_PORT: '0',
        NIMBUS_API_KEY: TEST_KEY,
        NIMBUS_KEYCHAIN: 'off',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

    await vi.waitFor(() => expect(stdout).toMatch(/Nimbus is running: open (http:\/\/127\.0\.0\.1:\d+)\//), {
      timeout: 20_000,
      interval: 100,
    });
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(FALLBACK_LINE);
    expect(lines.filter((line) => FALLBACK_LINE.test(line))).toHaveLength(1);
    const url = /open (http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout)![1];
    const res = await fetch(`${url}/api/dash`, { headers: { 'API-Key': TEST_KEY } });
    expect(res.status).toBe(200);
    expect(stdout + stderr).not.toContain(TEST_KEY);

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    await expect(fetch(`${url}/api/dash`)).rejects.toThrow();
  });
});
