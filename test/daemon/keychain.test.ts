/**
 * The admin key in a REAL Secret Service (gnome-keyring under dbus-run-session, as
 * .ci/run installs it), and the 0600 file fallback when there is no D-Bus at all. Skips,
 * naming the missing tools, only when they are missing and NIMBUS_REQUIRE_E2E is not 1.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/child.js';
import { secretServiceSkipReason } from '../helpers/secret-service.js';

// Throws with NIMBUS_REQUIRE_E2E=1 (CI) when a tool is missing: there these tests fail, never skip.
const skipReason = secretServiceSkipReason();

/** Starts the daemon through startDaemon without apiKey or NIMBUS_KEYCHAIN=off, twice, and prints what it saw. */
const PROBE = `
import { startDaemon } from ${JSON.stringify(path.join(ROOT, 'daemon', 'index.ts'))};
const dataDir = process.env.PROBE_DATA_DIR;
const env = { ...process.env };
delete env.NIMBUS_KEYCHAIN;
delete env.NIMBUS_API_KEY;
const logs = [];
const log = (line) => logs.push(line);
const first = await startDaemon({ port: 0, dataDir, env, log });
const key = first.adminKey();
await first.close();
const second = await startDaemon({ port: 0, dataDir, env, log });
const again = second.adminKey();
await second.close();
process.stdout.write(JSON.stringify({ key, again, logs }) + '\\n');
`;

interface Probe {
  key: string;
  again: string;
  logs: string[];
}

let work: string;
let probeFile: string;
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'nimbus-keychain-'));
  probeFile = path.join(work, 'probe.mts');
  await writeFile(probeFile, PROBE);
});
afterAll(() => rm(work, { recursive: true, force: true }));

/** A clean environment: no session bus, no display, a HOME of its own. */
function bareEnv(home: string, dataDir: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, PROBE_DATA_DIR: dataDir, NODE_ENV: 'production' };
}

describe.skipIf(skipReason !== null)(`the admin key in a real Secret Service${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  it('is generated, stored in the keychain under service "Nimbus", username "admin-key:<dataDir>", reused, and never written to a file', async () => {
    const home = path.join(work, 'home-real');
    const dataDir = path.join(work, 'data-real');
    await mkdir(home, { recursive: true });
    const script = [
      'echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null',
      `node --import tsx ${JSON.stringify(probeFile)}`,
      'printf "LOOKUP:"; secret-tool lookup service Nimbus username "admin-key:$PROBE_DATA_DIR"; echo',
    ].join('; ');
    const out = execFileSync('dbus-run-session', ['--', 'sh', '-c', script], {
      cwd: ROOT,
      env: bareEnv(home, dataDir),
      encoding: 'utf8',
      timeout: 60_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const probe = JSON.parse(out.split('\n').find((l) => l.startsWith('{'))!) as Probe;
    const stored = /^LOOKUP:(.*)$/m.exec(out)![1];
    expect(probe.key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(stored).toBe(probe.key);
    expect(probe.again).toBe(probe.key);
    expect(probe.logs).toEqual([]);
    expect(existsSync(path.join(dataDir, 'admin.key'))).toBe(false);
    expect(await readFile(path.join(dataDir, 'db.json'), 'utf8')).not.toContain(probe.key);
  });
});

describe('no D-Bus at all', () => {
  it('falls back to a 0600 admin.key file with exactly one warning line', async () => {
    const home = path.join(work, 'home-none');
    const dataDir = path.join(work, 'data-none');
    const out = execFileSync(process.execPath, ['--import', 'tsx', probeFile], {
      cwd: ROOT,
      env: bareEnv(home, dataDir),
      encoding: 'utf8',
      timeout: 30_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const probe = JSON.parse(out.trim().split('\n').pop()!) as Probe;
    const keyFile = path.join(dataDir, 'admin.key');
    expect((await readFile(keyFile, 'utf8')).trim()).toBe(probe.key);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect(probe.again).toBe(probe.key);
    // One warning per start, one line each, naming the file; never the key.
    const firstStart = probe.logs.slice(0, probe.logs.length / 2);
    expect(firstStart).toHaveLength(1);
    expect(firstStart[0]).not.toContain('\n');
    expect(firstStart[0]).toMatch(/keychain/i);
    expect(firstStart[0]).toContain(keyFile);
    for (const line of probe.logs) expect(line).not.toContain(probe.key);
  });
});
