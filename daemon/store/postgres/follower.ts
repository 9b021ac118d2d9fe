/**
 * How a daemon follows the database (docs/cluster.md, "The store"): the first load of the Maps,
 * the rows other daemons' notifications name, the keys of a change-set that failed, and the
 * whole re-read after an outage. Every read applies what it found to the Maps untracked and
 * reports each difference as a remote change. Reads run one at a time, in order, so an older
 * read never lands last.
 */
import { isDeepStrictEqual } from 'node:util';
import { databaseUnavailable } from '../../errors.js';
import type { StoreHost } from '../backend.js';
import { COLLECTIONS, isCollection, type CollectionName } from '../collections.js';
import { Database } from './database.js';
import type { ChangeListener, ChangeNotice } from './listener.js';
import type { LocalWrites, RecordKey } from './local-writes.js';
import { loadFresh } from './first-load.js';
import { readAllRows, snapshotRead, type StoreLog } from './snapshot-read.js';
import type { KnownKeys } from './writer.js';

export interface FollowerDeps {
  database: Database;
  listener: ChangeListener;
  /** This daemon's notifications name it: they are skipped. */
  origin: string;
  known: KnownKeys;
  /** This daemon's own change-sets: a read never puts an older row over one (local-writes.ts). */
  localWrites: LocalWrites;
  /** The store, once the backend is open. */
  host(): StoreHost;
  /** The connection was lost during a read. */
  lost(err: Error): void;
  log: StoreLog | undefined;
}

export class Follower {
  readonly #deps: FollowerDeps;
  /** Remote work (re-reads, resyncs) runs one at a time, in order, so an older read never lands last. */
  #remote: Promise<void> = Promise.resolve();
  /** Remote reads that failed so far: a strict catch-up that waited for one has not caught up. */
  #readsFailed = 0;
  /** Notifications received before the first load are held (null once loaded). */
  #early: string[] | null = [];

  constructor(deps: FollowerDeps) {
    this.#deps = deps;
  }

  /** The first load (the LISTEN is already on), then the notifications that came meanwhile. */
  async load(): Promise<void> {
    loadFresh(this.#deps.host(), this.#deps.known, await readAllRows(this.#deps.database, this.#deps.log));
    const early = this.#early ?? [];
    this.#early = null;
    for (const payload of early) this.received(payload);
  }

  /** A notification from the LISTEN connection. */
  received(payload: string): void {
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
    if (notice.origin === this.#deps.origin) return;
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
  async catchUp(strict = false): Promise<void> {
    const { listener } = this.#deps;
    // `strict`: for a miss about to be answered. Not listening (the database restarting, the
    // connection being made again), nothing says what this daemon lacks, and a 404 then may
    // only be its lag: 503 instead, which a client retries (the soak test saw the 404).
    if (!listener.listening) {
      if (strict) throw databaseUnavailable();
      return;
    }
    await listener.sync().catch(() => {
      if (strict) throw databaseUnavailable();
    });
    const failedBefore = this.#readsFailed;
    await this.#remote;
    // A read it waited for failed (the database going away meanwhile, the LISTEN connection not
    // yet told): the rows it was to bring are not here, and a miss now may only be this daemon's
    // lag. The soak test saw the 404: a download of a file renamed elsewhere, at a daemon just
    // continued after SIGSTOP while PostgreSQL shut down.
    if (strict && this.#readsFailed > failedBefore) throw databaseUnavailable();
  }

  /** Puts the database's version of these keys into the Maps (after a failed change-set, or left alone by a read); never rejects. */
  async reread(changes: readonly RecordKey[]): Promise<void> {
    const byCollection = new Map<CollectionName, Set<string>>();
    for (const { collection, key } of changes) {
      let keys = byCollection.get(collection);
      if (!keys) byCollection.set(collection, (keys = new Set()));
      keys.add(key);
    }
    await this.#serially(() => this.#refresh([...byCollection].map(([collection, keys]) => [collection, [...keys]]))).catch(
      (err: unknown) => this.#rereadFailed(err),
    );
  }

  /** Re-reads everything and applies each difference as a remote change (notifications were missed). */
  resync(): Promise<void> {
    return this.#serially(async () => {
      const since = this.#deps.localWrites.readBegins();
      const all = await readAllRows(this.#deps.database, this.#deps.log);
      const host = this.#deps.host();
      for (const collection of COLLECTIONS) {
        // Changes made while the database was away were refused: the database's state wins.
        host.map(collection).takeDirty();
        const found = all.get(collection)!;
        this.#applyCollection(collection, found, since);
        // What the table holds, except for the keys this daemon wrote since: the writer's word on those stands.
        const wrote = (key: string) => this.#deps.localWrites.newerThan(collection, key, since);
        const known = new Set([...found.keys()].filter((key) => !wrote(key)));
        for (const key of this.#deps.known[collection]) if (wrote(key)) known.add(key);
        this.#deps.known[collection] = known;
      }
      this.#readAgainLater();
    });
  }

  /** Waits for the reads in progress (at close). */
  async settled(): Promise<void> {
    await this.#remote.catch(() => undefined);
  }

  #rereadFailed(err: unknown): void {
    if (Database.isConnectionError(err)) this.#deps.lost(err as Error);
    else this.#deps.log?.warn({ err }, 'store: could not re-read records after a failed change');
  }

  /** Runs remote work after the remote work already queued. */
  #serially(work: () => Promise<void>): Promise<void> {
    const run = this.#remote.then(work);
    // Counted here, in the step that settles #remote: a catch-up awaiting it sees the count.
    this.#remote = run.catch(() => {
      this.#readsFailed++;
    });
    return run;
  }

  /**
   * Re-reads rows (`keys`: those keys; null: the whole table) in one snapshot, then applies them
   * all at once (untracked), so another daemon's commit appears here whole, never half.
   */
  async #refresh(wanted: [collection: CollectionName, keys: string[] | null][]): Promise<void> {
    const reads = wanted.filter(([collection, keys]) => isCollection(collection) && (keys === null || keys.length > 0));
    if (reads.length === 0) return;
    const since = this.#deps.localWrites.readBegins();
    const found = await snapshotRead(this.#deps.database, this.#deps.log, async (client) => {
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
      if (keys === null) this.#applyCollection(collection, found[i], since);
      else for (const key of keys) this.#apply(collection, key, found[i].get(key), since);
    });
    this.#readAgainLater();
  }

  /** Queues a read of the keys this read left alone whose own change-sets had ended (local-writes.ts). */
  #readAgainLater(): void {
    const again = this.#deps.localWrites.takeReadAgain();
    if (again.length > 0) void this.reread(again);
  }

  #applyCollection(collection: CollectionName, found: Map<string, unknown>, since: number): void {
    const map = this.#deps.host().map(collection);
    for (const key of [...map.keys()]) if (!found.has(key)) this.#apply(collection, key, undefined, since);
    for (const [key, data] of found) this.#apply(collection, key, data, since);
  }

  /** One row as a read found it (undefined: none), unless this daemon wrote the key since the read began. */
  #apply(collection: CollectionName, key: string, after: unknown, since: number): void {
    if (this.#deps.localWrites.leaveAlone(collection, key, since)) return;
    const host = this.#deps.host();
    if (after === undefined) this.#deps.known[collection].delete(key);
    else this.#deps.known[collection].add(key);
    const before = host.map(collection).get(key);
    if (isDeepStrictEqual(before, after)) return;
    host.applyRemote(collection, key, after);
    host.emitRemote({ collection, key, before, after });
  }
}
