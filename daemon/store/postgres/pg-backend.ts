/**
 * The PostgreSQL backend (docs/cluster.md, "The store"). The Maps are loaded whole at open;
 * afterwards each `commit()` takes its change-set (the TrackedMaps' dirty keys) and a flush
 * writes the queued change-sets in one transaction, each inside its own SAVEPOINT, so one
 * that conflicts (a unique violation, or an UPDATE of a row another daemon deleted) is
 * rolled back alone: its keys are re-read into the Maps and its commit rejects 409. The
 * transaction ends with a NOTIFY naming the changed keys; other daemons re-read them.
 *
 * A lost connection makes the store unavailable (commits reject 503) until the LISTEN
 * connection is back and everything has been re-read: notifications sent meanwhile were
 * missed, so the resync compares every record and reports each difference as a remote change.
 */
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type pg from 'pg';
import { ApiError } from '../../errors.js';
import { COLLECTIONS, type ChangeSet, type CollectionName, type StoreBackend, type StoreHost } from '../backend.js';
import type { DbData } from '../schema.js';
import { Database, type Queryable } from './database.js';
import { CHANGES_CHANNEL, ChangeListener } from './listener.js';
import { migrate } from './migrate.js';

/** The part of a pino logger the backend uses. */
export interface StoreLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface PgBackendOptions {
  log?: StoreLog;
}

/** A NOTIFY payload must stay under 8000 bytes: above this, receivers are told to reload collections. */
const NOTIFY_LIMIT = 7000;
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 5000;

/** What a flush tells other daemons. */
interface ChangeNotice {
  origin: string;
  changes?: Partial<Record<CollectionName, string[]>>;
  reload?: CollectionName[];
}

interface Pending {
  changes: ChangeSet;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** A change-set that cannot apply as it stands (thrown inside its savepoint). */
class ChangeSetConflict extends Error {}

const unavailable = () => new ApiError('database_unavailable', 'The database cannot be reached; try again shortly');
const conflictError = () =>
  new ApiError('conflict', 'Someone else changed this at the same time; the current state was reloaded, try again');

export class PgBackend implements StoreBackend {
  readonly tracksChanges = true;
  readonly database: Database;
  /** Names this daemon in its notifications, so it ignores its own. */
  readonly origin = randomBytes(8).toString('hex');
  readonly #log: StoreLog | undefined;
  readonly #listener: ChangeListener;
  #host: StoreHost | null = null;
  /** The keys each table holds, as far as this daemon knows: decides INSERT vs UPDATE. */
  readonly #known = Object.fromEntries(COLLECTIONS.map((c) => [c, new Set<string>()])) as Record<CollectionName, Set<string>>;
  #queue: Pending[] = [];
  #writing: Promise<void> | null = null;
  /** Remote work (re-reads, resyncs) runs one at a time, in order, so an older read never lands last. */
  #remote: Promise<void> = Promise.resolve();
  /** Notifications received before the first load are held (null once loaded). */
  #early: string[] | null = [];
  #available = true;
  #recovering: Promise<void> | null = null;
  /** Ends the wait between two reconnection attempts (at close). */
  #wake: (() => void) | null = null;
  #closed = false;

  private constructor(database: Database, options: PgBackendOptions) {
    this.database = database;
    this.#log = options.log;
    this.#listener = new ChangeListener(
      database.url,
      (payload) => this.#received(payload),
      (err) => this.#lost(err),
    );
  }

  /** Connects to `url` and brings its schema up to date (the Store's `open()` loads it). */
  static async connect(url: string, options: PgBackendOptions = {}): Promise<PgBackend> {
    const database = await Database.connect(url, { log: options.log });
    try {
      await migrate(database);
    } catch (err) {
      await database.close().catch(() => undefined);
      throw err;
    }
    return new PgBackend(database, options);
  }

