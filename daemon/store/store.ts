import { databaseUnavailable } from '../errors.js';
import type { RemoteChange, StoreBackend, StoreHost } from './backend.js';
import { COLLECTIONS, loadAll, newCollectionMaps, snapshotOf, type CollectionName, type CollectionRecords } from './collections.js';
import { JsonBackend } from './json-backend.js';
import type { Database } from './postgres/database.js';
import type { PgBackendOptions } from './postgres/pg-backend.js';
import type { StoredShare, StoredTrashItem } from './schema.js';
import type { TrackedMap } from './tracked-map.js';
import { Listeners } from '../util/listeners.js';
import { DavRecords } from './dav-records.js';
import { applyToDerived, rebuildDerived, TrashByUser, type DerivedIndexes } from './derived-indexes.js';
import { SharePaths, shareKey } from './share-paths.js';

export { CorruptStoreError } from './json-backend.js';
export type { RemoteChange } from './backend.js';

export { folderLinkKey, sharePathKey, shareKey } from './share-paths.js';

/**
 * The metadata store: Maps in memory for O(1) lookups, kept by a backend (daemon/store/backend.ts):
 * db.json (JsonBackend) or PostgreSQL (PgBackend). Callers change the Maps synchronously, then
 * `await commit()`: it resolves once the change is durable. The persisted Maps are TrackedMaps,
 * so a backend that writes rows knows what changed (docs/cluster.md, "The store").
 */
