import { copyFile, rename } from 'node:fs/promises';
import path from 'node:path';
import type { Adapter } from 'lowdb';
import { DurableJSONFile } from './durable-json-file.js';
import {
  emptyDb,
  migrateDb,
  type DbData,
  type StoredFile,
  type StoredFolder,
  type StoredKey,
  type StoredReset,
  type StoredRole,
  type StoredSession,
  type StoredShare,
  type StoredTrashItem,
  type StoredUser,
  type StoredVerification,
} from './schema.js';

export class CorruptStoreError extends Error {
  constructor(file: string, backup: string, cause: unknown) {
    super(
      `The store ${file} is unreadable (${(cause as Error).message}). It was left untouched. ` +
        `The last good copy is ${backup} (if it exists): inspect both, then move one into place.`,
    );
    this.name = 'CorruptStoreError';
  }
}

/** Key of a file's share in `sharesByPath`. */
export const sharePathKey = (username: string, folder: string | null, file: string): string =>
  `${username}\u0000${folder ?? ''}\u0000${file}`;

/**
 * The metadata store: Maps in memory for O(1) lookups, written through a lowdb adapter
 * (DurableJSONFile: temp file, fsync, rename, fsync of the directory). Callers change the
 * Maps synchronously, then `await commit()`: it resolves once a write holding the change
 * is on disk. Changes made while a write runs share the next write (group commit), so a
 * burst of N mutations costs two serialisations, not N.
 *
 * The adapter is held alone, not inside lowdb's `Low`: the Maps are the model, and a flush
 * writes a snapshot of them, so `Low.data` would only be a staging field between the two,
 * and `Low.read()` cannot tell a missing file (first start) from an empty one.
 */
export class Store {
  readonly users = new Map<string, StoredUser>();
  readonly roles = new Map<string, StoredRole>();
  readonly sharesByToken = new Map<string, StoredShare>();
  readonly sharesByPath = new Map<string, StoredShare>();
  readonly keysByHash = new Map<string, StoredKey>();
  readonly verifications = new Map<string, StoredVerification>();
  /** Sessions by the hash of their cookie (daemon/services/sessions.ts). */
  readonly sessions = new Map<string, StoredSession>();
  /** Pending password resets by the hash of their token (daemon/services/auth.ts). */
  readonly resets = new Map<string, StoredReset>();
  /** Trash items by id (daemon/services/trash.ts); change them through putTrash and deleteTrash. */
  readonly trash = new Map<string, StoredTrashItem>();
  /** Object mode's files by id (docs/cluster.md); empty in the other modes. */
  readonly files = new Map<string, StoredFile>();
  /** Object mode's folders by id (docs/cluster.md); empty in the other modes. */
  readonly folders = new Map<string, StoredFolder>();
  /** Each user's trash items by id, and their bytes: usage reads these on every upload. */
  readonly #trashByUser = new Map<string, { items: Map<string, StoredTrashItem>; bytes: number }>();
  /** Called just before each write takes its snapshot (sessions flush their last use into it). */
  beforeWrite: (() => void) | null = null;

  readonly #adapter: Adapter<DbData>;
  readonly #file: string;
  #writing: Promise<void> | null = null;
  #waiting: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  /** The last state known to be on disk, restored when a write fails. */
  #durable: DbData = emptyDb();

  constructor(file: string) {
    this.#file = file;
    this.#adapter = new DurableJSONFile<DbData>(file);
  }

  get backupFile(): string {
    return `${this.#file}.bak`;
  }