  async open(host: StoreHost): Promise<void> {
    this.#host = host;
    // LISTEN before loading: a change committed after the load is then always notified.
    await this.#listener.start();
    this.#loadFresh(await this.#readAll());
    const early = this.#early ?? [];
    this.#early = null;
    for (const payload of early) this.#received(payload);
  }

  commit(): Promise<void> {
    // While unavailable the dirty keys stay where they are: the resync that ends the outage drops them.
    if (!this.#available) return Promise.reject(unavailable());
    const host = this.#host!;
    host.beforeWrite();
    const changes = this.#takeChanges(host);
    return new Promise((resolve, reject) => {
      this.#queue.push({ changes, resolve, reject });
      if (!this.#writing) this.#writing = this.#flushLoop();
    });
  }

  async idle(): Promise<void> {
    while (this.#writing) await this.#writing.catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.idle();
    this.#closed = true;
    this.#wake?.();
    await this.#recovering?.catch(() => undefined);
    // After the recovery: one in flight may have just reconnected.
    await this.#listener.stop();
    await this.#remote.catch(() => undefined);
    await this.database.close();
  }

  /** The dirty keys of every Map, with each one's value now and whether the table holds the key. */
  #takeChanges(host: StoreHost): ChangeSet {
    const changes: ChangeSet = [];
    for (const collection of COLLECTIONS) {
      const map = host.map(collection);
      const dirty = map.takeDirty();
      if (dirty.size === 0) continue;
      const known = this.#known[collection];
      for (const key of dirty) {
        const value = map.get(key);
        const existed = known.has(key);
        if (value === undefined && !existed) continue; // made and removed before any write
        // Serialised now: the record may be changed in place before the flush runs.
        changes.push({ collection, key, existed, value: value === undefined ? undefined : JSON.stringify(value) });
        // Later change-sets build on this one.
        if (value === undefined) known.delete(key);
        else known.add(key);
      }
    }
    return changes;
  }

  async #flushLoop(): Promise<void> {
    // Let the other mutations of this tick join the first write.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.#queue.length > 0) {
      const batch = this.#queue;
      this.#queue = [];
      let outcomes: (Error | null)[];
      try {
        outcomes = await this.#flush(batch);
      } catch (err) {
        if (Database.isConnectionError(err)) {
          // Nothing was written; every queued change is lost with the connection. The resync
          // that ends the outage puts the Maps back to the database's state.
          const failed = [...batch, ...this.#queue];
          this.#queue = [];
          this.#lost(err as Error);
          for (const pending of failed) pending.reject(unavailable());
          continue;
        }
        // Not the connection (a bug, a refused statement outside any change-set): the
        // transaction rolled back, so every change of the batch is undone in the Maps too.
        outcomes = batch.map(() => err as Error);
      }
      const failedKeys = batch.flatMap((pending, i) => (outcomes[i] ? pending.changes : []));
      if (failedKeys.length > 0) await this.#reread(failedKeys).catch((err: unknown) => this.#rereadFailed(err));
      batch.forEach((pending, i) => {
        const outcome = outcomes[i];
        if (!outcome) pending.resolve();
        else if (outcome instanceof ChangeSetConflict || (outcome as { code?: string }).code === '23505') pending.reject(conflictError());
        else pending.reject(outcome);
      });
    }
    this.#writing = null;
  }

  /**
   * Writes a batch: first all its change-sets at once (one statement per kind and table, no
   * savepoints) when no key appears in two of them; if that transaction refuses anything, it
   * rolls back whole and the batch is written again change-set by change-set, each in its own
   * savepoint, so only the ones that conflict fail. The outcome of each (null: written).
   *
   * Why: with a savepoint per change-set a flush of 1,000 concurrent role changes was ~3,000
   * sequential round trips on one connection (the daemon sat idle waiting on them: 1,000 writes
   * took 2.1× the time of 1,000 reads); at once it is BEGIN, one UPDATE, NOTIFY, COMMIT.
   */
  async #flush(batch: Pending[]): Promise<(Error | null)[]> {
    const merged = mergeDisjoint(batch.map((pending) => pending.changes));
    if (merged) {
      try {
        if (merged.length === 0) return batch.map(() => null);
        const statement = oneStatement(merged, this.#notice(writtenKeys([merged])));
        if (statement) {
          // One kind of change to one table: the write and its NOTIFY are one statement, atomic
          // and durable on its own (autocommit, synchronous_commit), in one round trip instead of
          // BEGIN, the write, the NOTIFY and COMMIT — four, each waiting for PostgreSQL's turn on
          // a busy machine.
          await this.database.query(statement.text, statement.values);
          return batch.map(() => null);
        }
        return await this.database.transaction(async (client) => {
          if (merged.length > 0) {
            await applyChangeSet(client, merged);
            await client.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, this.#notice(writtenKeys([merged]))]);
          }
          return batch.map(() => null);
        });
      } catch (err) {
        // Nothing was written: the transaction rolled back. The connection gone is the caller's case.
        if (Database.isConnectionError(err)) throw err;
      }
    }
    return this.#flushEach(batch);
  }

  /** One transaction: each change-set in a savepoint; the outcome of each (null: written). */
  async #flushEach(batch: Pending[]): Promise<(Error | null)[]> {
    return this.database.transaction(async (client) => {
      const outcomes: (Error | null)[] = [];
      const applied: ChangeSet[] = [];
      for (const { changes } of batch) {
        if (changes.length === 0) {
          outcomes.push(null);
          continue;
        }
        await client.query('SAVEPOINT change_set');
        try {
          await applyChangeSet(client, changes);
          await client.query('RELEASE SAVEPOINT change_set');
        } catch (err) {
          if (Database.isConnectionError(err)) throw err;
          await client.query('ROLLBACK TO SAVEPOINT change_set');
          outcomes.push(err as Error);
          continue;
        }
        outcomes.push(null);
        applied.push(changes);
      }
      const written = writtenKeys(applied);
      if (written.size > 0) await client.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, this.#notice(written)]);
      return outcomes;
    });
  }

