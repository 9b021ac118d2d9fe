/**
 * The admin key as an operator meets it: `nimbus key show` and `nimbus daemon` as separate
 * processes, restarted, on a headless machine (no D-Bus, as root) and with a real Secret
 * Service (gnome-keyring). A key counts as kept only if the next process finds the same one.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { childEnv, runCli, spawnDaemon, type CliRun } from '../helpers/child.js';
import { secretServiceSkipReason, startSecretService, type SecretService } from '../helpers/secret-service.js';

const KEY = /^[A-Za-z0-9_-]{43}$/;
const dirs: string[] = [];
const running: CliRun[] = [];
const sessions: SecretService[] = [];

afterEach(async () => {
  for (const run of running.splice(0)) if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
  for (const session of sessions.splice(0)) session.stop();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A home and a data directory of their own. */
async function machine(): Promise<{ home: string; dataDir: string; keyFile: string }> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'nimbus-keychain-cli-'));
  dirs.push(home);
  await mkdir(path.join(home, 'home'));
  const dataDir = path.join(home, 'data');
  return { home: path.join(home, 'home'), dataDir, keyFile: path.join(dataDir, 'admin.key') };
}

/** childEnv has no DBUS_SESSION_BUS_ADDRESS and no DISPLAY: a server, a container, a CI runner. */
const headless = (home: string) => childEnv({ HOME: home });
const withBus = (home: string, session: SecretService) => childEnv({ HOME: home, DBUS_SESSION_BUS_ADDRESS: session.bus });

async function keyShow(dataDir: string, env: NodeJS.ProcessEnv): Promise<{ key: string; warnings: string[] }> {
  const run = runCli(['key', 'show', '--data-dir', dataDir], env);
  expect(await run.exited, run.stderr()).toBe(0);
  const key = run.stdout().trim();
  expect(key).toMatch(KEY);
  const warnings = run.stderr().split('\n').filter(Boolean);
  for (const line of warnings) expect(line).not.toContain(key);
  return { key, warnings };
}

async function startDaemon(dataDir: string, env: NodeJS.ProcessEnv): Promise<CliRun & { url: string }> {
  const daemon = await spawnDaemon(dataDir, env);
  running.push(daemon);
  return daemon;
}

async function stopDaemon(daemon: CliRun): Promise<void> {
  daemon.child.kill('SIGTERM');
  expect(await daemon.exited).toBe(0);
}

/** The status of GET /api/dash with this key: 200 when the daemon takes it as its admin key. */
async function dashWith(url: string, key: string): Promise<number> {
  const res = await fetch(`${url}/api/dash`, { headers: { 'API-Key': key } });
  await res.arrayBuffer();
  return res.status;
}

describe('the admin key without a desktop keyring (no D-Bus, as root)', () => {
  it('`key show` on a fresh data directory prints one key every time, kept in admin.key (0600), said in one line', async () => {
    const { home, dataDir, keyFile } = await machine();
    const first = await keyShow(dataDir, headless(home));
    const second = await keyShow(dataDir, headless(home));
    const third = await keyShow(dataDir, headless(home));
    expect(second.key).toBe(first.key);
    expect(third.key).toBe(first.key);
    expect((await readFile(keyFile, 'utf8')).trim()).toBe(first.key);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect(first.warnings).toHaveLength(1);
    expect(first.warnings[0]).toMatch(/keychain/i);
    expect(first.warnings[0]).toContain(keyFile);
    // Reading the file it already said it keeps is not news: scripts read stdout, people read stderr.
    expect([...second.warnings, ...third.warnings]).toEqual([]);
  }, 60_000);

  it('a daemon accepts the key `key show` printed, and after a restart still does', async () => {
    const { home, dataDir } = await machine();
    const { key } = await keyShow(dataDir, headless(home));
    let daemon = await startDaemon(dataDir, headless(home));
    expect(await dashWith(daemon.url, key)).toBe(200);
    expect(await dashWith(daemon.url, `${key.slice(1)}x`)).toBe(401);
    await stopDaemon(daemon);
    daemon = await startDaemon(dataDir, headless(home));
    expect(await dashWith(daemon.url, key)).toBe(200);
    expect((await keyShow(dataDir, headless(home))).key).toBe(key);
    await stopDaemon(daemon);
  }, 60_000);

  it('`key show` after the first daemon start prints the key the daemon accepts, before and after a restart', async () => {
    const { home, dataDir, keyFile } = await machine();
    let daemon = await startDaemon(dataDir, headless(home));
    // The daemon's log lines reach stderr in batches (every 50 ms), so the warning may follow the address.
    await vi.waitFor(() => expect(daemon.stderr()).toContain(keyFile));
    const { key, warnings } = await keyShow(dataDir, headless(home));
    expect(warnings).toEqual([]);
    expect(await dashWith(daemon.url, key)).toBe(200);
    await stopDaemon(daemon);
    daemon = await startDaemon(dataDir, headless(home));
    expect(await dashWith(daemon.url, key)).toBe(200);
    await stopDaemon(daemon);
  }, 60_000);

  it('a key rotated offline and one rotated through the running daemon are the ones `key show` and the next start use', async () => {
    const { home, dataDir, keyFile } = await machine();
    const first = (await keyShow(dataDir, headless(home))).key;
    const rotate = runCli(['key', 'rotate', '--data-dir', dataDir], headless(home));
    expect(await rotate.exited, rotate.stderr()).toBe(0);
    const offline = rotate.stdout().trim();
    expect(offline).not.toBe(first);
    expect((await keyShow(dataDir, headless(home))).key).toBe(offline);

    let daemon = await startDaemon(dataDir, headless(home));
    expect(await dashWith(daemon.url, offline)).toBe(200);
    const online = runCli(['key', 'rotate', '--data-dir', dataDir], headless(home));
    expect(await online.exited, online.stderr()).toBe(0);
    const rotated = online.stdout().trim();
    expect(rotated).toMatch(KEY);
    expect((await readFile(keyFile, 'utf8')).trim()).toBe(rotated);
    await stopDaemon(daemon);
    daemon = await startDaemon(dataDir, headless(home));
    expect(await dashWith(daemon.url, rotated)).toBe(200);
    expect((await keyShow(dataDir, headless(home))).key).toBe(rotated);
    await stopDaemon(daemon);
  }, 90_000);
});

