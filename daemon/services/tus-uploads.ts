/**
 * Resumable uploads (tus 1.0, docs/uploads.md): what each request of the /api/uploads/ door
 * does. An upload is created with its target checked and its whole length held against the
 * quota; PATCHes append to its partial file (storage/tus-partials.ts, tus-append.ts), each
 * acknowledged offset durable; the last byte places it as files.upload places a file
 * (storage/tus-placement.ts, with tus-policy.ts's hooks). The quota hold is let go once the file
 * is placed, or when the upload is terminated or expires. One daemon's uploads: the partial
 * files are in its data directory.
 */
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { NimbusContext } from '../context.js';
import { ApiError, conflict, notFound } from '../errors.js';
import { bodyTooLong } from '../storage/tus-append.js';
import type { PartialUploads, TusRecord } from '../storage/tus-partials.js';
import type { Caller } from './keys.js';
import { holdAgain, holdQuota, checkNewUpload, type TusTarget } from './tus-policy.js';
import { TusWriter, type LiveUpload } from './tus-writer.js';

export type { LiveUpload };

/**
 * Unfinished uploads one user may have at once: each is two files and a quota hold, and a
 * client that creates without ever sending (or a user without a quota) must not fill the disk
 * with records. Far above what an explorer's queue runs (a few at a time).
 */
export const MAX_UNFINISHED_PER_USER = 100;

export const uploadNotFound = () => notFound('upload_not_found', 'No such upload');
export const uploadExpired = () => new ApiError('upload_expired', 'This upload expired unfinished; its bytes are gone: start it again');
export const tooManyUnfinished = (unfinished: number) =>
  new ApiError('too_many_requests', `${unfinished} uploads are unfinished: finish or cancel some before starting another`);
export const offsetMismatch = (offset: number, at: number) =>
  conflict('upload_offset_mismatch', `Upload-Offset is ${offset}, but the upload stands at ${at}`);

/** What the /api/uploads/ door asks of resumable uploads: this daemon's (TusUploads) or several daemons' (tus-cluster.ts). */
export interface TusService {
  create(target: TusTarget, length: number, metadata: string): Promise<{ record: TusRecord }>;
  head(caller: Caller, id: string): Promise<TusRecord>;
  patch(caller: Caller, id: string, offset: number, body: Readable, declaredLength: number | null): Promise<TusRecord>;
  terminate(caller: Caller, id: string): Promise<void>;
  /** Drops the expired, and those whose account is gone; how many. */
  sweep(): Promise<number>;
}

export interface TusOptions {
  /** How long an unfinished upload is kept after its last byte (NIMBUS_UPLOAD_EXPIRY_HOURS). */
  expiryMs: number;
  /** Resolves once the first scan has read the user's files (the index is what the target checks read). */
  settled: (username: string) => Promise<void>;
}

export class TusUploads implements TusService {
  readonly #uploads = new Map<string, LiveUpload>();
  readonly #writer: TusWriter;

  constructor(
    private readonly nimbus: NimbusContext,
    private readonly partials: PartialUploads,
    private readonly options: TusOptions,
  ) {
    this.#writer = new TusWriter(nimbus, partials, (live) => this.drop(live));
  }

  /** Reads back the uploads a previous run kept, holds their quota again, and drops the expired. */
  async open(): Promise<void> {
    for (const record of await this.partials.open(this.nimbus.log)) {
      // Placed just before the previous run died, not yet recorded: recorded now, its quota not held again.
      if (!record.done && record.offset === record.length) await this.#writer.recognisePlaced(record);
      const hold = record.done ? null : await holdAgain(this.nimbus, record.username, record.length);
      this.#uploads.set(record.id, { record, hold, writing: null, gone: false });
    }
    await this.sweep();
  }

