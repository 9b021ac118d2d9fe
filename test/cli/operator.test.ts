/**
 * The operator commands as an operator runs them: the real `nimbus` binary (bin/nimbus.js,
 * dist/ after `npm run build`) against temp data directories, with and without a daemon on
 * them. `nimbus user` and `nimbus role`, `nimbus backup` while uploads go on and `nimbus
 * restore` into a fresh directory served again, a re-run that copies only what is missing,
 * `nimbus check`, and the systemd units.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, chmod, copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv, NIMBUS, ROOT, spawnDaemon, type CliRun } from '../helpers/child.js';

const KEY = 'operator-test-admin-key-0123456789';
const env = (extra: NodeJS.ProcessEnv = {}) => childEnv({ NIMBUS_KEYCHAIN: 'off', NIMBUS_API_KEY: KEY, ...extra });
const dirs: string[] = [];
const daemons: CliRun[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-operator-'));
  dirs.push(dir);
  return dir;
};

afterAll(async () => {
  for (const d of daemons) if (d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGKILL');
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

interface Done {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `nimbus args…` to its end, with `stdin` piped in (no terminal: the commands never prompt). */
function nimbus(args: string[], stdin = '', extraEnv: NodeJS.ProcessEnv = {}): Promise<Done> {
  const child = spawn(process.execPath, [...NIMBUS, ...args], { cwd: ROOT, env: env(extraEnv), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin.end(stdin);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

async function startDaemon(dataDir: string): Promise<CliRun & { url: string }> {
  const daemon = await spawnDaemon(dataDir, env());
  daemons.push(daemon);
  return daemon;
}

async function stopDaemon(daemon: CliRun): Promise<void> {
  daemon.child.kill('SIGTERM');
  await daemon.exited;
}

async function call(url: string, method: string, route: string, params: Record<string, string> = {}, body?: Uint8Array) {
  const query = new URLSearchParams(params).toString();
  const res = await fetch(`${url}${route}${query ? `?${query}` : ''}`, {
    method,
    headers: { 'API-Key': KEY },
    body: body as BodyInit | undefined,
  });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

const json = (buf: Buffer) => JSON.parse(buf.toString('utf8'));

async function signIn(url: string, username: string, password: string): Promise<number> {
  const res = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** The bytes of upload number `i` (a deterministic 1–24 KiB), so a restored file can be told whole from torn. */
const bytesOf = (name: string) => {
  const seed = createHash('sha256').update(name).digest();
  return Buffer.concat(
    Array.from({ length: 32 + (seed[0] % 700) }, (_, n) => createHash('sha256').update(seed).update(String(n)).digest()),
  );
};

describe('nimbus user and role', () => {
  it('manage accounts with no daemon running (the store opened under its lock), then a daemon signs them in', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const at = ['--data-dir', dataDir];
    const added = await nimbus(['user', 'add', 'ana', '--email', 'ana@example.com', '--password-stdin', ...at], 'first-pass-42\n');
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/Created ana with the role user \(the store of .* \(no daemon was running\)\)/);
    // The daemon's rules, before anything changes: each is refused with a message and exit 1.
    // The two that open the store run one after the other (a second would wait on the first one's lock).
    const opening = (async () => [
      await nimbus(['user', 'add', 'b/ob', '--email', 'b@example.com', '--password-stdin', ...at], 'first-pass-42\n'),
      await nimbus(['user', 'add', 'bob', '--email', 'b@example.com', '--password-stdin', ...at], 'short\n'),
    ])();
    const early = await Promise.all([
      nimbus(['user', 'add', 'bob', ...at]),
      nimbus(['user', 'add', 'bob', '--email', 'b@example.com', ...at]),
      nimbus(['user', 'delete', 'ana', ...at]),
      nimbus(['user', 'add', 'bob', '--email', 'b@example.com', '--password', 'x', ...at]),
      nimbus(['role', 'add', 'tin', '--max-storage', 'lots', ...at]),
    ]);
    const [badName, weak] = await opening;
    expect([...early, badName, weak].map((r) => r.code)).toEqual([1, 1, 1, 1, 1, 1, 1]);
    expect(early[0].stderr).toMatch(/--email ADDRESS is required/);
    expect(early[1].stderr).toMatch(/no terminal to ask the password on: .*--password-stdin/);
    expect(early[2].stderr).toMatch(/pass --yes/);
    expect(early[3].stderr).toMatch(/Unknown option '--password'/);
    expect(early[4].stderr).toMatch(/invalid --max-storage: lots/);
    expect(badName.stderr).toMatch(/nimbus user: Parameter username/);
    expect(weak.stderr).toMatch(/at least 8 characters/);
    const passwd = await nimbus(['user', 'passwd', 'ana', '--password-stdin', ...at], 'second-pass-42\n');
    expect(passwd.code).toBe(0);
    const listed = await nimbus(['user', 'list', '--json', ...at]);
    expect(json(Buffer.from(listed.stdout)).map((u: { username: string }) => u.username)).toEqual(['ana']);
    expect(existsSync(path.join(dataDir, 'storage', 'ana'))).toBe(true);
    expect(existsSync(path.join(dataDir, 'storage', 'bob'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'nimbus.lock'))).toBe(false);

    const daemon = await startDaemon(dataDir);
    expect(await signIn(daemon.url, 'ana', 'second-pass-42')).toBe(200);
    expect(await signIn(daemon.url, 'ana', 'first-pass-42')).toBe(401);
    await stopDaemon(daemon);
  });

  it('ask for a password on a terminal twice, echoing nothing', async (ctx) => {
    // util-linux's `script` gives the command a terminal (Node has no pty of its own).
    if (spawnSync('script', ['--version']).error) return ctx.skip();
    const dataDir = path.join(await tempDir(), 'data');
    const line = [process.execPath, ...NIMBUS, 'user', 'add', 'zoe', '--email', 'zoe@example.com', '--data-dir', dataDir];
    const child = spawn('script', ['-qec', line.map((arg) => `'${arg}'`).join(' '), '/dev/null'], { cwd: ROOT, env: env() });
    let seen = '';
    let wake = () => undefined as void;
    child.stdout.on('data', (c: Buffer) => ((seen += c.toString()), wake()));
    const waitFor = (text: string) =>
      new Promise<void>((resolve) => {
        wake = () => void (seen.includes(text) && resolve());
        wake();
      });
    await waitFor('New password for zoe: ');
    child.stdin.write('zoes-secret-77\r');
    await waitFor('Again: ');
    child.stdin.write('zoes-secret-77\r');
    await new Promise((resolve) => child.on('close', resolve));
    expect(seen).toMatch(/Created zoe with the role user/);
    expect(seen).not.toContain('zoes-secret');
  });

  it('go through the running daemon, whose API shows each change at once', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const at = ['--data-dir', dataDir];
    const daemon = await startDaemon(dataDir);
    const added = await nimbus(['user', 'add', 'bob', '--email', 'bob@example.com', '--password-stdin', ...at], 'bobs-pass-4242\n');
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/the daemon running on .* \(pid \d+\)/);
    expect(json((await call(daemon.url, 'GET', '/api/user', { username: 'bob' })).body).email).toBe('bob@example.com');
    expect(await signIn(daemon.url, 'bob', 'bobs-pass-4242')).toBe(200);
    expect((await nimbus(['user', 'passwd', 'bob', '--password-stdin', ...at], 'bobs-new-pass-77\n')).code).toBe(0);
    expect(await signIn(daemon.url, 'bob', 'bobs-new-pass-77')).toBe(200);
    expect(await signIn(daemon.url, 'bob', 'bobs-pass-4242')).toBe(401);

    // Roles: what the API's role endpoints allow, with their refusals.
    expect((await nimbus(['role', 'add', 'gold', '--max-storage', '1024', ...at])).code).toBe(0);
    expect((await nimbus(['user', 'role', 'bob', 'gold', ...at])).code).toBe(0);
    expect(json((await call(daemon.url, 'GET', '/api/user', { username: 'bob' })).body).role).toBe('gold');
    const inUse = await nimbus(['role', 'delete', 'gold', ...at]);
    expect([inUse.code, inUse.stderr]).toEqual([1, 'nimbus role: Role is still assigned to 1 user\n']);
    const builtIn = await nimbus(['role', 'delete', 'admin', ...at]);
    expect(builtIn.code).toBe(1);
    expect(builtIn.stderr).toMatch(/Built-in roles cannot be deleted/);
    expect((await nimbus(['role', 'edit', 'gold', '--name', 'platinum', '--max-storage=-1', ...at])).code).toBe(0);
    const role = json((await call(daemon.url, 'GET', '/api/role', { name: 'platinum' })).body);
    expect([role.maxStorage, role.badge]).toEqual([-1, `${daemon.url}/badges/user.svg`]);
    expect(json((await call(daemon.url, 'GET', '/api/user', { username: 'bob' })).body).role).toBe('platinum');
    const roles = await nimbus(['role', 'list', ...at]);
    expect(roles.stdout).toMatch(/^platinum +unlimited +no +\/badges\/user\.svg$/m);

    const deleted = await nimbus(['user', 'delete', 'bob', '--yes', ...at]);
    expect(deleted.code).toBe(0);
    expect((await call(daemon.url, 'GET', '/api/user', { username: 'bob' })).status).toBe(404);
    expect(existsSync(path.join(dataDir, 'storage', 'bob'))).toBe(false);
    expect((await nimbus(['role', 'delete', 'platinum', ...at])).code).toBe(0);
    await stopDaemon(daemon);
  });

  it('print their own --help, which says where passwords come from', async () => {
    const [user, role, backup, restore, check] = await Promise.all(
      ['user', 'role', 'backup', 'restore', 'check'].map((command) => nimbus([command, '--help'])),
    );
    for (const run of [user, role, backup, restore, check]) expect(run.code).toBe(0);
    expect(user.stdout).toMatch(/never taken from the command line/);
    expect(user.stdout).toContain('--password-stdin');
    expect(role.stdout).toContain('nimbus role edit NAME');
    expect(backup.stdout).toContain('pg_dump');
    expect(restore.stdout).toContain('--force');
    expect(check.stdout).toContain('--ready');
  });
});

describe('nimbus backup and restore', () => {
  it('copy a daemon under uploads; the restored daemon serves every acknowledged file whole', async () => {
    const root = await tempDir();
    const dataDir = path.join(root, 'data');
    const backupDir = path.join(root, 'backup');
    const daemon = await startDaemon(dataDir);
    expect(
      (await call(daemon.url, 'POST', '/api/user/create', { username: 'ana', email: 'a@example.com', password: 'ana-pass-4242' })).status,
    ).toBe(201);
    // Uploads in a loop, one overwritten name among them (its old bytes become a version).
    const acknowledged = new Map<string, Buffer>();
    const versions = new Map<string, Buffer[]>();
    let uploading = true;
    let n = 0;
    const put = async (name: string, bytes: Buffer, overwrite = false) => {
      const res = await call(
        daemon.url,
        'POST',
        '/api/files/upload',
        { username: 'ana', file: name, ...(overwrite ? { overwrite: 'true' } : {}) },
        bytes,
      );
      expect(res.status).toBe(201);
    };
    const loop = (async () => {
      while (uploading) {
        const name = `f${n++}.bin`;
        await put(name, bytesOf(name));
        acknowledged.set(name, bytesOf(name));
        const again = bytesOf(`again-${n}`);
        await put('again.bin', again, true);
        versions.set('again.bin', [...(versions.get('again.bin') ?? []), again]);
      }
    })();
    while (acknowledged.size < 20) await new Promise((resolve) => setTimeout(resolve, 20));
    const before = new Set(acknowledged.keys());
    const backup = await nimbus(['backup', backupDir, '--data-dir', dataDir]);
    uploading = false;
    await loop;
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    expect(backup.stdout).toMatch(/while the daemon \(pid \d+\) runs/);
    const manifest = JSON.parse(await readFile(path.join(backupDir, 'nimbus-backup.json'), 'utf8'));
    expect(manifest.state).toBe('complete');

    // Not while a daemon runs on the target, not into a non-empty one, not from PostgreSQL.
    const busy = await nimbus(['restore', backupDir, '--data-dir', dataDir]);
    expect([busy.code, busy.stderr]).toEqual([1, expect.stringMatching(/a daemon \(pid \d+\) runs on .*: stop it first/)]);
    const target = path.join(root, 'restored');
    await writeFile(path.join(root, 'note.txt'), 'x');
    const full = await nimbus(['restore', backupDir, '--data-dir', root]);
    expect(full.stderr).toMatch(/is not empty: .*--force/);
    const pg = await nimbus(['backup', path.join(root, 'pg'), '--data-dir', dataDir], '', {
      NIMBUS_DATABASE_URL: 'postgres://x:y@127.0.0.1:1/x',
    });
    expect([pg.code, pg.stderr]).toEqual([1, expect.stringMatching(/embedded installations .* only; .*pg_dump/)]);
    expect(existsSync(path.join(root, 'pg'))).toBe(false);

    const restored = await nimbus(['restore', backupDir, '--data-dir', target]);
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    await stopDaemon(daemon);
    const again = await startDaemon(target);
    const listed = json((await call(again.url, 'GET', '/api/files', { username: 'ana' })).body).files as { name: string }[];
    const names = new Set(listed.map((f) => f.name));
    for (const name of before) expect(names.has(name), name).toBe(true);
    // Every file there, acknowledged before or during the backup, is whole: none torn.
    for (const name of names) {
      const got = (await call(again.url, 'GET', '/api/files/download', { username: 'ana', file: name })).body;
      if (name === 'again.bin') expect(versions.get(name)!.some((v) => v.equals(got))).toBe(true);
      else expect(got.equals(acknowledged.get(name)!), name).toBe(true);
    }
    expect(await signIn(again.url, 'ana', 'ana-pass-4242')).toBe(200);
    await stopDaemon(again);
  });

  it('copies only what changed or is missing when run again, and finishes an interrupted run', async () => {
    const root = await tempDir();
    const dataDir = path.join(root, 'data');
    const backupDir = path.join(root, 'backup');
    const daemon = await startDaemon(dataDir);
    await call(daemon.url, 'POST', '/api/user/create', { username: 'ana', email: 'a@example.com', password: 'ana-pass-4242' });
    for (let i = 0; i < 12; i++)
      await call(daemon.url, 'POST', '/api/files/upload', { username: 'ana', file: `f${i}.bin` }, bytesOf(`f${i}`));
    await stopDaemon(daemon);
    const storageLine = (out: string) =>
      /storage +(\d+) files: (\d+) copied .*, (\d+) unchanged, (\d+) removed/.exec(out)!.slice(1).map(Number);
    // The marker file and 12 uploads.
    const first = await nimbus(['backup', backupDir, '--data-dir', dataDir]);
    expect(first.code).toBe(0);
    expect(storageLine(first.stdout)).toEqual([13, 13, 0, 0]);
    expect(storageLine((await nimbus(['backup', backupDir, '--data-dir', dataDir])).stdout)).toEqual([13, 0, 13, 0]);

    // As an interrupted run leaves it: two files never copied, a temp half written, the manifest unfinished.
    await rm(path.join(backupDir, 'storage', 'ana', 'f3.bin'));
    await rm(path.join(backupDir, 'storage', 'ana', 'f7.bin'));
    await writeFile(path.join(backupDir, 'storage', 'ana', '.nimbus-backup-0123456789abcdef.part'), 'half');
    const manifestFile = path.join(backupDir, 'nimbus-backup.json');
    await writeFile(manifestFile, JSON.stringify({ ...JSON.parse(await readFile(manifestFile, 'utf8')), state: 'incomplete' }));
    const refused = await nimbus(['restore', backupDir, '--data-dir', path.join(root, 'r')]);
    expect(refused.stderr).toMatch(/was interrupted; run `nimbus backup .*` again/);
    // Meanwhile one file changed in place and one was deleted.
    await appendFile(path.join(dataDir, 'storage', 'ana', 'f5.bin'), 'more');
    await rm(path.join(dataDir, 'storage', 'ana', 'f9.bin'));
    const rerun = await nimbus(['backup', backupDir, '--data-dir', dataDir]);
    expect(rerun.code).toBe(0);
    expect(storageLine(rerun.stdout)).toEqual([12, 3, 9, 1]);
    expect(await readdir(path.join(backupDir, 'storage', 'ana'))).not.toContain('.nimbus-backup-0123456789abcdef.part');
    const copied = await readFile(path.join(backupDir, 'storage', 'ana', 'f5.bin'));
    expect(copied.equals(await readFile(path.join(dataDir, 'storage', 'ana', 'f5.bin')))).toBe(true);

    // A damaged backup file is caught by the manifest's sha256, and the store is not restored.
    const bytes = await readFile(path.join(backupDir, 'storage', 'ana', 'f1.bin'));
    bytes[0] ^= 0xff;
    await writeFile(path.join(backupDir, 'storage', 'ana', 'f1.bin'), bytes);
    const bad = await nimbus(['restore', backupDir, '--data-dir', path.join(root, 'r2')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/storage\/ana\/f1\.bin: differs from the manifest/);
    expect(existsSync(path.join(root, 'r2', 'db.json'))).toBe(false);
  });
});

describe('nimbus check', () => {
  it('says OK on a good set-up, FAIL (exit 1) on a data directory others may write or an unreachable database', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    await stopDaemon(await startDaemon(dataDir));
    const good = await nimbus(['check', '--data-dir', dataDir]);
    expect(good.code).toBe(0);
    for (const what of ['configuration', 'data dir', 'db.json', 'store', 'disk', 'inotify', 'daemon'])
      expect(good.stdout).toMatch(new RegExp(`^(OK|WARN) +${what} `, 'm'));
    expect(good.stdout).not.toMatch(/^FAIL/m);

    await chmod(dataDir, 0o777);
    const open = await nimbus(['check', '--data-dir', dataDir]);
    await chmod(dataDir, 0o700);
    expect(open.code).toBe(1);
    expect(open.stdout).toMatch(/^FAIL +data dir +.* is mode 0777: others may write into it; chmod 700/m);

    const [noDb, badConfig, notReady] = await Promise.all([
      nimbus(['check', '--data-dir', dataDir], '', { NIMBUS_DATABASE_URL: 'postgres://nimbus:secret@127.0.0.1:1/nimbus' }),
      nimbus(['check', '--data-dir', dataDir], '', { NIMBUS_PORT: '99999' }),
      nimbus(['check', '--ready', '--timeout', '1', '--data-dir', dataDir]),
    ]);
    expect(noDb.code).toBe(1);
    expect(noDb.stdout).toMatch(/^FAIL +database +postgres:\/\/nimbus:\*\*\*@127\.0\.0\.1:1\/nimbus: ECONNREFUSED/m);
    expect(noDb.stdout).not.toContain('secret');
    expect([badConfig.code, badConfig.stdout]).toEqual([1, 'FAIL  configuration Invalid port: 99999\n']);
    expect(notReady.code).toBe(1);
    expect(notReady.stderr).toMatch(/was not ready within 1 s/);
  });

  it('the systemd units pass systemd-analyze verify', async (ctx) => {
    const analyze = spawnSync('systemd-analyze', ['--version']);
    if (analyze.error) return ctx.skip();
    const dir = await tempDir();
    for (const unit of ['nimbus.service', 'nimbus@.service']) await copyFile(path.join(ROOT, 'deploy', unit), path.join(dir, unit));
    for (const unit of ['nimbus.service', 'nimbus@7878.service']) {
      const run = spawnSync('systemd-analyze', ['verify', path.join(dir, unit)], { encoding: 'utf8' });
      expect([run.status, run.stderr]).toEqual([0, '']);
    }
    const text = await readFile(path.join(ROOT, 'deploy', 'nimbus.service'), 'utf8');
    expect(text).toMatch(/^StateDirectory=nimbus$/m);
    expect(text).toMatch(/^ExecStartPost=.* check --ready .*--pid \$MAINPID$/m);
  });
});