const skipReason = secretServiceSkipReason();

describe.skipIf(skipReason !== null)(`the admin key in a real Secret Service${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  async function keychainMachine() {
    const paths = await machine();
    const session = await startSecretService(paths.home);
    sessions.push(session);
    return { ...paths, session, account: `admin-key:${paths.dataDir}` };
  }

  it('`key show` stores a new key in the keychain, where another process reads it back, and writes no file', async () => {
    const { home, dataDir, keyFile, session, account } = await keychainMachine();
    const first = await keyShow(dataDir, withBus(home, session));
    const second = await keyShow(dataDir, withBus(home, session));
    expect(second.key).toBe(first.key);
    expect(await session.lookup(account)).toBe(first.key);
    expect(existsSync(keyFile)).toBe(false);
    expect([...first.warnings, ...second.warnings]).toEqual([]);
  }, 60_000);

  it('a daemon accepts the keychain key, and after a restart still does', async () => {
    const { home, dataDir, keyFile, session } = await keychainMachine();
    const { key } = await keyShow(dataDir, withBus(home, session));
    let daemon = await startDaemon(dataDir, withBus(home, session));
    expect(await dashWith(daemon.url, key)).toBe(200);
    await stopDaemon(daemon);
    daemon = await startDaemon(dataDir, withBus(home, session));
    expect(await dashWith(daemon.url, key)).toBe(200);
    await stopDaemon(daemon);
    expect(existsSync(keyFile)).toBe(false);
  }, 60_000);

  it('an admin.key kept while there was no keychain moves into it at the daemon start, verified, and only then is removed', async () => {
    const { home, dataDir, keyFile, session, account } = await keychainMachine();
    const { key } = await keyShow(dataDir, headless(home));
    expect(existsSync(keyFile)).toBe(true);
    // `key show` prints the file's key and leaves the file alone, keychain or not.
    expect((await keyShow(dataDir, withBus(home, session))).key).toBe(key);
    expect(existsSync(keyFile)).toBe(true);
    expect(await session.lookup(account)).toBe(null);

    let daemon = await startDaemon(dataDir, withBus(home, session));
    expect(await dashWith(daemon.url, key)).toBe(200);
    expect(await session.lookup(account)).toBe(key);
    expect(existsSync(keyFile)).toBe(false);
    await stopDaemon(daemon);
    daemon = await startDaemon(dataDir, withBus(home, session));
    expect(await dashWith(daemon.url, key)).toBe(200);
    expect((await keyShow(dataDir, withBus(home, session))).key).toBe(key);
    await stopDaemon(daemon);
  }, 90_000);

  it('admin.key wins over a different key in the keychain: the file is only written after the keychain entry', async () => {
    const { home, dataDir, keyFile, session, account } = await keychainMachine();
    const older = (await keyShow(dataDir, withBus(home, session))).key;
    // As a start whose keychain was locked leaves it (or a restored backup of the data directory).
    const newer = 'N'.repeat(43);
    await mkdir(dataDir, { recursive: true });
    await writeFile(keyFile, `${newer}\n`, { mode: 0o600 });
    expect((await keyShow(dataDir, withBus(home, session))).key).toBe(newer);
    const daemon = await startDaemon(dataDir, withBus(home, session));
    expect(await dashWith(daemon.url, newer)).toBe(200);
    expect(await dashWith(daemon.url, older)).toBe(401);
    expect(await session.lookup(account)).toBe(newer);
    expect(existsSync(keyFile)).toBe(false);
    await stopDaemon(daemon);
  }, 60_000);
});
