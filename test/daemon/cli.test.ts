/** `nimbus` as a user runs it: help, the daemon with its listening line, log and clean shutdown, key show and rotate, paths. */
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BIN, childEnv, LISTENING, ROOT, runCli, spawnDaemon, type CliRun } from '../helpers/child.js';
import { startTestDaemon, TEST_KEY } from '../helpers/daemon.js';

const dirs: string[] = [];
const running: CliRun[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-cli-'));
  dirs.push(dir);
  return dir;
};
const fileKeyEnv = (extra: NodeJS.ProcessEnv = {}) => childEnv({ NIMBUS_KEYCHAIN: 'off', ...extra });

afterEach(async () => {
  for (const run of running.splice(0)) if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('nimbus --help', () => {
  it('prints the usage and exits 0', async () => {
    const run = runCli(['--help']);
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toMatch(/Usage:/);
    for (const command of [
      'nimbus daemon',
      'nimbus key show',
      'nimbus key rotate',
      '--port',
      '--data-dir',
      '--storage-dir',
      '--host',
      '--log-level',
      'NIMBUS_LOG_LEVEL',
      'nimbus paths',
      'NIMBUS_API_KEY',
    ]) {
      expect(run.stdout()).toContain(command);
    }
  });

  it('is what bin/nimbus.js runs too', async () => {
    const run = runCli(['--help'], childEnv(), [BIN]);
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toMatch(/Usage:/);
  });

  it('exits 1 with the usage for an unknown command', async () => {
    const run = runCli(['frobnicate']);
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toMatch(/unknown command "frobnicate"/);
  });

  it('exits 1 with a clear message for an invalid port', async () => {
    const run = runCli(['daemon', '--port', 'eighty', '--data-dir', await tempDir()], fileKeyEnv());
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toMatch(/Invalid port: eighty/);
  });

  it('exits 1 naming the levels for an invalid --log-level, before starting anything', async () => {
    const dataDir = path.join(await tempDir(), 'never');
    const run = runCli(['daemon', '--log-level', 'loud', '--port', '0', '--data-dir', dataDir], fileKeyEnv());
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toBe('nimbus: Invalid --log-level: loud (one of trace, debug, info, warn, error, fatal, silent)\n');
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('nimbus daemon', () => {
  it('prints the listening line, serves the API, and shuts down cleanly on SIGTERM, releasing the lock', async () => {
    const dataDir = await tempDir();
    const daemon = await spawnDaemon(dataDir, fileKeyEnv({ NIMBUS_API_KEY: TEST_KEY }));
    running.push(daemon);
    expect(daemon.stdout()).toMatch(/^Nimbus daemon listening on http:\/\/127\.0\.0\.1:\d+\n$/);
    const created = await fetch(`${daemon.url}/api/user/create?username=ana&email=ana@example.com&password=password123`, {
      method: 'POST',
      headers: { 'API-Key': TEST_KEY },
    });
    expect(created.status).toBe(201);
    expect(existsSync(path.join(dataDir, 'nimbus.lock'))).toBe(true);

    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    expect(daemon.stderr()).not.toContain(TEST_KEY);
    expect(existsSync(path.join(dataDir, 'nimbus.lock'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'daemon.json'))).toBe(false);

    const next = await startTestDaemon({ dataDir });
    try {
      expect((await next.api('GET', '/api/user', { username: 'ana' })).status).toBe(200);
    } finally {
      await next.stop();
    }
  });

  it('lets an upload in flight finish before it exits on SIGTERM', async () => {
    const dataDir = await tempDir();
    const env = fileKeyEnv({ NIMBUS_API_KEY: TEST_KEY });
    const daemon = await spawnDaemon(dataDir, env);
    running.push(daemon);
    const headers = { 'API-Key': TEST_KEY };
    expect(
      (await fetch(`${daemon.url}/api/user/create?username=ana&email=ana@example.com&password=password123`, { method: 'POST', headers }))
        .status,
    ).toBe(201);
    let push!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (controller) => void (push = controller) });
    const uploading = fetch(`${daemon.url}/api/files/upload?username=ana&file=late.bin`, {
      method: 'POST',
      headers,
      body,
      duplex: 'half',
    } as RequestInit);
    push.enqueue(new Uint8Array(64 * 1024).fill(1));
    await vi.waitFor(async () => expect((await readdir(path.join(dataDir, 'tmp')).catch(() => [])).length).toBe(1));
    daemon.child.kill('SIGTERM');
    await vi.waitFor(() => expect(daemon.stderr()).toContain('SIGTERM received'));
    push.enqueue(new Uint8Array(64 * 1024).fill(2));
    push.close();
    const res = await uploading;
    expect(res.status, await res.clone().text()).toBe(201);
    expect((await res.json()).file.size).toBe(128 * 1024);
    expect(await daemon.exited).toBe(0);
    expect((await readFile(path.join(dataDir, 'storage', 'ana', 'late.bin'))).length).toBe(128 * 1024);
  });

  it('logs each request to <data-dir>/logs/nimbus.log and, not on a terminal, as JSON lines on stderr', async () => {
    const dataDir = await tempDir();
    const daemon = await spawnDaemon(dataDir, fileKeyEnv({ NIMBUS_API_KEY: TEST_KEY }));
    running.push(daemon);
    const res = await fetch(`${daemon.url}/api/user/create?username=ana&email=ana@example.com&password=hunter2-secret`, {
      method: 'POST',
      headers: { 'API-Key': TEST_KEY },
    });
    expect(res.status).toBe(201);
    const id = res.headers.get('X-Request-Id');
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);

    const file = (await readFile(path.join(dataDir, 'logs', 'nimbus.log'), 'utf8')).trim().split('\n');
    const stderr = daemon.stderr().trim().split('\n');
    for (const lines of [file, stderr]) {
      const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(parsed.find((line) => line.reqId === id)).toMatchObject({
        level: 'info',
        method: 'POST',
        url: '/api/user/create?username=ana&email=ana@example.com&password=[redacted]',
        status: 201,
        ms: expect.any(Number),
      });
      expect(parsed.map((line) => line.msg)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^Nimbus \S+ started on http/),
          'Nimbus: SIGTERM received, shutting down…',
          'Nimbus stopped',
        ]),
      );
      expect(lines.join('\n')).not.toContain('hunter2-secret');
      expect(lines.join('\n')).not.toContain(TEST_KEY);
    }
  });

  it('writes only warnings and worse with --log-level warn (over NIMBUS_LOG_LEVEL)', async () => {
    const dataDir = await tempDir();
    const run = runCli(
      ['daemon', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'],
      fileKeyEnv({ NIMBUS_API_KEY: TEST_KEY, NIMBUS_LOG_LEVEL: 'debug' }),
    );
    running.push(run);
    const url = await vi.waitFor(() => LISTENING.exec(run.stdout())![1], { timeout: 20_000, interval: 50 });
    expect((await fetch(`${url}/api/dash`, { headers: { 'API-Key': TEST_KEY } })).status).toBe(200);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(await readFile(path.join(dataDir, 'logs', 'nimbus.log'), 'utf8')).toBe('');
    expect(run.stderr()).toBe('');
  });

  it('shuts down cleanly on SIGINT too', async () => {
    const daemon = await spawnDaemon(await tempDir(), fileKeyEnv({ NIMBUS_API_KEY: TEST_KEY }));
    running.push(daemon);
    daemon.child.kill('SIGINT');
    expect(await daemon.exited).toBe(0);
  });

  it('exits 1 with a clear message when another daemon holds the data directory', async () => {
    const dataDir = await tempDir();
    const first = await spawnDaemon(dataDir, fileKeyEnv({ NIMBUS_API_KEY: TEST_KEY }));
    running.push(first);
    const second = runCli(['daemon', '--port', '0', '--data-dir', dataDir], fileKeyEnv({ NIMBUS_API_KEY: TEST_KEY }));
    running.push(second);
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toMatch(/Another Nimbus daemon \(pid \d+\) is using this data directory/);
    expect(second.stderr()).not.toMatch(/\n\s+at /);
    expect((await fetch(`${first.url}/api/dash`, { headers: { 'API-Key': TEST_KEY } })).status).toBe(200);
  });

  it('exits 1 with a clear message on a corrupt db.json and leaves it as it was', async () => {
    const dataDir = await tempDir();
    await writeFile(path.join(dataDir, 'db.json'), '{"users": [');
    const run = runCli(['daemon', '--port', '0', '--data-dir', dataDir], fileKeyEnv({ NIMBUS_API_KEY: TEST_KEY }));
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toMatch(/db\.json is unreadable/);
    expect(await readFile(path.join(dataDir, 'db.json'), 'utf8')).toBe('{"users": [');
  });

  it('never puts the key on its command line: NIMBUS_API_KEY stays in the environment', async () => {
    const daemon = await spawnDaemon(await tempDir(), fileKeyEnv({ NIMBUS_API_KEY: TEST_KEY }));
    running.push(daemon);
    const cmdline = await readFile(`/proc/${daemon.child.pid}/cmdline`, 'utf8').catch(() => '');
    expect(cmdline).not.toContain(TEST_KEY);
    expect(daemon.stdout() + daemon.stderr()).not.toContain(TEST_KEY);
  });
});

describe('nimbus key', () => {
  it('shows the admin key kept in the key file (NIMBUS_KEYCHAIN=off)', async () => {
    const dataDir = await tempDir();
    const t = await startTestDaemon({ dataDir, apiKey: undefined, env: { NIMBUS_KEYCHAIN: 'off' } });
    const key = t.key;
    await t.stop();
    expect((await readFile(path.join(dataDir, 'admin.key'), 'utf8')).trim()).toBe(key);
    const run = runCli(['key', 'show', '--data-dir', dataDir], fileKeyEnv());
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toBe(`${key}\n`);
  });

  it('rotates the key of a running daemon: the old key fails at once, the new one works', async () => {
    const dataDir = await tempDir();
    const daemon = await spawnDaemon(dataDir, fileKeyEnv());
    running.push(daemon);
    const old = (await readFile(path.join(dataDir, 'admin.key'), 'utf8')).trim();
    expect((await fetch(`${daemon.url}/api/dash`, { headers: { 'API-Key': old } })).status).toBe(200);

    const rotate = runCli(['key', 'rotate', '--data-dir', dataDir], fileKeyEnv());
    expect(await rotate.exited).toBe(0);
    const fresh = rotate.stdout().trim();
    expect(fresh).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fresh).not.toBe(old);
    expect((await fetch(`${daemon.url}/api/dash`, { headers: { 'API-Key': old } })).status).toBe(401);
    expect((await fetch(`${daemon.url}/api/dash`, { headers: { 'API-Key': fresh } })).status).toBe(200);
    expect((await readFile(path.join(dataDir, 'admin.key'), 'utf8')).trim()).toBe(fresh);

    const show = runCli(['key', 'show', '--data-dir', dataDir], fileKeyEnv());
    expect(await show.exited).toBe(0);
    expect(show.stdout().trim()).toBe(fresh);
  });

  it('rotates the key of a daemon started in-process (as the desktop app and `npm start` start it)', async () => {
    const dataDir = await tempDir();
    const t = await startTestDaemon({ dataDir, apiKey: undefined, env: { NIMBUS_KEYCHAIN: 'off' } });
    try {
      const old = t.key;
      const rotate = runCli(['key', 'rotate', '--data-dir', dataDir], fileKeyEnv());
      expect(await rotate.exited, rotate.stderr()).toBe(0);
      const fresh = rotate.stdout().trim();
      expect((await t.api('GET', '/api/dash', {}, { key: old })).status).toBe(401);
      expect((await t.api('GET', '/api/dash', {}, { key: fresh })).status).toBe(200);
    } finally {
      await t.stop();
    }
    expect(existsSync(path.join(dataDir, 'daemon.json'))).toBe(false);
  });

  it('rotates the key of the daemon that `npm start` runs when Electron cannot start', async () => {
    const dataDir = await tempDir();
    const env = fileKeyEnv({ NIMBUS_DATA_DIR: dataDir, NIMBUS_PORT: '0' });
    const start = runCli([], env, ['--import', 'tsx', path.join(ROOT, 'main', 'start.ts')]);
    running.push(start);
    const url = await vi.waitFor(
      () => {
        const match = /open (http:\/\/127\.0\.0\.1:\d+)\//.exec(start.stdout());
        if (!match) throw new Error(`not running yet: ${start.stdout()} ${start.stderr()}`);
        return match[1];
      },
      { timeout: 20_000, interval: 100 },
    );
    const old = (await readFile(path.join(dataDir, 'admin.key'), 'utf8')).trim();
    expect((await fetch(`${url}/api/dash`, { headers: { 'API-Key': old } })).status).toBe(200);
    const rotate = runCli(['key', 'rotate', '--data-dir', dataDir], fileKeyEnv());
    expect(await rotate.exited, rotate.stderr()).toBe(0);
    const fresh = rotate.stdout().trim();
    expect((await fetch(`${url}/api/dash`, { headers: { 'API-Key': old } })).status).toBe(401);
    expect((await fetch(`${url}/api/dash`, { headers: { 'API-Key': fresh } })).status).toBe(200);
  });

  it('refuses to rotate behind the back of a daemon that holds the data directory but cannot be reached', async () => {
    const dataDir = await tempDir();
    const t = await startTestDaemon({ dataDir, apiKey: undefined, env: { NIMBUS_KEYCHAIN: 'off' } });
    await t.stop();
    const old = (await readFile(path.join(dataDir, 'admin.key'), 'utf8')).trim();
    // A live process (this test) holds the lock; no daemon.json says where it answers.
    await writeFile(path.join(dataDir, 'nimbus.lock'), JSON.stringify({ pid: process.pid }));
    const rotate = runCli(['key', 'rotate', '--data-dir', dataDir], fileKeyEnv());
    expect(await rotate.exited).toBe(1);
    expect(rotate.stderr()).toMatch(/holds .* but cannot be reached/);
    expect((await readFile(path.join(dataDir, 'admin.key'), 'utf8')).trim()).toBe(old);
  });

  it('never sends the key to an address in a daemon.json that others could have written', async () => {
    const dataDir = await tempDir();
    const t = await startTestDaemon({ dataDir, apiKey: undefined, env: { NIMBUS_KEYCHAIN: 'off' } });
    await t.stop();
    let sawKey = false;
    const trap = http.createServer((req, res) => {
      sawKey ||= req.headers['api-key'] !== undefined;
      res.end('{}');
    });
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
      await writeFile(path.join(dataDir, 'daemon.json'), JSON.stringify({ pid: process.pid, url }), { mode: 0o666 });
      await chmod(path.join(dataDir, 'daemon.json'), 0o666);
      const rotate = runCli(['key', 'rotate', '--data-dir', dataDir], fileKeyEnv());
      await rotate.exited;
      expect(sawKey).toBe(false);
    } finally {
      trap.close();
    }
  });

  it('rotates the key offline when no daemon runs', async () => {
    const dataDir = await tempDir();
    const t = await startTestDaemon({ dataDir, apiKey: undefined, env: { NIMBUS_KEYCHAIN: 'off' } });
    const old = t.key;
    await t.stop();
    const rotate = runCli(['key', 'rotate', '--data-dir', dataDir], fileKeyEnv());
    expect(await rotate.exited).toBe(0);
    const fresh = rotate.stdout().trim();
    expect(fresh).not.toBe(old);
    await t.restart();
    t.key = fresh;
    try {
      expect((await t.api('GET', '/api/dash')).status).toBe(200);
      expect((await t.api('GET', '/api/dash', {}, { key: old })).status).toBe(401);
    } finally {
      await t.stop();
    }
  });

  it('refuses to rotate a key set by NIMBUS_API_KEY, with a clear message', async () => {
    const run = runCli(['key', 'rotate', '--data-dir', await tempDir()], fileKeyEnv({ NIMBUS_API_KEY: TEST_KEY }));
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toMatch(/NIMBUS_API_KEY/);
  });
});

