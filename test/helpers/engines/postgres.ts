/**
 * A throwaway PostgreSQL 15 server in a directory of an engine home: initdb (as the
 * `postgres` OS user when we are root: initdb refuses root), a free port, durability off
 * (tests never survive a power cut) and enough connections for many daemons × pools.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.js';
import { PG_BIN, userIds } from './home.js';
import { logTail, run } from './run.js';

export interface PostgresServer {
  url: string;
  port: number;
  dir: string;
  /** pg_ctl stop -m fast, or -m immediate (a crash: no clean shutdown); the data stays. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts again on the same port and data. */
  restart(): Promise<void>;
  /** Stops at once and removes the directory. */
  close(): Promise<void>;
}

const SETTINGS = ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off', '-c max_connections=500'];

export interface PostgresOptions {
  /**
   * Commits acknowledged only once in the WAL (synchronous_commit on): with it off, a stop
   * `-m immediate` loses the commits of the last ~200 ms the daemons already acknowledged.
   * For a test that counts acknowledged writes across a crash of the server (fsync stays off:
   * the machine itself does not crash, so what was written stays).
   */
  durableCommits?: boolean;
}

export async function startPostgresServer(home: string, signal?: AbortSignal, options: PostgresOptions = {}): Promise<PostgresServer> {
  ensurePostgresUser();
  const dir = await mkdtemp(path.join(home, 'pg-'));
  const dataDir = path.join(dir, 'data');
  const log = path.join(dir, 'server.log');
  if (asRoot()) {
    const { uid, gid } = userIds('postgres');
    await chown(dir, uid, gid);
  }
  const port = await freePort();
  const pgCtl = (...args: string[]) => runAsPostgres(path.join(PG_BIN, 'pg_ctl'), ['-D', dataDir, ...args]);
  const start = async () => {
    const settings = options.durableCommits ? SETTINGS.filter((s) => !s.includes('synchronous_commit')) : SETTINGS;
    const serverOptions = [`-p ${port}`, `-k ${dir}`, '-c listen_addresses=127.0.0.1', ...settings].join(' ');
    try {
      await runAsPostgres(path.join(PG_BIN, 'pg_ctl'), ['-D', dataDir, '-l', log, '-w', '-t', '60', '-o', serverOptions, 'start'], signal);
    } catch (err) {
      throw new Error(`PostgreSQL did not start: ${(err as Error).message}\n--- ${log}:\n${await logTail(log)}`);
    }
  };
  try {
    await runAsPostgres(
      path.join(PG_BIN, 'initdb'),
      ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync'],
      signal,
    );
    await start();
  } catch (err) {
    await pgCtl('-m', 'immediate', '-w', 'stop').catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    async stop(mode = 'fast') {
      await pgCtl('-m', mode, '-w', 'stop');
    },
    restart: start,
    async close() {
      await pgCtl('-m', 'immediate', '-w', 'stop').catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A new empty database on a server; returns its URL. */
export async function createDatabase(serverUrl: string): Promise<string> {
  const name = `nimbus_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function asRoot(): boolean {
  return process.getuid?.() === 0;
}

function runAsPostgres(command: string, args: string[], signal?: AbortSignal): Promise<string> {
  return asRoot() ? run('runuser', ['-u', 'postgres', '--', command, ...args], { signal }) : run(command, args, { signal });
}

/** As the recipe does: a system user for the server when the machine has none. */
function ensurePostgresUser(): void {
  if (!asRoot() || spawnSync('id', ['postgres'], { stdio: 'ignore' }).status === 0) return;
  spawnSync('useradd', ['--system', '--home', '/nonexistent', '--shell', '/usr/sbin/nologin', 'postgres'], { stdio: 'ignore' });
}
