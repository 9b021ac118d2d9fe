/**
 * The PostgreSQL backend's writes (docs/cluster.md, "The store"): each `commit()` takes its
 * change-set (the TrackedMaps' dirty keys) and a flush writes the queued change-sets in one
 * transaction, each inside its own SAVEPOINT, so one that conflicts (a unique violation, or an
 * UPDATE of a row another daemon deleted) is rolled back alone: its keys are re-read into the
 * Maps (follower.ts) and its commit rejects 409. The transaction ends with a NOTIFY naming the
 * changed keys; other daemons re-read them.
 */
import { CommitConflict, databaseBusy, databaseUnavailable } from '../../errors.js';
import type { Change, ChangeSet, StoreHost } from '../backend.js';
import { COLLECTIONS, type CollectionName } from '../collections.js';
import { ChangeSetConflict, applyChangeSet, followerUpdates, mergeDisjoint, oneStatement, writtenKeys } from './change-statements.js';
import { Database } from './database.js';
import { CHANGES_CHANNEL, type ChangeNotice } from './listener.js';
import type { LocalWrites, RecordKey } from './local-writes.js';

/** The keys each table holds, as far as this daemon knows: decides INSERT vs UPDATE. */
export type KnownKeys = Record<CollectionName, Set<string>>;

export const noKnownKeys = (): KnownKeys => Object.fromEntries(COLLECTIONS.map((c) => [c, new Set<string>()])) as KnownKeys;

/** A NOTIFY payload must stay under 8000 bytes: above this, receivers are told to reload collections. */
const NOTIFY_LIMIT = 7000;

interface Pending {
  changes: ChangeSet;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export interface WriterDeps {
  database: Database;
  /** Names this daemon in its notifications. */
  origin: string;
  known: KnownKeys;
  /** Told of every change-set's start and end, so a read taken before one never undoes it. */
  localWrites: LocalWrites;
  /** The connection was lost: nothing of the batch was written. */
  lost(err: Error): void;
  /** Puts the database's version of these keys back into the Maps (never rejects). */
  reread(changes: readonly RecordKey[]): Promise<void>;
}

export class ChangeWriter {
  readonly #deps: WriterDeps;
  #queue: Pending[] = [];
  #writing: Promise<void> | null = null;

  constructor(deps: WriterDeps) {
    this.#deps = deps;
  }

  /** Takes the Maps' change-set now and resolves once it is written (rejects 409 or 503). */
  commit(host: StoreHost): Promise<void> {
    host.beforeWrite();
    const changes = this.#takeChanges(host);
    this.#deps.localWrites.begin(changes);
    return new Promise((resolve, reject) => {
      this.#queue.push({ changes, resolve, reject });
      if (!this.#writing) this.#writing = this.#flushLoop();
    });
  }

  async idle(): Promise<void> {
    while (this.#writing) await this.#writing.catch(() => undefined);
  }

  /** The dirty keys of every Map, with each one's value now and whether the table holds the key. */
  #takeChanges(host: StoreHost): ChangeSet {
    const changes: ChangeSet = [];
    for (const collection of COLLECTIONS) {
      const map = host.map(collection);
      const dirty = map.takeDirty();
      if (dirty.keys.size === 0) continue;
      const known = this.#deps.known[collection];
      for (const key of dirty.keys) {
        const value = map.get(key);
        const existed = known.has(key);
        if (value === undefined && !existed) continue; // made and removed before any write
        // Serialised now: the record may be changed in place before the flush runs.
        const change: Change = { collection, key, existed, value: value === undefined ? undefined : JSON.stringify(value) };
        // Written only over the record as this daemon knew it (a Map that compares writes).
        const expected = dirty.expected.size > 0 ? dirty.expected.get(key) : undefined;
        if (expected !== undefined && existed) change.expected = JSON.stringify(expected);
        changes.push(change);
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
      let poolBusy = false;
      try {
        outcomes = await this.#flush(batch);
      } catch (err) {
        if (Database.isConnectionError(err)) {
          // Nothing was written; every queued change is lost with the connection. The resync
          // that ends the outage puts the Maps back to the database's state.
          const failed = [...batch, ...this.#queue];
          this.#queue = [];
          // Keys a read left alone meanwhile: read again (once the database is back, the resync does too).
          const readAgain = failed.flatMap((pending) => this.#deps.localWrites.end(pending.changes));
          this.#deps.lost(err as Error);
          for (const pending of failed) pending.reject(databaseUnavailable());
          if (readAgain.length > 0) void this.#deps.reread(readAgain);
          continue;
        }
        // Not the connection (the pool busy, a bug, a refused statement outside any change-set):
        // nothing was written, so every change of the batch is undone in the Maps too. A pool
        // that kept every connection busy is load, not an outage: these commits answer 503 and
        // the store stays available.
        poolBusy = Database.isPoolBusy(err);
        outcomes = batch.map(() => (poolBusy ? databaseBusy() : (err as Error)));
      }
      const settle = () =>
        batch.forEach((pending, i) => {
          const outcome = outcomes[i];
          if (!outcome) pending.resolve();
          else if (outcome instanceof ChangeSetConflict || (outcome as { code?: string }).code === '23505')
            pending.reject(new CommitConflict());
          else pending.reject(outcome);
        });
      // Refused for a busy pool, the commits answer at once: they already waited the pool's
      // timeout, and the re-read waits for a connection again. Later batches still wait for it.
      const readAgain = batch.flatMap((pending, i) => {
        const skipped = this.#deps.localWrites.end(pending.changes);
        // A follower's update may have found its row gone (FOLLOWERS): read it again either way.
        return outcomes[i] ? pending.changes : [...skipped, ...followerUpdates(pending.changes)];
      });
      if (poolBusy) settle();
      if (readAgain.length > 0) await this.#deps.reread(readAgain);
      if (!poolBusy) settle();
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
    const { database } = this.#deps;
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
          await database.query(statement.text, statement.values);
          return batch.map(() => null);
        }
        return await database.transaction(async (client) => {
          if (merged.length > 0) {
            await applyChangeSet(client, merged);
            await client.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, this.#notice(writtenKeys([merged]))]);
          }
          return batch.map(() => null);
        });
      } catch (err) {
        // Nothing was written: the transaction rolled back. The connection gone, or no connection
        // to be had, is the caller's case (one at a time would wait for one again).
        if (Database.isConnectionError(err) || Database.isPoolBusy(err)) throw err;
      }
    }
    return this.#flushEach(batch);
  }

  /** One transaction: each change-set in a savepoint; the outcome of each (null: written). */
  async #flushEach(batch: Pending[]): Promise<(Error | null)[]> {
    return this.#deps.database.transaction(async (client) => {
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
    const { origin } = this.#deps;
    const changes: Partial<Record<CollectionName, string[]>> = {};
    for (const [collection, keys] of written) changes[collection] = [...keys];
    const full = JSON.stringify({ origin, changes } satisfies ChangeNotice);
    if (Buffer.byteLength(full) <= NOTIFY_LIMIT) return full;
    return JSON.stringify({ origin, reload: [...written.keys()] } satisfies ChangeNotice);
  }
}
