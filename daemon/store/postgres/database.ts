/**
 * The PostgreSQL connection every cluster module shares (docs/cluster.md): a `pg` Pool for
 * queries and transactions, and the one place that knows which errors mean "the database
 * cannot be reached" (the store then answers 503 `database_unavailable` until it is back).
 * The store, the quota reservations, the sweeper's advisory lock and the health check all go
 * through it.
 */
import pg from 'pg';

export type Queryable = Pick<pg.PoolClient, 'query'>;

/** Where a lost connection is reported (the daemon's logger). */
export interface DatabaseLog {
  warn(obj: object, msg: string): void;
}

export interface DatabaseOptions {
  max?: number;
  log?: DatabaseLog;
}

/** Network errors the driver passes on from the socket. */
const CONNECTION_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** SQLSTATEs of a server going away: admin/crash shutdown, cannot connect now, and class 08 (connection exception). */
const CONNECTION_SQLSTATES = new Set(['57P01', '57P02', '57P03']);

const ignore = (): void => undefined;

export class Database {
  readonly pool: pg.Pool;
  readonly url: string;
  #closed = false;

  private constructor(url: string, pool: pg.Pool) {
    this.url = url;
    this.pool = pool;
  }

  /** A pool on `url`, checked with one query so a wrong address fails here, not at the first request. */
  static async connect(url: string, options: DatabaseOptions = {}): Promise<Database> {
    const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10, connectionTimeoutMillis: 5000 });
    const warn = (err: Error & { code?: unknown }): void =>
      options.log?.warn({ err: err.message, code: err.code }, 'database: a connection failed; the next query opens another');
    // An 'error' nobody listens to ends the process, and a server going away (a restart sends
    // FATAL 57P01) reaches every client, checked out or not, even in the same read that hands
    // it out. 'connect' fires before the pool first hands a client out, so from then until it
    // is gone each client has this listener (before, the pool's own idle listener covers it).
    // The query that meets the dead connection reports the failure to its caller.
    pool.on('connect', (client) => client.on('error', warn));
    // The pool re-emits an idle client's error here, once the listener above has logged it.
    pool.on('error', ignore);
    const database = new Database(url, pool);
    try {
      await database.query('SELECT 1');
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw err;
    }
    return database;
  }

  /** One statement on any pooled connection. */
  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    return this.pool.query<R>(text, values);
  }

  /** Runs `fn` inside BEGIN … COMMIT on one connection; ROLLBACK when it throws (then rethrows). */
  async transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: unknown = undefined;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch((rollbackErr: unknown) => (broken = rollbackErr));
      if (Database.isConnectionError(err)) broken = err;
      throw err;
    } finally {
      // A connection that failed is destroyed rather than handed to the next caller.
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  /** Whether `err` means the database cannot be reached (as opposed to a refused statement). */
  static isConnectionError(err: unknown): boolean {
    if (!(err instanceof Error)) return false;
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (CONNECTION_ERRNOS.has(code) || CONNECTION_SQLSTATES.has(code) || code.startsWith('08')) return true;
    }
    return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended|not queryable/i.test(
      err.message,
    );
  }

  isConnectionError(err: unknown): boolean {
    return Database.isConnectionError(err);
  }

  /** Ends the pool (idempotent). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.pool.end();
  }
}
