/**
 * PostgreSQL and Swift (S3) for the cluster rows, as throwaway processes in one engine home.
 * Swift, the home and its reaping come from the test helpers (test/helpers/engines): one way
 * to start the engines, not two. PostgreSQL is started here instead, because the tests'
 * server runs with fsync off, and a bench row of "durable mutations" on a database that does
 * not fsync would measure a durability Nimbus does not give: this one keeps PostgreSQL's
 * defaults (fsync, synchronous_commit, full_page_writes on), as an operator would run it.
 */
import { spawnSync } from 'node:child_process';
import { chown, mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from '../../test/helpers/engines/free-port.js';
import { createHome, PG_BIN, stopHomeSync, userIds } from '../../test/helpers/engines/home.js';
import { logTail, run } from '../../test/helpers/engines/run.js';
import { startSwiftServer, type SwiftServer } from '../../test/helpers/engines/swift.js';

export interface BenchEngines {
  /** postgres://… of the server's `postgres` database. */
  databaseUrl: string;
  s3: SwiftServer;
  /** ms each engine took to answer. */
  startMs: { postgres: number; swift: number };
  /** Stops both and removes their files. */
  close(): void;
}

/** Both engines, or a throw saying which one could not start and why. */
export async function startBenchEngines(): Promise<BenchEngines> {
  const home = await createHome();
  try {
    let t = performance.now();
    const databaseUrl = await startDurablePostgres(home);
    const postgres = performance.now() - t;
    t = performance.now();
    const s3 = await startSwiftServer(home);
    const swift = performance.now() - t;
    return { databaseUrl, s3, startMs: { postgres, swift }, close: () => stopHomeSync(home) };
  } catch (err) {
    stopHomeSync(home);
    throw err;
  }
}

async function startDurablePostgres(home: string): Promise<string> {
  // As the recipe does: a system user for the server when the machine has none.
  if (asRoot() && spawnSync('id', ['postgres'], { stdio: 'ignore' }).status !== 0) {
    spawnSync('useradd', ['--system', '--home', '/nonexistent', '--shell', '/usr/sbin/nologin', 'postgres'], { stdio: 'ignore' });
  }
  const dir = await mkdtemp(path.join(home, 'pg-'));
  if (asRoot()) {
    const { uid, gid } = userIds('postgres');
    await chown(dir, uid, gid);
  }
  const dataDir = path.join(dir, 'data');
  const log = path.join(dir, 'server.log');
  const port = await freePort();
  const asPostgres = (command: string, args: string[]) =>
    asRoot() ? run('runuser', ['-u', 'postgres', '--', path.join(PG_BIN, command), ...args]) : run(path.join(PG_BIN, command), args);
  await asPostgres('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale']);
  // Two daemons' pools, the listeners and the loader fit well under 200 connections.
  const options = [`-p ${port}`, `-k ${dir}`, '-c listen_addresses=127.0.0.1', '-c max_connections=200'].join(' ');
  try {
    await asPostgres('pg_ctl', ['-D', dataDir, '-l', log, '-w', '-t', '60', '-o', options, 'start']);
  } catch (err) {
    throw new Error(`PostgreSQL did not start: ${(err as Error).message}\n--- ${log}:\n${await logTail(log)}`);
  }
  return `postgres://postgres@127.0.0.1:${port}/postgres`;
}

function asRoot(): boolean {
  return process.getuid?.() === 0;
}
