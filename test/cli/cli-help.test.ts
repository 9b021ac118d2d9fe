/**
 * The command line when the operator types something incomplete or misspelt (issue 29, item 10):
 * a command with subcommands alone lists them; a misspelt command, subcommand or option gets one
 * line naming the closest one. And the data directory `npm start` runs on is the one a bare
 * `nimbus key show` reads, so the README's set-up (`npm install && npm start`, then the key) holds.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closest, editDistance } from '../../daemon/cli/suggest.js';
import { childEnv, ROOT, runCli, type CliRun } from '../helpers/child.js';

const dirs: string[] = [];
const running: CliRun[] = [];
afterEach(async () => {
  for (const run of running.splice(0)) if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** Runs `nimbus args…` to its end: exit code, stdout, stderr. */
async function nimbus(args: string[], env = childEnv({ NIMBUS_KEYCHAIN: 'off' })) {
  const run = runCli(args, env);
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

const lines = (text: string) => text.split('\n').filter((line) => line !== '');

describe('a command with subcommands, alone', () => {
  it('`nimbus key` lists show and rotate with what each does (exit 1: nothing was done), as `nimbus key --help` does (exit 0)', async () => {
    const [alone, help] = await Promise.all([nimbus(['key']), nimbus(['key', '--help'])]);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toBe('');
    expect(alone.stdout).not.toMatch(/unknown command/);
    expect(alone.stdout).toMatch(/^ {2}nimbus key show +Print the admin API key/m);
    expect(alone.stdout).toMatch(/^ {2}nimbus key rotate +Replace the admin API key/m);
    expect(lines(alone.stdout).length).toBeLessThan(15);
    expect(help).toEqual({ ...alone, code: 0 });
  });

  it('`nimbus user` and `nimbus role` list their subcommands, not a refusal and the whole usage', async () => {
    const [user, role] = await Promise.all([nimbus(['user']), nimbus(['role'])]);
    for (const [run, subs] of [
      [user, ['list', 'add', 'passwd', 'role', 'delete']],
      [role, ['list', 'show', 'add', 'edit', 'delete']],
    ] as const) {
      expect(run.code).toBe(1);
      expect(run.stderr).toBe('');
      for (const sub of subs) expect(run.stdout).toMatch(new RegExp(`^ {2}nimbus \\w+ ${sub}\\b`, 'm'));
      expect(run.stdout).not.toContain('nimbus daemon');
    }
  });

  it('a misspelt subcommand gets the closest one, in one line', async () => {
    const [key, user, far] = await Promise.all([nimbus(['key', 'shwo']), nimbus(['user', 'lsit']), nimbus(['role', 'zzzzzz'])]);
    expect(key).toEqual({ code: 1, stdout: '', stderr: 'nimbus key: unknown subcommand "shwo"; did you mean show?\n' });
    expect(user).toEqual({ code: 1, stdout: '', stderr: 'nimbus user: unknown subcommand "lsit"; did you mean list?\n' });
    expect(far.code).toBe(1);
    expect(far.stderr).toBe('nimbus role: unknown subcommand "zzzzzz" (one of list, show, add, edit, delete)\n');
  });
});

describe('misspelt options and commands', () => {
  it('`nimbus daemon --prot 1` (and --data-dri, -port) gets "did you mean --port?" in one line, before anything starts', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-help-'));
    dirs.push(dataDir);
    const [prot, dri, dash] = await Promise.all([
      nimbus(['daemon', '--prot', '1', '--data-dir', dataDir]),
      nimbus(['daemon', '--port', '0', '--data-dri', dataDir]),
      nimbus(['daemon', '-port', '0', '--data-dir', dataDir]),
    ]);
    expect(prot).toEqual({ code: 1, stdout: '', stderr: "nimbus daemon: Unknown option '--prot'; did you mean --port?\n" });
    expect(dri).toEqual({ code: 1, stdout: '', stderr: "nimbus daemon: Unknown option '--data-dri'; did you mean --data-dir?\n" });
    expect(dash).toEqual({ code: 1, stdout: '', stderr: "nimbus daemon: Unknown option '-port'; did you mean --port?\n" });
    // Refused before the daemon made anything in the data directory.
    expect(await readdir(dataDir)).toEqual([]);
  });

  it("suggests among the command's own options only, and says where the list is when nothing is close", async () => {
    const [json, far, user] = await Promise.all([
      nimbus(['paths', '--jsno']),
      nimbus(['paths', '--frobnicate']),
      nimbus(['user', 'add', 'ana', '--emial', 'a@example.com']),
    ]);
    expect(json.stderr).toBe("nimbus paths: Unknown option '--jsno'; did you mean --json?\n");
    expect(far.stderr).toBe("nimbus paths: Unknown option '--frobnicate' (`nimbus paths --help` lists the options)\n");
    expect(user.stderr).toBe("nimbus user: Unknown option '--emial'; did you mean --email?\n");
    expect([json.code, far.code, user.code]).toEqual([1, 1, 1]);
  });

  it('`nimbus deamon` gets "did you mean daemon?" in one line, not the usage', async () => {
    const [deamon, far] = await Promise.all([nimbus(['deamon']), nimbus(['frobnicate'])]);
    expect(deamon).toEqual({ code: 1, stdout: '', stderr: 'nimbus: unknown command "deamon"; did you mean daemon?\n' });
    expect(far).toEqual({ code: 1, stdout: '', stderr: 'nimbus: unknown command "frobnicate" (`nimbus --help` lists the commands)\n' });
  });

  it('counts a swap of two letters as one slip, and guesses nothing far-fetched', () => {
    expect(editDistance('deamon', 'daemon')).toBe(1);
    expect(editDistance('prot', 'port')).toBe(1);
    expect(editDistance('data-dri', 'data-dir')).toBe(1);
    expect(closest('PORT', ['host', 'port'])).toBe('port');
    expect(closest('data', ['data-dir', 'storage-dir'])).toBe('data-dir'); // the one option it begins
    expect(closest('x', ['port', 'host'])).toBeNull();
    expect(closest('restart', ['restore', 'paths'])).toBeNull(); // 2 edits in 7 letters: another word, and a risky guess
  });
});

