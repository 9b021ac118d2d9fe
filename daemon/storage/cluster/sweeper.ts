/**
 * The sweeper (docs/cluster.md, "Bytes"): deletes objects no row names (a file's row, or a
 * kept version's record: docs/versions.md). An upload writes its
 * object before its row commits, and a delete commits its rows before deleting the objects,
 * so a crash (or a failed delete) leaves at most an orphan object, never a row without its
 * object; this finds them. Only objects older than `minAgeMs` (an hour) go, so an upload
 * still between its object and its row is never taken. The objects are listed first and the
 * rows read after, so a row committed during the listing still protects its object.
 *
 * With PostgreSQL one daemon at a time sweeps: the one that gets `pg_try_advisory_lock`; the
 * rows are read from the database itself (another daemon's newest rows included).
 *
 * It also aborts multipart uploads under `files/` begun longer ago than `minAgeMs` that got no
 * part for as long (but a resumable upload's, which may pause for a day: its row's expiry drops it): a daemon killed mid-upload leaves one open, its parts kept (and billed) but
 * in no listing. A long upload still in flight (a 40 GiB body may take more than an hour) sends
 * a part every few MiB, so it is never taken.
 */
import type { Database } from '../../store/postgres/database.js';
import type { Store } from '../../store/store.js';
import type { ObjectStore } from '../objects/object-store.js';
import { FILES_PREFIX, fileIdOf, objectKey } from './ids.js';
import { TUS_OBJECTS_SQL } from './tus-rows.js';

/** The advisory lock key of the sweeper (any constant no other Nimbus lock uses). */
export const SWEEPER_LOCK = 0x6e696d62; // "nimb"

export interface SweepResult {
  /** False when another daemon holds the sweeper's lock (nothing was listed). */
  ran: boolean;
  /** Objects under `files/` listed. */
  listed: number;
  /** Orphans deleted. */
  deleted: number;
  /** Orphans younger than `minAgeMs`, left for a later sweep. */
  young: number;
}

export interface SweeperOptions {
  objects: ObjectStore;
  store: Store;
  /** The shared database (PostgreSQL), or null: one daemon, rows from the store's Maps. */
  database: Database | null;
  log: (line: string) => void;
  /** Only objects older than this go (default: an hour). */
  minAgeMs?: number;
  /** How often `start()` sweeps (default: every 10 minutes). */
  intervalMs?: number;
}

export class Sweeper {
  readonly #options: SweeperOptions;
  readonly #minAgeMs: number;
  readonly #intervalMs: number;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<SweepResult> | null = null;

  constructor(options: SweeperOptions) {
    this.#options = options;
    this.#minAgeMs = options.minAgeMs ?? 60 * 60_000;
    this.#intervalMs = options.intervalMs ?? 10 * 60_000;
  }

  /** Sweeps now and then every `intervalMs` until `stop()`; a failed sweep is logged and tried again next time. */
  start(): void {
    if (this.#timer) return;
    const run = () => {
      this.sweep().catch((err: unknown) =>
        this.#options.log(`Nimbus: the sweeper failed (it tries again later): ${(err as Error).message}`),
      );
    };
    this.#timer = setInterval(run, this.#intervalMs);
    this.#timer.unref();
    run();
  }

  /** Stops the timer and waits for a sweep in progress. */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running?.catch(() => undefined);
  }

  /** One sweep (one at a time in this daemon; with a database, in one daemon at a time). */
  sweep(): Promise<SweepResult> {
    this.#running ??= this.#sweepOnce().finally(() => (this.#running = null));
    return this.#running;
  }

  async #sweepOnce(): Promise<SweepResult> {
    const { database } = this.#options;
    if (!database) {
      const { store } = this.#options;
      // A file's kept version (docs/versions.md) names its object too.
      const kept = [...store.collection('versions').values()].flatMap((v) => (v.objectId ? [v.objectId] : []));
      const result = await this.#sweepOrphans(async () => new Set([...store.files.keys(), ...kept]));
      await this.#abortStaleUploads();
      return result;
    }
    // A session lock, held on one connection for the sweep: another daemon trying meanwhile gets false.
    const client = await database.pool.connect();
    try {
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [SWEEPER_LOCK]);
      if (!rows[0]?.locked) return { ran: false, listed: 0, deleted: 0, young: 0 };
      try {
        // A resumable upload's object, and its multipart upload, are its row's until it is placed or
        // dropped (tus-rows.ts). Read once, after the listing, for both steps.
        let resumable = new Set<string>();
        const result = await this.#sweepOrphans(async () => {
          const named = await client.query<{ key: string }>(
            "SELECT key FROM files UNION SELECT data->>'objectId' FROM versions WHERE data ? 'objectId'",
          );
          resumable = new Set((await client.query<{ object_id: string }>(TUS_OBJECTS_SQL)).rows.map((r) => r.object_id));
          return new Set([...named.rows.map((r) => r.key), ...resumable]);
        });
        await this.#abortStaleUploads(resumable);
        return result;
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [SWEEPER_LOCK]);
      }
    } finally {
      client.release();
    }
  }

  async #sweepOrphans(namedIds: () => Promise<Set<string>>): Promise<SweepResult> {
    const { objects } = this.#options;
    const oldEnough = Date.now() - this.#minAgeMs;
    const candidates: { id: string; old: boolean }[] = [];
    let listed = 0;
    for await (const object of objects.list(FILES_PREFIX)) {
      listed++;
      const id = fileIdOf(object.key);
      // A key of another shape under files/ is not ours to judge.
      if (id !== null) candidates.push({ id, old: object.lastModified.getTime() <= oldEnough });
    }
    const named = await namedIds();
    const orphans = candidates.filter((c) => !named.has(c.id));
    const due = orphans.filter((c) => c.old).map((c) => objectKey(c.id));
    if (due.length > 0) {
      await objects.delete(due);
      this.#options.log(`Nimbus: the sweeper deleted ${due.length} object(s) no file names.`);
    }
    return { ran: true, listed, deleted: due.length, young: orphans.length - due.length };
  }

  /** Aborts the multipart uploads begun, and last given a part, before `minAgeMs` ago (by the bucket's clock). */
  async #abortStaleUploads(resumable: ReadonlySet<string> = new Set()): Promise<void> {
    const { objects } = this.#options;
    const oldEnough = Date.now() - this.#minAgeMs;
    const begunLongAgo = [];
    for await (const upload of objects.listOpenUploads(FILES_PREFIX)) {
      if (upload.initiated.getTime() <= oldEnough && !resumable.has(fileIdOf(upload.key) ?? '')) begunLongAgo.push(upload);
    }
    const stale = [];
    for (const upload of begunLongAgo) {
      const lastPart = await objects.lastPartAt(upload);
      if (lastPart === null || lastPart.getTime() <= oldEnough) stale.push(upload);
    }
    for (const upload of stale) await objects.abortOpenUpload(upload);
    if (stale.length > 0) this.#options.log(`Nimbus: the sweeper aborted ${stale.length} incomplete multipart upload(s).`);
  }
}
