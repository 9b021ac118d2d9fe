/**
 * A pooled PostgreSQL connection whose server session ends (issue 23, item 1): the driver's
 * 'error' never goes unheard, whether the client is idle in the pool or checked out with no
 * query running (as the sweeper holds one while it lists the bucket). It is logged as a
 * warning and the pool goes on with a new connection. Each session is ended with
 * pg_terminate_backend (FATAL 57P01, what a `pg_ctl stop -m fast` sends), on the shared
 * PostgreSQL: only this test's own sessions go.
 */
import pg from 'pg';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Database } from '../../daemon/store/postgres/database.js';
import { sharedPostgres } from '../helpers/engines.js';

interface Warning {
  obj: object;
  msg: string;
}

describe('a pooled connection that loses its server', () => {
  let url: string;
  const opened: Database[] = [];
  const warnings: Warning[] = [];

  const connect = async () => {
    const database = await Database.connect(url, { log: { warn: (obj, msg) => warnings.push({ obj, msg }) } });
    opened.push(database);
    return database;
  };
  /** Ends the server session `pid` from another connection, as a shutdown would. */
  const terminate = async (pid: number) => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    } finally {
      await admin.end();
    }
  };
  /** The server session of a client, or of the pooled connection a Database's next query takes. */
  const pidOf = async (on: { query: (text: string) => Promise<pg.QueryResult> }) =>
    (await on.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;

  beforeAll(async () => {
    url = await (await sharedPostgres()).createDatabase();
  });

  afterEach(async () => {
    warnings.length = 0;
    await Promise.all(opened.splice(0).map((d) => d.close().catch(() => undefined)));
  });

  it('logs the loss of a checked-out client that runs no query, and the pool serves again', async () => {
    const database = await connect();
    const client = await database.pool.connect();
    const pid = await pidOf(client);
    // Held between two statements: the FATAL reaches the client itself, not a query.
    await terminate(pid);
    await vi.waitFor(() => expect(warnings.map((w) => w.obj)).toContainEqual(expect.objectContaining({ code: '57P01' })));
    expect(warnings[0].msg).toMatch(/database/i);
    await expect(client.query('SELECT 1')).rejects.toThrow();
    client.release(new Error('lost'));
    expect((await database.query<{ one: number }>('SELECT 1 AS one')).rows[0].one).toBe(1);
  });

  it('logs the loss of an idle client, and the next query gets a new connection', async () => {
    const database = await connect();
    const pid = await pidOf(database);
    await terminate(pid);
    await vi.waitFor(() => expect(warnings.map((w) => w.obj)).toContainEqual(expect.objectContaining({ code: '57P01' })));
    expect(await pidOf(database)).not.toBe(pid);
  });

  it('logs a transaction’s connection lost between two of its statements, and the transaction fails with a connection error', async () => {
    const database = await connect();
    const failed = await database
      .transaction(async (client) => {
        await terminate(await pidOf(client));
        // The FATAL arrives while no statement runs; the next one finds the connection gone.
        await vi.waitFor(() => expect(warnings).not.toHaveLength(0));
        await client.query('SELECT 1');
      })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(Database.isConnectionError(failed)).toBe(true);
    expect((await database.query<{ one: number }>('SELECT 1 AS one')).rows[0].one).toBe(1);
  });
});
