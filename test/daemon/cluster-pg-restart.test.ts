/**
 * PostgreSQL restarted under load never ends a daemon (issue 23, item 1). A cluster daemon
 * (a child process, so that an exit is seen, not a crashed test runner) takes uploads in
 * rounds; 40 ms into each round the database is stopped (`-m fast`, then `-m immediate`, in
 * turn) and started again. The driver's FATAL 57P01 then reaches connections the pool has
 * just opened or handed out: each must have an 'error' listener by then, or the process dies.
 * Every upload gets an HTTP answer (201, or 503 while the database is away), and after each
 * restart the daemon takes uploads again by itself; the lost connections are logged as
 * warnings. A daemon that exits is counted and started again, so that one run says how often
 * it happened. A private PostgreSQL (startPostgres()) so that stopping it touches no other test.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { childEnv, spawnDaemon, type CliRun } from '../helpers/child.js';
import { TEST_KEY } from '../helpers/daemon.js';
import { clusterEnv, startPostgres, type PrivatePostgres } from '../helpers/engines.js';

const ROUNDS = 8;
const UPLOADS_PER_ROUND = 30;
/** How long the uploads run before the stop: long enough for the pool to open its connections. */
const HEAD_START_MS = 40;
const BODY = new Uint8Array(64 * 1024).fill(7);

type Daemon = CliRun & { url: string };

describe('a cluster daemon while PostgreSQL restarts under load', () => {
  let postgres: PrivatePostgres;
  let env: NodeJS.ProcessEnv;
  let dataDir: string;
  let daemon: Daemon;

  const start = () => spawnDaemon(dataDir, env);
  const alive = (d: Daemon) => d.child.exitCode === null && d.child.signalCode === null;
  const call = (method: string, target: string, body?: BodyInit) =>
    fetch(`${daemon.url}${target}`, { method, headers: { 'API-Key': TEST_KEY }, body });

  beforeAll(async () => {
    postgres = await startPostgres();
    const databaseUrl = await postgres.createDatabase();
    env = childEnv({
      ...(await clusterEnv({ s3: true })),
      NIMBUS_DATABASE_URL: databaseUrl,
      NIMBUS_API_KEY: TEST_KEY,
      NIMBUS_KEYCHAIN: 'off',
    });
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-pg-restart-'));
    daemon = await start();
    const created = await call('POST', '/api/user/create?username=ana&email=ana%40example.com&password=password123');
    expect(created.status, await created.text()).toBe(201);
  }, 120_000);

  afterAll(async () => {
    if (daemon && alive(daemon)) {
      daemon.child.kill('SIGKILL');
      await daemon.exited;
    }
    await postgres?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('never exits, answers every upload 201 or 503, and takes uploads again after each restart', async () => {
    const exits: string[] = [];
    const answers = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      const mode = round % 2 === 0 ? 'fast' : 'immediate';
      const uploads = Array.from({ length: UPLOADS_PER_ROUND }, async (_, i) => {
        try {
          const res = await call('POST', `/api/files/upload?username=ana&file=r${round}-${i}.bin&overwrite=true`, BODY);
          const body = (await res.json()) as { code?: string };
          return res.status === 201 ? '201' : `${res.status} ${body.code}`;
        } catch (err) {
          return `no answer (${(err as Error).message})`;
        }
      });
      await delay(HEAD_START_MS);
      await postgres.stop(mode);
      await postgres.restart();
      for (const answer of await Promise.all(uploads)) answers.set(answer, (answers.get(answer) ?? 0) + 1);
      if (!alive(daemon)) {
        exits.push(`round ${round} (${mode}): exit ${await daemon.exited}: ${daemon.stderr().slice(-300)}`);
        daemon = await start();
      }
      // Back by itself: the LISTEN connection reconnects, the store resynchronises, uploads are taken again.
      await vi.waitFor(
        async () => {
          const res = await call('POST', `/api/files/upload?username=ana&file=after-${round}.bin`, BODY);
          expect(res.status).toBe(201);
        },
        { timeout: 30_000, interval: 50 },
      );
      const listed = await call('GET', '/api/files?username=ana');
      expect(((await listed.json()) as { files: { name: string }[] }).files.map((f) => f.name)).toContain(`after-${round}.bin`);
      expect(alive(daemon)).toBe(true);
    }
    expect(exits.length, `${exits.length} of ${ROUNDS} rounds ended the daemon:\n${exits.join('\n')}`).toBe(0);
    // While the database is away a write is refused with 503 (the client retries), never a 500 or a dropped connection.
    const unexpected = [...answers.keys()].filter((a) => a !== '201' && !/^503 (database|storage)_unavailable$/.test(a));
    expect(unexpected, JSON.stringify(Object.fromEntries(answers))).toEqual([]);
    // Each lost connection was heard, and logged as a warning. Its words depend on the timing:
    // the server's 57P01 when it came before the socket closed, else the driver's "Connection
    // terminated unexpectedly" (in one CI run every lost connection was logged that way).
    await vi.waitFor(async () => {
      const log = await readFile(path.join(dataDir, 'logs', 'nimbus.log'), 'utf8');
      const lost = log.split('\n').filter((line) => line.includes('database: a connection failed'));
      expect(lost.length, 'no lost connection was logged').toBeGreaterThan(0);
      expect(lost.filter((line) => !line.includes('"level":"warn"'))).toEqual([]);
    });
  }, 120_000);
});