  #notice(written: Map<CollectionName, Set<string>>): string {
    const changes: Partial<Record<CollectionName, string[]>> = {};
    for (const [collection, keys] of written) changes[collection] = [...keys];
    const full = JSON.stringify({ origin: this.origin, changes } satisfies ChangeNotice);
    if (Buffer.byteLength(full) <= NOTIFY_LIMIT) return full;
    return JSON.stringify({ origin: this.origin, reload: [...written.keys()] } satisfies ChangeNotice);
  }

  /** Puts the database's version of these keys into the Maps (after a failed change-set). */
  async #reread(changes: ChangeSet): Promise<void> {
    const byCollection = new Map<CollectionName, Set<string>>();
    for (const { collection, key } of changes) {
      let keys = byCollection.get(collection);
      if (!keys) byCollection.set(collection, (keys = new Set()));
      keys.add(key);
    }
    await this.#serially(() => this.#refresh([...byCollection].map(([collection, keys]) => [collection, [...keys]])));
  }

  #rereadFailed(err: unknown): void {
    if (Database.isConnectionError(err)) this.#lost(err as Error);
    else this.#log?.warn({ err }, 'store: could not re-read records after a failed change');
  }

  /** A notification from the LISTEN connection. */
  #received(payload: string): void {
    if (this.#early) {
      this.#early.push(payload);
      return;
    }
    let notice: ChangeNotice;
    try {
      notice = JSON.parse(payload) as ChangeNotice;
    } catch {
      return;
    }
    if (notice.origin === this.origin) return;
    const wanted: [CollectionName, string[] | null][] = [
      ...(notice.reload ?? []).map((collection): [CollectionName, null] => [collection, null]),
      ...Object.entries(notice.changes ?? {}).map(([collection, keys]): [CollectionName, string[]] => [collection as CollectionName, keys]),
    ];
    void this.#serially(() => this.#refresh(wanted)).catch((err: unknown) => this.#rereadFailed(err));
  }

  /**
   * Resolves once this daemon's Maps hold every commit other daemons made before the call:
   * the notifications are all in (a round trip on the LISTEN connection), and the rows they
   * name have been read and applied. For a miss that may only be this daemon lagging (a
   * session signed in through another daemon a moment ago).
   */
  async catchUp(): Promise<void> {
    if (!this.#listener.listening) return;
    await this.#listener.sync().catch(() => undefined);
    await this.#remote;
  }

  /** Runs remote work after the remote work already queued. */
  #serially(work: () => Promise<void>): Promise<void> {
    const run = this.#remote.then(work);
    this.#remote = run.catch(() => undefined);
    return run;
  }

  /**
   * Re-reads rows (`keys`: those keys; null: the whole table) in one snapshot, then applies them
   * all at once (untracked), so another daemon's commit appears here whole, never half.
   */
  async #refresh(wanted: [collection: CollectionName, keys: string[] | null][]): Promise<void> {
    const reads = wanted.filter(([collection, keys]) => isCollection(collection) && (keys === null || keys.length > 0));
    if (reads.length === 0) return;
    const found = await this.#snapshotRead(async (client) => {
      const results: Map<string, unknown>[] = [];
      for (const [collection, keys] of reads) {
        const { rows } =
          keys === null
            ? await client.query<{ key: string; data: unknown }>(`SELECT key, data FROM "${collection}"`)
            : await client.query<{ key: string; data: unknown }>(`SELECT key, data FROM "${collection}" WHERE key = ANY($1::text[])`, [
                keys,
              ]);
        results.push(new Map(rows.map((row) => [row.key, row.data])));
      }
      return results;
    });
    reads.forEach(([collection, keys], i) => {
      if (keys === null) this.#applyCollection(collection, found[i]);
      else for (const key of keys) this.#apply(collection, key, found[i].get(key));
    });
  }

  /** Runs reads in one read-only snapshot (one statement needs no transaction). */
  async #snapshotRead<T>(fn: (client: Queryable) => Promise<T>): Promise<T> {
    return this.database.transaction(async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      return fn(client);
    });
  }

  #applyCollection(collection: CollectionName, found: Map<string, unknown>): void {
    const map = this.#host!.map(collection);
    for (const key of [...map.keys()]) if (!found.has(key)) this.#apply(collection, key, undefined);
    for (const [key, data] of found) this.#apply(collection, key, data);
  }

  #apply(collection: CollectionName, key: string, after: unknown): void {
    const host = this.#host!;
    if (after === undefined) this.#known[collection].delete(key);
    else this.#known[collection].add(key);
    const before = host.map(collection).get(key);
    if (isDeepStrictEqual(before, after)) return;
    host.applyRemote(collection, key, after);
    host.emitRemote({ collection, key, before, after });
  }

  async #readAll(): Promise<Map<CollectionName, Map<string, unknown>>> {
    const all = new Map<CollectionName, Map<string, unknown>>();
    // One snapshot for all tables, so the Maps never mix two moments.
    await this.#snapshotRead(async (client) => {
      for (const collection of COLLECTIONS) {
        const { rows } = await client.query<{ key: string; data: unknown }>(`SELECT key, data FROM "${collection}"`);
        all.set(collection, new Map(rows.map((row) => [row.key, row.data])));
      }
    });
    return all;
  }

  /**
   * The first load, into the new Store's empty Maps: each record goes in as read, untracked
   * (applyRemote), without the deep copy replaceAll makes of data a caller may still hold —
   * these records were just parsed from the rows and nothing else has them. That copy was
   * ~450 ms of CPU at start-up with 100,000 file rows (structuredClone, measured alone).
   */
  #loadFresh(all: Map<CollectionName, Map<string, unknown>>): void {
    const host = this.#host!;
    if (COLLECTIONS.some((collection) => host.map(collection).size > 0)) return this.#replaceAll(all);
    for (const collection of COLLECTIONS) {
      const rows = all.get(collection)!;
      for (const [key, data] of rows) host.applyRemote(collection, key, data);
      host.map(collection).takeDirty();
      this.#known[collection] = new Set(rows.keys());
    }
  }

  #replaceAll(all: Map<CollectionName, Map<string, unknown>>): void {
    const data = Object.fromEntries(COLLECTIONS.map((c) => [c, [...all.get(c)!.values()]])) as unknown as DbData;
    data.schema = 1;
    this.#host!.replaceAll(data);
    for (const collection of COLLECTIONS) {
      this.#known[collection] = new Set(all.get(collection)!.keys());
    }
  }

  /** The database went away: unavailable until the LISTEN connection is back and everything re-read. */
  #lost(err: Error): void {
    if (this.#closed || this.#recovering) return;
    this.#available = false;
    this.#host?.setAvailable(false);
    this.#log?.warn({ err: err.message }, 'store: the database cannot be reached; retrying');
    this.#recovering = this.#recover().finally(() => (this.#recovering = null));
  }

  async #recover(): Promise<void> {
    let delay = RECONNECT_FIRST_MS;
    while (!this.#closed) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = null;
      if (this.#closed) return;
      try {
        await this.#listener.start();
        await this.#serially(() => this.#resync());
        if (this.#closed) return;
        // Lost again during the resync (its onLost was ignored while recovering): once more.
        if (!this.#listener.listening) throw new Error('The LISTEN connection dropped during the resync');
        this.#available = true;
        this.#host?.setAvailable(true);
        this.#log?.info({}, 'store: the database is back; resynchronised');
        return;
      } catch {
        delay = Math.min(delay * 2, RECONNECT_MAX_MS);
      }
    }
  }

  /** Re-reads everything and applies each difference as a remote change (notifications were missed). */
  async #resync(): Promise<void> {
    const all = await this.#readAll();
    const host = this.#host!;
    for (const collection of COLLECTIONS) {
      // Changes made while the database was away were refused: the database's state wins.
      host.map(collection).takeDirty();
      this.#applyCollection(collection, all.get(collection)!);
      this.#known[collection] = new Set(all.get(collection)!.keys());
    }
  }
}