describe('the data directory of `npm start` and of `nimbus key show`', () => {
  it('`npm start` runs bin/start.js, which runs the build of main/start.ts (the script the next test runs)', async () => {
    const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
    expect(pkg.scripts.start).toBe('node bin/start.js');
    expect(await readFile(path.join(ROOT, 'bin', 'start.js'), 'utf8')).toContain("path.join(root, 'dist', 'main', 'start.js')");
  });

  // Linux only: elsewhere Electron could start and the default lives under Library or %APPDATA%.
  it.skipIf(process.platform !== 'linux')(
    'on a fresh machine, `npm start` (no Electron) and a bare `nimbus key show` use the same data directory and key',
    async () => {
      const home = await mkdtemp(path.join(os.tmpdir(), 'nimbus-home-'));
      dirs.push(home);
      // A fresh user: no NIMBUS_DATA_DIR, no XDG_DATA_HOME, no display; only the port is free-picked.
      const env = childEnv({ HOME: home, NIMBUS_KEYCHAIN: 'off', NIMBUS_PORT: '0' });
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
      const [show, paths] = await Promise.all([nimbus(['key', 'show'], env), nimbus(['paths', '--json'], env)]);
      expect(show.code, show.stderr).toBe(0);
      expect((await fetch(`${url}/api/dash`, { headers: { 'API-Key': show.stdout.trim() } })).status).toBe(200);
      const where = JSON.parse(paths.stdout) as { dataDir: string; running: { url: string } | null };
      expect(where.dataDir).toBe(path.join(home, '.local', 'share', 'nimbus'));
      expect(where.running?.url).toBe(url);
    },
  );
});
