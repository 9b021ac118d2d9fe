/**
 * Reads of the database in one snapshot (follower.ts): a read-only REPEATABLE READ transaction,
 * so every table read in it shows the same moment, and the Maps never mix two.
 */
import { COLLECTIONS } from '../collections.js';
import { retryWhilePoolBusy, type Database, type Queryable } from './database.js';
import type { Rows } from './first-load.js';

/** The part of a pino logger the backend uses. */
export interface StoreLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Runs reads in one read-only snapshot, waiting while no pooled connection is free: a busy pool is no reason to resync everything. */
export function snapshotRead<T>(database: Database, log: StoreLog | undefined, fn: (client: Queryable) => Promise<T>): Promise<T> {
  const read = () =>
    database.transaction(async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      return fn(client);
    });
  return retryWhilePoolBusy(read, () => log?.warn({}, 'store: no database connection free to read records; waiting for one'));
}

/** Every table's rows, in one snapshot. */
export async function readAllRows(database: Database, log: StoreLog | undefined): Promise<Rows> {
  const all: Rows = new Map();
  await snapshotRead(database, log, async (client) => {
    for (const collection of COLLECTIONS) {
      const { rows } = await client.query<{ key: string; data: unknown }>(`SELECT key, data FROM "${collection}"`);
      all.set(collection, new Map(rows.map((row) => [row.key, row.data])));
    }
  });
  return all;
}
