/**
 * The keychain when it is not there, locked, or unlocked with the wrong password: each
 * falls back to the 0600 key file with one clear warning, never a crash or a hang. The
 * key never shows up in db.json, logs, argv or the process environment.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { secretServiceSkipReason } from '../helpers/secret-service.js';

// Throws with NIMBUS_REQUIRE_E2E=1 (CI) when a tool is missing: there these tests fail, never skip.
const skipReason = secretServiceSkipReason();

interface ProbeResult {
  adminKey: string;
  logs: string[];
  keyFile: boolean;
  keyInEnvironment: boolean;
  keyInArgv: boolean;
}

const probe = `node --import tsx ${path.resolve('test/helpers/keychain-probe.ts')}`;

function runAll(script: string, env: NodeJS.ProcessEnv): ProbeResult[] {
  const out = execFileSync('sh', ['-c', script], { env, encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'ignore'] });
  return out
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as ProbeResult);
}
const run = (script: string, env: NodeJS.ProcessEnv): ProbeResult => runAll(script, env).pop()!;

async function expectFileFallback(result: ProbeResult, dataDir: string, reason: RegExp): Promise<void> {
  expect(result.keyFile).toBe(true);
  expect(result.logs).toHaveLength(1);
  expect(result.logs[0]).toMatch(reason);
  expect(result.logs[0]).toContain('admin.key');
  expect(((await stat(path.join(dataDir, 'admin.key'))).mode & 0o777).toString(8)).toBe('600');
  expect((await readFile(path.join(dataDir, 'admin.key'), 'utf8')).trim()).toBe(result.adminKey);
}

async function expectNoLeak(result: ProbeResult, dataDir: string): Promise<void> {
  expect(result.logs.join('\n')).not.toContain(result.adminKey);
  expect(await readFile(path.join(dataDir, 'db.json'), 'utf8')).not.toContain(result.adminKey);
  expect(result.keyInEnvironment).toBe(false);
  expect(result.keyInArgv).toBe(false);
}

describe.skipIf(skipReason !== null)(`keychain failures${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  it('no Secret Service at all (no D-Bus): falls back to the key file with one warning', async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'nimbus-home-'));
    const dataDir = path.join(home, 'data');
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
    delete env.DBUS_SESSION_BUS_ADDRESS;
    delete env.DISPLAY;
    const result = run(`${probe} ${dataDir}`, env);
    await expectFileFallback(result, dataDir, /keychain failed/);
    await expectNoLeak(result, dataDir);
  });

  it('a locked keyring: falls back with one warning, no hang', async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'nimbus-home-'));
    const dataDir = path.join(home, 'data');
    const result = run(
      `dbus-run-session -- sh -c 'gnome-keyring-daemon --start --components=secrets >/dev/null 2>&1; ${probe} ${dataDir}'`,
      { ...process.env, HOME: home },
    );
    await expectFileFallback(result, dataDir, /keychain failed/);
    await expectNoLeak(result, dataDir);
  });

  it('a keyring unlocked with the wrong password: falls back with one warning', async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'nimbus-home-'));
    const env = { ...process.env, HOME: home };
    // Create the login keyring with one password…
    run(
      `dbus-run-session -- sh -c 'echo -n right | gnome-keyring-daemon --unlock --components=secrets >/dev/null; ${probe} ${path.join(home, 'first')}'`,
      env,
    );
    // …then open it with another.
    const dataDir = path.join(home, 'data');
    const result = run(
      `dbus-run-session -- sh -c 'echo -n wrong | gnome-keyring-daemon --unlock --components=secrets >/dev/null; ${probe} ${dataDir}'`,
      env,
    );
    await expectFileFallback(result, dataDir, /keychain failed/);
    await expectNoLeak(result, dataDir);
  });

  it('a working keyring: the key lives only there, and is stable across starts', async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'nimbus-home-'));
    const dataDir = path.join(home, 'data');
    const env = { ...process.env, HOME: home };
    const twice = `echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; ${probe} ${dataDir}; ${probe} ${dataDir}`;
    const [first, result] = runAll(`dbus-run-session -- sh -c '${twice}'`, env);
    expect(result.adminKey).toBe(first.adminKey);
    expect(result.keyFile).toBe(false);
    expect(result.logs).toEqual([]);
    await expectNoLeak(result, dataDir);
  });
});
