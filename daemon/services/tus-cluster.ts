/**
 * Resumable uploads with several daemons (docs/uploads.md, "Several daemons"): the same door
 * and rules as one daemon's (tus-uploads.ts), with everything any daemon needs kept where every
 * daemon finds it. The record is a `tus_uploads` row changed by compare-and-set
 * (storage/cluster/tus-rows.ts); the bytes are an S3 multipart upload onto the object the file
 * will be, plus the row's tail (storage/cluster/tus-parts.ts); the quota hold is a PostgreSQL
 * reservation that lasts as long as the upload, not its daemon. The last byte completes the
 * object and places it, nothing copied (storage/cluster/tus-place.ts). So the balancer may send
 * each request to another daemon, and a daemon may die between any two.
 */
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { NimbusContext } from '../context.js';
import { ApiError, conflict } from '../errors.js';
import { newId } from '../storage/cluster/ids.js';
import type { ObjectStorage } from '../storage/cluster/object-storage.js';
import { appendParts, partSizeFor } from '../storage/cluster/tus-parts.js';
import { TusRows, type TusRow } from '../storage/cluster/tus-rows.js';
import type { Database } from '../store/postgres/database.js';
import { bodyTooLong } from '../storage/tus-append.js';
import type { TusRecord } from '../storage/tus-partials.js';
import type { Caller } from './keys.js';
import type { PgQuotaLedger } from './pg-quota.js';
import { maxBytesOf } from './records.js';
import { checkNewUpload, type TusTarget } from './tus-policy.js';
import {
  MAX_UNFINISHED_PER_USER,
  offsetMismatch,
  tooManyUnfinished,
  uploadExpired,
  uploadNotFound,
  type TusOptions,
  type TusService,
} from './tus-uploads.js';
import { holdGivingWay } from './versions.js';
import { ClusterUploadEnds, holdId, writerToken } from './tus-cluster-ends.js';

const recordOf = (row: TusRow): TusRecord => ({
  id: row.id,
  username: row.username,
  folder: row.target.folder,
  file: row.target.file,
  overwrite: row.target.overwrite,
  length: row.length,
  metadata: row.target.metadata,
  userCreatedAt: row.target.userCreatedAt,
  offset: row.offset,
  expiresAt: row.expiresAt,
  done: row.done,
});

export class ClusterTusUploads implements TusService {
  readonly #rows: TusRows;
  /** Placing and dropping uploads. */
  readonly #ends: ClusterUploadEnds;
  /** PATCHes writing here now: a newer one here stops the older at once (another daemon's stops at its next part). */
  readonly #writing = new Map<string, () => void>();

  constructor(
    private readonly nimbus: NimbusContext,
    database: Database,
    private readonly ledger: PgQuotaLedger,
    private readonly storage: ObjectStorage,
    private readonly options: TusOptions,
  ) {
    this.#rows = new TusRows(database);
    this.#ends = new ClusterUploadEnds(nimbus, this.#rows, ledger, storage);
  }

  async create(target: TusTarget, length: number, metadata: string): Promise<{ record: TusRecord }> {
    await this.options.settled(target.username);
    const user = checkNewUpload(this.nimbus, target);
    const { username, folder, file, overwrite } = target;
    const unfinished = await this.#rows.unfinishedOf(username);
    if (unfinished >= MAX_UNFINISHED_PER_USER) throw tooManyUnfinished(unfinished);
    const id = randomBytes(16).toString('hex');
    const expiresAt = Date.now() + this.options.expiryMs;
    const existing = this.nimbus.index.getFile(username, folder, file);
    const freed = overwrite && existing ? existing.size : 0;
    const maxBytes = maxBytesOf(this.nimbus, user);
    await holdGivingWay(this.nimbus, username, () => this.ledger.reserveUntil(holdId(id), username, length, maxBytes, freed, expiresAt));
    const row: TusRow = {
      id,
      username,
      target: { folder, file, overwrite, metadata, userCreatedAt: user.createdAt },
      length,
      objectId: newId(),
      partSize: partSizeFor(length),
      multipartId: null,
      parts: [],
      offset: 0,
      expiresAt,
      done: false,
    };
    try {
      await this.#rows.insert(row);
    } catch (err) {
      await this.ledger.releaseHeld(holdId(id)).catch(() => undefined);
      throw err;
    }
    return { record: recordOf(row) };
  }

