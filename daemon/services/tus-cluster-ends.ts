/**
 * How a resumable upload with several daemons ends (docs/uploads.md, "Several daemons";
 * tus-cluster.ts): placed, its object completed in the bucket and named as files.upload names
 * one, claimed so that no two daemons place it at once; or dropped, by whichever daemon deletes
 * its row, which then lets go of its quota hold, its parts and its unnamed object.
 */
import { randomBytes } from 'node:crypto';
import type { NimbusContext } from '../context.js';
import { ApiError } from '../errors.js';
import { objectKey } from '../storage/cluster/ids.js';
import type { ObjectStorage } from '../storage/cluster/object-storage.js';
import { completeObject, placeCompleteObject } from '../storage/cluster/tus-place.js';
import type { TusRow, TusRows } from '../storage/cluster/tus-rows.js';
import type { Caller } from './keys.js';
import type { PgQuotaLedger } from './pg-quota.js';
import { placementHooks } from './tus-policy.js';
import { uploadExpired } from './tus-uploads.js';
import { prepareVersion, recordVersion } from './versions.js';

/** How long a daemon placing an upload keeps others (and PATCHes) off it: placing takes a commit, not minutes. */
const PLACING_HOLD_MS = 60_000;

/** The quota reservation of an upload. */
export const holdId = (id: string) => `tus:${id}`;
export const writerToken = () => randomBytes(12).toString('hex');

export class ClusterUploadEnds {
  constructor(
    private readonly nimbus: NimbusContext,
    private readonly rows: TusRows,
    private readonly ledger: PgQuotaLedger,
    private readonly storage: ObjectStorage,
  ) {}

  /**
   * Completes the object and places it as files.upload would, claiming the row so that no other
   * daemon does it at once. A refusal waiting will not change (404, 409) drops the upload; any
   * other failure lets the claim go, and the next HEAD or PATCH places it again.
   */
  async place(row: TusRow, caller: Caller): Promise<TusRow> {
    const placer = writerToken();
    const claimed = await this.rows.claimPlacing(row.id, placer, PLACING_HOLD_MS);
    // Another daemon is placing it now, or has: its HEAD says where it stands.
    if (!claimed) return (await this.rows.get(row.id)) ?? row;
    const { username } = claimed;
    const { folder, file, overwrite } = claimed.target;
    let dropped = false;
    try {
      // Placed by a daemon that died before recording it done: a file's row names the object.
      if (!(await this.#named(claimed.objectId))) {
        const object = await completeObject(this.storage.objects, claimed);
        if (!object) {
          dropped = await this.drop(row.id, placer);
          throw uploadExpired();
        }
        const kept = overwrite && this.nimbus.index.getFile(username, folder, file) ? await prepareVersion(this.nimbus, username) : null;
        const hooks = placementHooks(
          this.nimbus,
          { username, folder, file, overwrite, userCreatedAt: claimed.target.userCreatedAt },
          caller,
        );
        try {
          await placeCompleteObject(this.storage, claimed, object, hooks, kept ?? undefined);
          this.nimbus.metrics?.uploaded(claimed.length);
        } catch (err) {
          const final = err instanceof ApiError && (err.status === 404 || err.status === 409);
          if (final && !(await this.#named(claimed.objectId))) dropped = await this.drop(row.id, placer);
          throw err;
        }
        if (kept) await recordVersion(this.nimbus, kept, { username, folder, file }, undefined);
      }
      await this.rows.markDone(row.id);
      await this.#release(row.id);
      return { ...claimed, offset: claimed.length, done: true, parts: [] };
    } catch (err) {
      if (!dropped) await this.rows.unclaim(row.id, placer).catch(() => undefined);
      throw err;
    }
  }

  /** Lets the upload's quota hold go; a database lost just now leaves it to expire with the upload (logged), failing nothing. */
  async #release(id: string): Promise<void> {
    await this.ledger
      .releaseHeld(holdId(id))
      .catch((err: Error) => this.nimbus.log(`Nimbus: a resumable upload's quota hold stays until it expires: ${err.message}`));
  }

  /** Whether a file's row names the object (read from the database: another daemon's commit may not have reached this one). */
  async #named(objectId: string): Promise<boolean> {
    const { rowCount } = await this.rows.db.query('SELECT 1 FROM files WHERE key = $1', [objectId]);
    return rowCount === 1;
  }

  /**
   * Removes an upload: its row (unless another daemon is placing it; `placer` is this one's own
   * claim), its reservation, its multipart upload's parts, its object if complete and unnamed.
   * Whoever deletes the row cleans up. False when the row was not deleted here.
   */
  async drop(id: string, placer?: string): Promise<boolean> {
    const row = await this.rows.delete(id, placer);
    if (!row) return false;
    await this.#release(id);
    if (row.done) return true;
    const key = objectKey(row.objectId);
    const { objects } = this.storage;
    if (row.multipartId) await objects.abortOpenUpload({ key, uploadId: row.multipartId, initiated: new Date() }).catch(() => undefined);
    if (!(await this.#named(row.objectId))) await objects.delete([key]).catch(() => undefined);
    return true;
  }
}
