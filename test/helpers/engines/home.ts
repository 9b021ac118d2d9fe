/**
 * Where engines keep their state: one temp directory per owner process ("home"), named
 * nimbus-engines-*, holding owner.pid. A run killed with SIGKILL cannot stop its engines,
 * so each home has a watchdog (watchdog.sh) that stops its servers once the owner is gone,
 * and every new home first reaps homes whose owner is gone (had the watchdog died too):
 * their servers are stopped by the ids recorded inside, and the directories removed. Ports
 * are always fresh, so a leftover that could not be reaped still does not break a run.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isAlive } from './run.js';

const PREFIX = 'nimbus-engines-';
/** The newest installed PostgreSQL's programs (Debian keeps them per version, outside PATH). */
export const PG_BIN = newestPostgresBin();
const WATCHDOG = fileURLToPath(new URL('./watchdog.sh', import.meta.url));

/** A fresh home owned by this process (after reaping the dead ones). */
export async function createHome(): Promise<string> {
  reapAbandonedHomes();
  const home = await mkdtemp(path.join(os.tmpdir(), PREFIX));
  // Service users (postgres, swift) own directories inside: they must be able to pass through.
  await chmod(home, 0o755);
  await writeFile(path.join(home, 'owner.pid'), String(process.pid));
  // Stops the servers when this process ends without stopping them itself.
  spawn('sh', [WATCHDOG, home, String(process.pid)], { detached: true, stdio: 'ignore' }).unref();
  return home;
}

export function userIds(user: string): { uid: number; gid: number } {
  const out = spawnSync('id', ['-u', user], { encoding: 'utf8' });
  const gidOut = spawnSync('id', ['-g', user], { encoding: 'utf8' });
  if (out.status !== 0 || gidOut.status !== 0) throw new Error(`No OS user ${user}`);
  return { uid: Number(out.stdout.trim()), gid: Number(gidOut.stdout.trim()) };
}

/**
 * Stops everything a home started, synchronously (usable in an 'exit' handler): each
 * PostgreSQL data directory in it, and each process group named by a *.pgid file.
 */
export function stopHomeSync(home: string): void {
  for (const entry of safeReaddir(home)) {
    const dir = path.join(home, entry);
    if (existsSync(path.join(dir, 'data', 'postmaster.pid'))) stopPostgresSync(path.join(dir, 'data'));
    for (const file of safeReaddir(path.join(dir, 'run'))) {
      if (!file.endsWith('.pgid')) continue;
      const pgid = Number(readFileSync(path.join(dir, 'run', file), 'utf8'));
      if (pgid > 1) killGroup(pgid, 'SIGKILL');
    }
  }
  rmSync(home, { recursive: true, force: true });
}

export function stopPostgresSync(dataDir: string): void {
  const asPostgres = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
  const [cmd, ...args] = [...asPostgres, path.join(PG_BIN, 'pg_ctl'), '-D', dataDir, '-m', 'immediate', '-w', 'stop'];
  spawnSync(cmd, args, { stdio: 'ignore' });
}

export function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

function reapAbandonedHomes(): void {
  for (const name of safeReaddir(os.tmpdir())) {
    if (!name.startsWith(PREFIX)) continue;
    const home = path.join(os.tmpdir(), name);
    let owner = 0;
    try {
      owner = Number(readFileSync(path.join(home, 'owner.pid'), 'utf8'));
    } catch {
      continue; // being created right now, or not ours
    }
    if (owner > 0 && !isAlive(owner)) stopHomeSync(home);
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function newestPostgresBin(): string {
  const versions = safeReaddir('/usr/lib/postgresql')
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(a) - Number(b));
  return path.join('/usr/lib/postgresql', versions.at(-1) ?? '15', 'bin');
}
