/**
 * The embedded backend (docs/cluster.md, "Modes"): the Maps written as one db.json through a
 * lowdb adapter (DurableJSONFile: temp file, fsync, rename, fsync of the directory). Each
 * write is a snapshot of everything; changes made while a write runs share the next write
 * (group commit), so a burst of N mutations costs two serialisations, not N.
 *
 * The adapter is held alone, not inside lowdb's `Low`: the Maps are the model, and a flush
 * writes a snapshot of them, so `Low.data` would only be a staging field between the two,
 * and `Low.read()` cannot tell a missing file (first start) from an empty one.
 */
import { copyFile, rename } from 'node:fs/promises';
import type { Adapter } from 'lowdb';
import type { StoreBackend, StoreHost } from './backend.js';
import { DurableJSONFile } from './durable-json-file.js';
import { emptyDb, isDbData, migrateDb, type DbData } from './schema.js';
import { refuseNewerDb, unknownFields } from './upgrades.js';

export class CorruptStoreError extends Error {
  constructor(file: string, backup: string, cause: unknown) {
    super(
      `The store ${file} is unreadable (${(cause as Error).message}). It was left untouched. ` +
        `The last good copy is ${backup} (if it exists): inspect both, then move one into place.`,
    );
    this.name = 'CorruptStoreError';
  }
}

export class JsonBackend implements StoreBackend {
  readonly tracksChanges = false;
  readonly database = null;
  readonly file: string;
  readonly #adapter: Adapter<DbData>;
  #host: StoreHost | null = null;
  #writing: Promise<void> | null = null;
  #waiting: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  /** The last state known to be on disk, restored when a write fails. */
  #durable: DbData = emptyDb();
  /** What db.json held beyond this code's collections (upgrades.ts): written back with every snapshot. */
  #unknown: Record<string, unknown> = {};

  constructor(file: string) {
    this.file = file;
    this.#adapter = new DurableJSONFile<DbData>(file);
  }

  get backupFile(): string {
    return `${this.file}.bak`;
  }

  /**
   * Reads db.json, creating it on first start. A file that does not parse, or that a newer
   * Nimbus wrote, stops here, untouched (and so is its backup: only a write rotates it).
   */
  async open(host: StoreHost): Promise<void> {
    this.#host = host;
    let stored: DbData | null;
    try {
      stored = await this.#adapter.read();
    } catch (err) {
      throw new CorruptStoreError(this.file, this.backupFile, err);
    }
    // Before the shape check: a newer layout may not look like a store to this code at all.
    refuseNewerDb(stored, this.file);
    if (stored !== null && !isDbData(stored)) throw new CorruptStoreError(this.file, this.backupFile, new Error('not a Nimbus store'));
    if (stored !== null) this.#unknown = unknownFields(stored);
    const existed = stored !== null;
    const data = stored ?? emptyDb();
    // An older store is brought up to date and written back at once (a no-op for a current one).
    const migrated = existed && migrateDb(data);
    host.replaceAll(data);
    this.#durable = data;
    if (!existed || migrated) await this.commit();
  }

  /** Resolves when every change made before the call is durable. */
  commit(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      if (!this.#writing) this.#writing = this.#flushLoop();
    });
  }

  /** Waits for pending writes, then refreshes the backup to the final state (a clean stop). */
  async close(): Promise<void> {
    await this.idle();
    const staged = `${this.backupFile}.tmp`;
    try {
      await copyFile(this.file, staged);
      await rename(staged, this.backupFile);
    } catch {
      // A backup that cannot be refreshed (full disk) keeps the one rotated by the last write.
    }
  }

  async idle(): Promise<void> {
    while (this.#writing) await this.#writing.catch(() => undefined);
  }

  async #flushLoop(): Promise<void> {
    const host = this.#host!;
    // Let the other mutations of this tick join the first write.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.#waiting.length > 0) {
      const batch = this.#waiting;
      this.#waiting = [];
      host.beforeWrite();
      const data = Object.assign(host.snapshot(), this.#unknown);
      try {
        await this.#adapter.write(data);
        this.#durable = data;
        for (const waiter of batch) waiter.resolve();
      } catch (err) {
        // The disk did not take it: go back to what the disk holds, and fail every
        // unacknowledged change (those queued behind it were built on the lost state).
        const failed = [...batch, ...this.#waiting];
        this.#waiting = [];
        host.replaceAll(this.#durable);
        for (const waiter of failed) waiter.reject(err);
      }
    }
    this.#writing = null;
  }
}