  /** HEAD: where it stands. One whose bytes are all in but not placed (its daemon failed or died between) is placed now. */
  async head(caller: Caller, id: string): Promise<TusRecord> {
    const row = await this.#find(caller, id);
    if (row.done || row.offset < row.length) return recordOf(row);
    return recordOf(await this.#ends.place(row, caller));
  }

  /** PATCH: appends at `offset` (409 elsewhere, 413 past the length), taking the upload over from any older PATCH; the last byte places it. */
  async patch(caller: Caller, id: string, offset: number, body: Readable, declaredLength: number | null): Promise<TusRecord> {
    await this.#find(caller, id);
    this.#writing.get(id)?.();
    return this.nimbus.locks.run(`tus:${id}`, async () => {
      // Read again: the PATCH stopped above recorded what it had.
      let row = await this.#find(caller, id);
      if (offset !== row.offset) throw offsetMismatch(offset, row.offset);
      if (declaredLength !== null && declaredLength > row.length - offset) throw bodyTooLong();
      if (!row.done && offset < row.length) {
        const writer = writerToken();
        const expiresAt = Date.now() + this.options.expiryMs;
        const taken = await this.#rows.takeWriter(id, offset, writer, expiresAt);
        if (!taken) throw offsetMismatch(offset, (await this.#rows.get(id))?.offset ?? offset);
        await this.ledger.holdUntil(holdId(id), expiresAt);
        const stop = () => body.destroy();
        this.#writing.set(id, stop);
        try {
          await appendParts(this.#rows, this.storage.objects, taken, writer, body);
        } finally {
          if (this.#writing.get(id) === stop) this.#writing.delete(id);
        }
        row = (await this.#rows.get(id)) ?? row;
      }
      if (!row.done && row.offset === row.length) row = await this.#ends.place(row, caller);
      return recordOf(row);
    });
  }

  /** DELETE: the row goes (a PATCH still writing finds it gone), then the parts and the hold. */
  async terminate(caller: Caller, id: string): Promise<void> {
    const row = await this.#find(caller, id).catch((err: unknown) => {
      // An upload that just expired is gone either way: terminating it is done.
      if (err instanceof ApiError && err.code === 'upload_expired') return null;
      throw err;
    });
    if (!row) return;
    this.#writing.get(id)?.();
    if (!(await this.#ends.drop(id)))
      throw conflict('conflict', 'This upload is complete and being placed as a file; delete the file instead');
  }

  /** Drops the expired uploads, and the unfinished ones whose account is gone; how many. */
  async sweep(): Promise<number> {
    let dropped = 0;
    const accountGone = (username: string, createdAt: string) => this.nimbus.store.users.get(username)?.createdAt !== createdAt;
    const due = [
      ...(await this.#rows.expired()),
      ...(await this.#rows.unfinished()).filter((r) => accountGone(r.username, r.userCreatedAt)).map((r) => r.id),
    ];
    for (const id of new Set(due)) if (await this.#ends.drop(id)) dropped++;
    return dropped;
  }

  /** The caller's upload: 404 when there is none or it is another user's (or account's), 410 once expired. */
  async #find(caller: Caller, id: string): Promise<TusRow> {
    const row = await this.#rows.get(id);
    if (!row || (!caller.admin && caller.username !== row.username)) throw uploadNotFound();
    if (this.nimbus.store.users.get(row.username)?.createdAt !== row.target.userCreatedAt) {
      await this.#ends.drop(id);
      throw uploadNotFound();
    }
    if (row.expiresAt <= Date.now()) {
      await this.#ends.drop(id);
      throw uploadExpired();
    }
    return row;
  }
}
