/**
 * Where the store's Maps are kept between runs (docs/cluster.md, "The store"): the embedded
 * db.json (JsonBackend) or PostgreSQL (PgBackend). The Store owns the Maps and the indexes
 * derived from them; a backend loads them, makes changes durable and, for a shared database,
 * applies what other daemons changed.
 */
import type { CollectionName } from './collections.js';
import type { Database } from './postgres/database.js';
import type { DbData } from './schema.js';
import type { TrackedMap } from './tracked-map.js';

/** One record changed by a change-set: its value at `commit()` (undefined: deleted). */
export interface Change {
  collection: CollectionName;
  key: string;
  /** Whether the key was in the durable state before this change-set (UPDATE/DELETE, else INSERT). */
  existed: boolean;
  value: unknown;
  /**
   * An update or a delete (TrackedMap.deleteExisting) only of the record as this daemon knew
   * it, in a Map that compares writes: that record's JSON. Refused (409) when the row is gone
   * or holds anything else.
   */
  expected?: string;
}

/** What one `commit()` call changed since the previous one. */
export type ChangeSet = Change[];

/** A change another daemon made (or a resync found), as `store.onRemoteChange` reports it. */
export interface RemoteChange {
  collection: CollectionName;
  key: string;
  /** The record before (undefined: it did not exist here). */
  before: unknown;
  /** The record after (undefined: it is gone). */
  after: unknown;
}

/** What a backend sees of the Store. */
export interface StoreHost {
  map(collection: CollectionName): TrackedMap<unknown>;
  /** Replaces every Map (untracked), rebuilding the derived indexes. */
  replaceAll(data: DbData): void;
  /** A copy-free picture of every Map, as db.json holds it. */
  snapshot(): DbData;
  /** Applies one record read from the database (untracked), keeping the indexes in step; returns the record it replaced. */
  applyRemote(collection: CollectionName, key: string, after: unknown): unknown;
  /** Tells onRemoteChange listeners. */
  emitRemote(change: RemoteChange): void;
  /** The store can (not) reach its database: tells onAvailability listeners. */
  setAvailable(available: boolean): void;
  /** Runs the store's beforeWrite hook (sessions). */
  beforeWrite(): void;
}

export interface StoreBackend {
  /** Whether the backend needs change-sets (false: it writes snapshots, and the Maps need not track). */
  readonly tracksChanges: boolean;
  /** The database, for other modules' queries (null: no database). */
  readonly database: Database | null;
  /** Loads the Maps (through host.replaceAll); a new store is created and written. */
  open(host: StoreHost): Promise<void>;
  /**
   * Makes durable every change made to the Maps since the previous call (its change-set,
   * taken from the TrackedMaps' dirty keys by a backend that tracks changes).
   */
  commit(): Promise<void>;
  /** Waits for the write in progress, if any. */
  idle(): Promise<void>;
  /**
   * Applies every commit other daemons made before the call (absent: there are no others).
   * `strict`: throws 503 `database_unavailable` when it cannot (the database out of reach).
   */
  catchUp?(strict?: boolean): Promise<void>;
  /** Waits for pending writes, then releases files and connections. */
  close(): Promise<void>;
}