  /** Reads db.json, creating it on first start. A file that does not parse stops here, untouched. */
  async open(): Promise<void> {
    let stored: DbData | null;
    try {
      stored = await this.#adapter.read();
      if (stored !== null && !isDbData(stored)) throw new Error('not a Nimbus store');
    } catch (err) {
      throw new CorruptStoreError(this.#file, this.backupFile, err);
    }
    const existed = stored !== null;
    const data = stored ?? emptyDb();
    // An older store is brought up to date and written back at once (a no-op for a current one).
    const migrated = existed && migrateDb(data);
    this.#load(data);
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

  /** Adds or replaces a share, keeping both of its indexes in step (`previous`: the record it replaces). */
  putShare(share: StoredShare, previous?: StoredShare): void {
    if (previous) this.sharesByPath.delete(sharePathKey(previous.username, previous.folder, previous.file));
    this.sharesByToken.set(share.token, share);
    this.sharesByPath.set(sharePathKey(share.username, share.folder, share.file), share);
  }

  /** Removes a share from both of its indexes. */
  deleteShare(share: StoredShare): void {
    this.sharesByToken.delete(share.token);
    this.sharesByPath.delete(sharePathKey(share.username, share.folder, share.file));
  }

  /** Adds or replaces a trash item, keeping the per-user lists and bytes in step. */
  putTrash(item: StoredTrashItem): void {
    const previous = this.trash.get(item.id);
    if (previous) this.deleteTrash(previous);
    this.trash.set(item.id, item);
    let mine = this.#trashByUser.get(item.username);
    if (!mine) this.#trashByUser.set(item.username, (mine = { items: new Map(), bytes: 0 }));
    mine.items.set(item.id, item);
    mine.bytes += item.size;
  }

  /** Removes a trash item (by its id). */
  deleteTrash(item: StoredTrashItem): void {
    const stored = this.trash.get(item.id);
    if (!stored) return;
    this.trash.delete(item.id);
    const mine = this.#trashByUser.get(stored.username)!;
    mine.items.delete(stored.id);
    mine.bytes -= stored.size;
    if (mine.items.size === 0) this.#trashByUser.delete(stored.username);
  }

  /** A user's trash items, in no particular order. */
  trashOf(username: string): StoredTrashItem[] {
    return [...(this.#trashByUser.get(username)?.items.values() ?? [])];
  }

  /** The bytes in a user's trash (part of their usage). */
  trashBytes(username: string): number {
    return this.#trashByUser.get(username)?.bytes ?? 0;
  }

  /** Waits for pending writes, then refreshes the backup to the final state (a clean stop). */
  async close(): Promise<void> {
    await this.idle();
    const staged = `${this.backupFile}.tmp`;
    try {
      await copyFile(this.#file, staged);
      await rename(staged, this.backupFile);
    } catch {
      // A backup that cannot be refreshed (full disk) keeps the one rotated by the last write.
    }
  }

  /** Waits for the write in progress, if any. */
  async idle(): Promise<void> {
    while (this.#writing) await this.#writing.catch(() => undefined);
  }

  async #flushLoop(): Promise<void> {
    // Let the other mutations of this tick join the first write.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.#waiting.length > 0) {
      const batch = this.#waiting;
      this.#waiting = [];
      this.beforeWrite?.();
      const data = this.#snapshot();
      try {
        await this.#adapter.write(data);
        this.#durable = data;
        for (const waiter of batch) waiter.resolve();
      } catch (err) {
        // The disk did not take it: go back to what the disk holds, and fail every
        // unacknowledged change (those queued behind it were built on the lost state).
        const failed = [...batch, ...this.#waiting];
        this.#waiting = [];
        this.#load(this.#durable);
        for (const waiter of failed) waiter.reject(err);
      }
    }
    this.#writing = null;
  }

  #snapshot(): DbData {
    return {
      schema: 1,
      users: [...this.users.values()],
      roles: [...this.roles.values()],
      shares: [...this.sharesByToken.values()],
      keys: [...this.keysByHash.values()],
      verifications: [...this.verifications.values()],
      sessions: [...this.sessions.values()],
      resets: [...this.resets.values()],
      trash: [...this.trash.values()],
      files: [...this.files.values()],
      folders: [...this.folders.values()],
    };
  }

  #load(data: DbData): void {
    const copy = structuredClone(data);
    fill(this.users, copy.users, (u) => u.username);
    fill(this.roles, copy.roles, (r) => r.name);
    fill(this.sharesByToken, copy.shares, (s) => s.token);
    fill(this.sharesByPath, copy.shares, (s) => sharePathKey(s.username, s.folder, s.file));
    fill(this.keysByHash, copy.keys, (k) => k.hash);
    fill(this.verifications, copy.verifications, (v) => v.hash);
    fill(this.sessions, copy.sessions ?? [], (s) => s.hash);
    fill(this.resets, copy.resets ?? [], (r) => r.hash);
    fill(this.files, copy.files ?? [], (f) => f.id);
    fill(this.folders, copy.folders ?? [], (f) => f.id);
    this.trash.clear();
    this.#trashByUser.clear();
    for (const item of copy.trash ?? []) this.putTrash(item);
  }

  get file(): string {
    return this.#file;
  }

  get dir(): string {
    return path.dirname(this.#file);
  }
}

function fill<T>(map: Map<string, T>, items: T[], key: (item: T) => string): void {
  map.clear();
  for (const item of items) map.set(key(item), item);
}

function isDbData(value: unknown): value is DbData {
  const v = value as Partial<DbData> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    Array.isArray(v.users) &&
    Array.isArray(v.roles) &&
    Array.isArray(v.shares) &&
    Array.isArray(v.keys) &&
    Array.isArray(v.verifications)
  );
}