  /** Creates an upload (POST): the target checked, the length held (507), the record durable before it is answered. */
  async create(target: TusTarget, length: number, metadata: string): Promise<LiveUpload> {
    await this.options.settled(target.username);
    const user = checkNewUpload(this.nimbus, target);
    let unfinished = 0;
    for (const live of this.#uploads.values()) if (!live.record.done && live.record.username === target.username) unfinished++;
    if (unfinished >= MAX_UNFINISHED_PER_USER) throw tooManyUnfinished(unfinished);
    const hold = await holdQuota(this.nimbus, user, target, length);
    const record: TusRecord = {
      id: randomBytes(16).toString('hex'),
      ...target,
      length,
      metadata,
      userCreatedAt: user.createdAt,
      offset: 0,
      expiresAt: Date.now() + this.options.expiryMs,
      done: false,
    };
    try {
      await this.partials.create(record);
    } catch (err) {
      await hold.release();
      throw err;
    }
    const live: LiveUpload = { record, hold, writing: null, gone: false };
    this.#uploads.set(record.id, live);
    return live;
  }

  /**
   * The upload for a caller (HEAD, PATCH, DELETE): 404 when there is none or it is another
   * user's (as a user that does not exist), 410 once expired. One whose account was deleted
   * (or made again under its name) is dropped.
   */
  async find(caller: Caller, id: string): Promise<LiveUpload> {
    const live = this.#uploads.get(id);
    if (!live || live.gone || (!caller.admin && caller.username !== live.record.username)) throw uploadNotFound();
    if (this.nimbus.store.users.get(live.record.username)?.createdAt !== live.record.userCreatedAt) {
      await this.#dropLocked(live);
      throw uploadNotFound();
    }
    if (live.record.expiresAt <= Date.now() && !live.writing) {
      await this.#dropLocked(live);
      throw uploadExpired();
    }
    return live;
  }

  /** HEAD: where the upload stands. One whose bytes are all in but not yet placed (a failure or a crash between) is placed now. */
  async head(caller: Caller, id: string): Promise<TusRecord> {
    const live = await this.find(caller, id);
    if (live.record.done || live.record.offset < live.record.length) return live.record;
    return this.nimbus.locks.run(`tus:${id}`, async () => {
      if (live.gone) throw uploadNotFound();
      if (!live.record.done) await this.#writer.finish(live, caller, this.options.settled);
      return live.record;
    });
  }

  /**
   * PATCH: appends `body` at `offset` (409 unless it is where the upload stands; 413 past its
   * length) and, with the last byte, places the file. A PATCH still writing the upload (its
   * client gone, not yet noticed) is stopped first: this one is the client's now.
   */
  async patch(caller: Caller, id: string, offset: number, body: Readable, declaredLength: number | null): Promise<TusRecord> {
    const live = await this.find(caller, id);
    live.writing?.stop();
    return this.nimbus.locks.run(`tus:${id}`, async () => {
      if (live.gone) throw uploadNotFound();
      const { record } = live;
      if (offset !== record.offset) throw offsetMismatch(offset, record.offset);
      if (declaredLength !== null && declaredLength > record.length - offset) throw bodyTooLong();
      if (!record.done && offset < record.length) {
        record.expiresAt = Date.now() + this.options.expiryMs;
        await this.#writer.append(live, body);
      }
      if (!record.done && record.offset === record.length) await this.#writer.finish(live, caller, this.options.settled);
      return record;
    });
  }

  /** DELETE (termination): a PATCH still writing is stopped, then the bytes and the record go and the quota is let go. */
  async terminate(caller: Caller, id: string): Promise<void> {
    const live = await this.find(caller, id).catch((err: unknown) => {
      // An upload that just expired is gone either way: terminating it is done.
      if (err instanceof ApiError && err.code === 'upload_expired') return null;
      throw err;
    });
    if (!live) return;
    live.writing?.stop();
    await this.#dropLocked(live);
  }

  /** Drops the expired uploads and those whose account is gone (at start, then periodically: docs/uploads.md). */
  async sweep(): Promise<number> {
    const now = Date.now();
    let dropped = 0;
    for (const live of [...this.#uploads.values()]) {
      const { record } = live;
      const accountGone = this.nimbus.store.users.get(record.username)?.createdAt !== record.userCreatedAt;
      if (live.writing || (record.expiresAt > now && !accountGone)) continue;
      await this.#dropLocked(live);
      dropped++;
    }
    return dropped;
  }

  /** Drops it once no PATCH, placement or other drop of it is running. */
  #dropLocked(live: LiveUpload): Promise<void> {
    return this.nimbus.locks.run(`tus:${live.record.id}`, () => this.drop(live));
  }

  /** Removes an upload: its partial file and record, its quota hold. Safe to call twice. */
  async drop(live: LiveUpload): Promise<void> {
    if (live.gone) return;
    live.gone = true;
    this.#uploads.delete(live.record.id);
    const hold = live.hold;
    live.hold = null;
    try {
      await this.partials.remove(live.record.id);
    } finally {
      await hold?.release();
    }
  }

  /** The uploads held now (tests and the sweep's log). */
  get size(): number {
    return this.#uploads.size;
  }
}