export class Store {
  /** Every persisted Map, by collection name (collections.ts); the fields below name them for their callers. */
  readonly #maps = newCollectionMaps();
  readonly users = this.#maps.users;
  readonly roles = this.#maps.roles;
  readonly sharesByToken = this.#maps.shares;
  /** Derived from sharesByToken (never persisted); change shares through putShare and deleteShare. */
  readonly sharesByPath = new SharePaths();
  readonly keysByHash = this.#maps.keys;
  readonly verifications = this.#maps.verifications;
  /** Sessions by the hash of their cookie (daemon/services/sessions.ts). */
  readonly sessions = this.#maps.sessions;
  /** Pending password resets by the hash of their token (daemon/services/auth.ts). */
  readonly resets = this.#maps.resets;
  /** Trash items by id (daemon/services/trash.ts); change them through putTrash and deleteTrash. */
  readonly trash = this.#maps.trash;
  /** Object mode's files by id (docs/cluster.md); empty in the other modes. */
  readonly files = this.#maps.files;
  /** Object mode's folders by id (docs/cluster.md); empty in the other modes. */
  readonly folders = this.#maps.folders;
  /** WebDAV's locks and dead properties, grouped by user too (dav-records.ts); changed through its methods. */
  readonly dav = new DavRecords(this.#maps.davLocks, this.#maps.davProps);
  /** The indexes derived from the records (derived-indexes.ts). */
  readonly #derived: DerivedIndexes = { sharesByPath: this.sharesByPath, trashByUser: new TrashByUser(), dav: this.dav };
  /** Called just before each write takes its snapshot or change-set (sessions flush their last use into it). */
  beforeWrite: (() => void) | null = null;
  /** Told how long each commit() waited until it was durable, or failed (the metrics, daemon/util/metrics.ts). */
  onCommitted: ((seconds: number) => void) | null = null;

  readonly #backend: StoreBackend;
  readonly #remoteListeners = new Listeners<RemoteChange>('store');
  readonly #availabilityListeners = new Listeners<boolean>('store');
  #available = true;

  /** A path: db.json (the embedded mode), as before issue 14; or any backend. */
  constructor(fileOrBackend: string | StoreBackend) {
    this.#backend = typeof fileOrBackend === 'string' ? new JsonBackend(fileOrBackend) : fileOrBackend;
    for (const name of COLLECTIONS) this.#maps[name].tracking = this.#backend.tracksChanges;
  }

  /** A collection's Map, by its name in db.json and PostgreSQL (collections.ts). */
  collection<C extends CollectionName>(name: C): TrackedMap<CollectionRecords[C]> {
    return this.#maps[name];
  }

  /** A store on PostgreSQL (`url`: postgres://…), migrated, loaded and listening for other daemons. */
  static async openPostgres(url: string, options: PgBackendOptions = {}): Promise<Store> {
    // Imported here, not at the top: pg costs an embedded daemon's start ~60 ms of CPU (issue 15).
    const { PgBackend } = await import('./postgres/pg-backend.js');
    const store = new Store(await PgBackend.connect(url, options));
    try {
      await store.open();
    } catch (err) {
      await store.close().catch(() => undefined);
      throw err;
    }
    return store;
  }

  /** Loads the Maps (db.json: creating it on first start; a file that does not parse stops here, untouched). */
  async open(): Promise<void> {
    await this.#backend.open(this.#host());
  }

  /** Resolves when every change made before the call is durable; rejects 409 `conflict` or 503 `database_unavailable`. */
  commit(): Promise<void> {
    if (!this.#available) return Promise.reject(databaseUnavailable());
    const written = this.#backend.commit();
    return this.onCommitted ? timed(written, this.onCommitted) : written;
  }

  /** The database (PostgreSQL backend), for other modules' queries; null in the embedded mode. */
  get database(): Database | null {
    return this.#backend.database;
  }

  /** False while the database cannot be reached (commits reject 503 meanwhile). Always true for db.json. */
  get available(): boolean {
    return this.#available;
  }

  /** Calls `fn(available)` when the database is lost or back; returns the unsubscribe. */
  onAvailability(fn: (available: boolean) => void): () => void {
    return this.#availabilityListeners.add(fn);
  }

  /**
   * Calls `fn` for each record changed other than by this daemon's successful commits: another
   * daemon's change, a difference a resync found, or a record a conflicting commit put back to
   * the database's state. Called after the Maps hold `after`. Returns the unsubscribe.
   */
  onRemoteChange(fn: (change: RemoteChange) => void): () => void {
    return this.#remoteListeners.add(fn);
  }

  /** Adds or replaces a share, keeping both of its indexes in step (`previous`: the record it replaces). */
  putShare(share: StoredShare, previous?: StoredShare): void {
    if (previous) this.sharesByPath.delete(shareKey(previous));
    this.sharesByToken.set(share.token, share);
    this.sharesByPath.set(shareKey(share), share);
  }

  /** Removes a share from both of its indexes. */
  deleteShare(share: StoredShare): void {
    this.sharesByToken.delete(share.token);
    this.sharesByPath.delete(shareKey(share));
  }

  /** Adds or replaces a trash item, keeping the per-user lists and bytes in step. */
  putTrash(item: StoredTrashItem): void {
    const previous = this.trash.get(item.id);
    if (previous) this.#derived.trashByUser.remove(previous);
    this.trash.set(item.id, item);
    this.#derived.trashByUser.add(item);
  }

  /** Removes a trash item (by its id). */
  deleteTrash(item: StoredTrashItem): void {
    const stored = this.trash.get(item.id);
    if (!stored) return;
    this.trash.delete(item.id);
    this.#derived.trashByUser.remove(stored);
  }

  /** A user's trash items, in no particular order. */
  trashOf(username: string): StoredTrashItem[] {
    return this.#derived.trashByUser.itemsOf(username);
  }

  /** The bytes in a user's trash (part of their usage). */
  trashBytes(username: string): number {
    return this.#derived.trashByUser.bytesOf(username);
  }

  /** Waits for pending writes, then closes the backend (db.json: refreshes the backup; PostgreSQL: disconnects). */
  async close(): Promise<void> {
    await this.#backend.close();
  }

  /**
   * With several daemons: waits until the Maps hold every commit another daemon made before
   * the call, and answers true; false (at once) when no other daemon can write. Called on a
   * miss (an unknown session, key, user or file) before answering it as one.
   */
  async catchUp(strict = false): Promise<boolean> {
    if (!this.#backend.catchUp) return false;
    await this.#backend.catchUp(strict);
    return true;
  }

  /** Waits for the write in progress, if any. */
  async idle(): Promise<void> {
    await this.#backend.idle();
  }

  /** db.json's path (the embedded mode only). */
  get file(): string {
    if (!(this.#backend instanceof JsonBackend)) throw new Error('This store has no file: it is kept in a database');
    return this.#backend.file;
  }

  /** What the backend may do to the store (backend.ts). */
  #host(): StoreHost {
    return {
      map: (collection) => this.#maps[collection] as TrackedMap<unknown>,
      replaceAll: (data) => {
        loadAll(this.#maps, data);
        rebuildDerived(this.#derived, this.sharesByToken.values(), this.trash.values());
      },
      snapshot: () => snapshotOf(this.#maps),
      // One record from the database, untracked; the derived indexes follow.
      applyRemote: (collection, key, after) => {
        const map = this.#maps[collection] as TrackedMap<unknown>;
        const before = map.get(key);
        applyToDerived(this.#derived, collection, before, after);
        map.applyRemote(key, after);
        return before;
      },
      emitRemote: (change) => this.#remoteListeners.notify(change),
      setAvailable: (available) => {
        if (available === this.#available) return;
        this.#available = available;
        this.#availabilityListeners.notify(available);
      },
      beforeWrite: () => this.beforeWrite?.(),
    };
  }
}

/** `written`, telling `observe` how long it took once it settles (either way). */
function timed(written: Promise<void>, observe: (seconds: number) => void): Promise<void> {
  const started = performance.now();
  const done = () => observe((performance.now() - started) / 1000);
  written.then(done, done);
  return written;
}