const isCollection = (name: string): name is CollectionName => (COLLECTIONS as readonly string[]).includes(name);

/**
 * The change-sets as one, when no key (of a collection) is in two of them; else null. Disjoint
 * change-sets written together leave the rows each would have left one after the other.
 */
function mergeDisjoint(sets: ChangeSet[]): ChangeSet | null {
  if (sets.length === 1) return sets[0];
  const seen = new Set<string>();
  const merged: ChangeSet = [];
  for (const changes of sets) {
    for (const change of changes) {
      const id = `${change.collection}\0${change.key}`;
      if (seen.has(id)) return null;
      seen.add(id);
      merged.push(change);
    }
  }
  return merged;
}

/** The keys the change-sets wrote, by collection (for the NOTIFY). */
function writtenKeys(sets: ChangeSet[]): Map<CollectionName, Set<string>> {
  const written = new Map<CollectionName, Set<string>>();
  for (const changes of sets) {
    for (const { collection, key } of changes) {
      let keys = written.get(collection);
      if (!keys) written.set(collection, (keys = new Set()));
      keys.add(key);
    }
  }
  return written;
}

/** Writes one change-set: DELETEs, then UPDATEs, then INSERTs (so a record may take a name another just freed). */
async function applyChangeSet(client: pg.PoolClient, changes: ChangeSet): Promise<void> {
  const groups = groupChanges(changes);
  for (const kind of ['delete', 'update', 'insert'] as const) {
    for (const collection of COLLECTIONS) {
      const group = groups.get(`${kind}:${collection}`);
      if (!group) continue;
      // One statement per kind and table, the rows passed as one JSON array: a rename that
      // touches 100,000 file rows is three round trips, not 100,000. (jsonb_to_recordset rather
      // than unnest of two arrays: the records are already JSON, and it parsed 100,000 rows
      // about 3× faster than pg's array literals here.)
      if (kind === 'delete') {
        // A row already deleted elsewhere is what this change wanted: not a conflict.
        await client.query(`DELETE FROM "${collection}" WHERE key = ANY($1::text[])`, [group.keys]);
      } else if (kind === 'update') {
        const { rowCount } = await client.query(`UPDATE "${collection}" AS t SET data = r.data FROM ${ROWS} WHERE t.key = r.key`, [
          rowsJson(group.keys, group.data),
        ]);
        if (rowCount !== group.keys.length) throw new ChangeSetConflict(`${collection}: a record was deleted elsewhere`);
      } else {
        await client.query(`INSERT INTO "${collection}" (key, data) SELECT r.key, r.data FROM ${ROWS}`, [rowsJson(group.keys, group.data)]);
      }
    }
  }
}

