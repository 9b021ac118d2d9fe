/**
 * The PostgreSQL connection every cluster module shares (docs/cluster.md): a `pg` Pool for
 * queries and transactions, and the one place that knows which errors mean "the database
 * cannot be reached" (the store then answers 503 `database_unavailable` until it is back)
 * and which mean only "every pooled connection is busy" (that one request answers 503).
 * The store, the quota reservations, the sweeper's advisory lock and the health check all go
 * through it.
 */
import pg from 'pg';
import { databaseBusy, databaseUnavailable } from '../../errors.js';

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

/**
 * What pg-pool rejects a caller with when every pooled connection stayed busy for
 * connectionTimeoutMillis (see isPoolBusy); a connection that could not be opened in that
 * time fails with "Connection terminated due to connection timeout" instead.
 */
const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';
/** How long a caller waits for a pooled connection (pg-pool's queue) or for a new one to open. */
const CONNECT_TIMEOUT_MS = 5000;

const ignore = (): void => undefined;

export class Database {
  readonly pool: pg.Pool;
  readonly url: string;
  /** Told of each failed query or transaction the database itself failed (the metrics' counter, daemon/util/metrics.ts). */
  onError: ((kind: 'connection' | 'pool_busy' | 'statement') => void) | null = null;
  #closed = false;

  private constructor(url: string, pool: pg.Pool) {
    this.url = url;
    this.pool = pool;
  }

  /** A pool on `url`, checked with one query so a wrong address fails here, not at the first request. */
  static async connect(url: string, options: DatabaseOptions = {}): Promise<Database> {
    const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    const warn = (err: Error & { code?: unknown }): void => {
      options.log?.warn({ err: err.message, code: err.code }, 'database: a connection failed; the next query opens another');
      database.onError?.('connection');
    };
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
    try {
      return await this.pool.query<R>(text, values);
    } catch (err) {
      this.#report(err);
      throw err;
    }
  }

  /** Runs `fn` inside BEGIN … COMMIT on one connection; ROLLBACK when it throws (then rethrows). */
  async transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect().catch((err: unknown) => {
      this.#report(err);
      throw err;
    });
    let broken: unknown = undefined;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      this.#report(err);
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
    return /Connection terminated|connection timeout|Client has encountered a connection error|Connection ended|not queryable/i.test(
      err.message,
    );
  }

  /**
   * Whether `err` is the pool giving up on a caller because every pooled connection stayed
   * busy (a storm of quota transactions waiting on one user's lock, say): the database is
   * there, only this request could not have a connection in time. Not a lost database: the
   * request answers 503 with Retry-After and nothing else changes. A database that really went
   * away shows as well in the errors of the connections the pool holds or opens.
   */
  static isPoolBusy(err: unknown): boolean {
    return err instanceof Error && err.message === POOL_WAIT_TIMEOUT;
  }

  isConnectionError(err: unknown): boolean {
    return Database.isConnectionError(err);
  }

  /** Counts a failure that was the database's (not a refusal of the caller's own, such as a quota check inside a transaction). */
  #report(err: unknown): void {
    if (!this.onError) return;
    if (Database.isPoolBusy(err)) this.onError('pool_busy');
    else if (Database.isConnectionError(err)) this.onError('connection');
    else if (err instanceof pg.DatabaseError) this.onError('statement');
  }

  /**
   * Rethrows a failed query as a request answers it, as the store's commits do: a database that
   * cannot be reached, or no pooled connection free in time, is a 503, not a 500.
   */
  static rethrowForRequest(err: unknown): never {
    if (Database.isConnectionError(err)) throw databaseUnavailable();
    if (Database.isPoolBusy(err)) throw databaseBusy();
    throw err;
  }

  /** Ends the pool (idempotent). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.pool.end();
  }
}

/** Runs `fn`, and again each time it fails only because no pooled connection was free in time (each try waits the pool's timeout). */
export async function retryWhilePoolBusy<T>(fn: () => Promise<T>, onBusy: () => void): Promise<T> {
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (!Database.isPoolBusy(err)) throw err;
      onBusy();
    }
  }
}