describe('nimbus paths', () => {
  const expected = (dataDir: string) => ({
    dataDir,
    storageDir: path.join(dataDir, 'storage'),
    logDir: path.join(dataDir, 'logs'),
    logFile: path.join(dataDir, 'logs', 'nimbus.log'),
    store: path.join(dataDir, 'db.json'),
    runFile: path.join(dataDir, 'daemon.json'),
    lockFile: path.join(dataDir, 'nimbus.lock'),
    adminKeyFile: path.join(dataDir, 'admin.key'),
    outbox: path.join(dataDir, 'outbox'),
  });

  it('prints where the data, storage, logs, store and settings are, creating nothing', async () => {
    const home = await tempDir();
    const dataDir = path.join(home, 'data');
    const run = runCli(['paths', '--data-dir', dataDir], fileKeyEnv({ HOME: home, XDG_CONFIG_HOME: path.join(home, 'config') }));
    expect(await run.exited).toBe(0);
    const out = run.stdout();
    expect(out).toMatch(new RegExp(`^Data directory +${dataDir}  \\(not created yet\\)$`, 'm'));
    expect(out).toMatch(new RegExp(`^Storage +${path.join(dataDir, 'storage')}`, 'm'));
    expect(out).toMatch(new RegExp(`^Logs +${path.join(dataDir, 'logs')}`, 'm'));
    expect(out).toMatch(new RegExp(`^Current log +${path.join(dataDir, 'logs', 'nimbus.log')}`, 'm'));
    expect(out).toMatch(new RegExp(`^Store +${path.join(dataDir, 'db.json')}`, 'm'));
    expect(out).toMatch(/^Run file .*\(no daemon running\)$/m);
    expect(out).toMatch(new RegExp(`^Desktop settings +${path.join(home, 'config', 'Nimbus', 'Desktop', 'settings.json')}`, 'm'));
    expect(existsSync(dataDir)).toBe(false);
  });

  it('--json gives the same paths for tools, honouring NIMBUS_DATA_DIR and --storage-dir, and names a running daemon', async () => {
    const dataDir = await tempDir();
    const storage = path.join(await tempDir(), 'files');
    const t = await startTestDaemon({ dataDir, storageDir: storage });
    try {
      const run = runCli(['paths', '--json', '--storage-dir', storage], fileKeyEnv({ NIMBUS_DATA_DIR: dataDir }));
      expect(await run.exited).toBe(0);
      const paths = JSON.parse(run.stdout());
      expect(paths).toMatchObject({ ...expected(dataDir), storageDir: storage, running: { pid: process.pid, url: t.url } });
      expect(paths.desktopSettings).toMatch(/Nimbus[\\/]Desktop[\\/]settings\.json$/);
      expect(existsSync(paths.logFile)).toBe(true);
    } finally {
      await t.stop();
    }
  });

  it('says when the desktop app’s settings name another data directory', async () => {
    const home = await tempDir();
    const config = path.join(home, 'config');
    await mkdir(path.join(config, 'Nimbus', 'Desktop'), { recursive: true });
    await writeFile(path.join(config, 'Nimbus', 'Desktop', 'settings.json'), JSON.stringify({ dataDir: '/srv/elsewhere' }));
    const run = runCli(['paths', '--data-dir', path.join(home, 'data')], fileKeyEnv({ HOME: home, XDG_CONFIG_HOME: config }));
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toContain("The desktop app's settings name another data directory: /srv/elsewhere");
  });
});