type Group = { kind: 'delete' | 'update' | 'insert'; collection: CollectionName; keys: string[]; data: string[] };

/** The changes by kind and table. */
function groupChanges(changes: ChangeSet): Map<string, Group> {
  const groups = new Map<string, Group>();
  for (const change of changes) {
    const kind = change.value === undefined ? 'delete' : change.existed ? 'update' : 'insert';
    const id = `${kind}:${change.collection}`;
    let group = groups.get(id);
    if (!group) groups.set(id, (group = { kind, collection: change.collection, keys: [], data: [] }));
    group.keys.push(change.key);
    if (change.value !== undefined) group.data.push(change.value as string);
  }
  return groups;
}

/**
 * The change-set and its NOTIFY as one statement, when it is one kind of change to one table
 * (null otherwise). An UPDATE that finds fewer rows than it names (one deleted elsewhere) must
 * write nothing: the statement then divides by zero, which aborts it whole, and the caller's
 * fallback (a savepoint per change-set) finds which change-set conflicts.
 */
function oneStatement(changes: ChangeSet, notice: string): { text: string; values: unknown[] } | null {
  const groups = groupChanges(changes);
  if (groups.size !== 1) return null;
  const { kind, collection, keys, data } = [...groups.values()][0];
  const notify = 'SELECT pg_notify($2, $3)';
  if (kind === 'delete') {
    return {
      text: `WITH w AS (DELETE FROM "${collection}" WHERE key = ANY($1::text[])) ${notify}`,
      values: [keys, CHANGES_CHANNEL, notice],
    };
  }
  const rows = rowsJson(keys, data);
  if (kind === 'insert') {
    return {
      text: `WITH w AS (INSERT INTO "${collection}" (key, data) SELECT r.key, r.data FROM ${ROWS}) ${notify}`,
      values: [rows, CHANGES_CHANNEL, notice],
    };
  }
  return {
    text:
      `WITH w AS (UPDATE "${collection}" AS t SET data = r.data FROM ${ROWS} WHERE t.key = r.key RETURNING 1) ` +
      `${notify} WHERE 1 / (CASE WHEN (SELECT count(*) FROM w) = $4 THEN 1 ELSE 0 END) = 1`,
    values: [rows, CHANGES_CHANNEL, notice, keys.length],
  };
}

/** The rows of a statement, from its one parameter: `[{"key": …, "data": {…}}, …]`. */
const ROWS = 'jsonb_to_recordset($1::jsonb) AS r(key text, data jsonb)';

/** Builds ROWS' parameter from keys and records already serialised (no second serialisation). */
function rowsJson(keys: string[], data: string[]): string {
  const rows = keys.map((key, i) => `{"key":${JSON.stringify(key)},"data":${data[i]}}`);
  return `[${rows.join(',')}]`;
}
