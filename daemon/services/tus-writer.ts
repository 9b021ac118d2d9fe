/**
 * The two steps of tus-uploads.ts that touch an upload's bytes, each under the upload's lock:
 * appending a PATCH's body (every acknowledged offset durable first: storage/tus-append.ts)
 * and placing the finished file as files.upload places one (storage/tus-placement.ts).
 */
import { unlink } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { NimbusContext } from '../context.js';
import { ApiError } from '../errors.js';
import { appendBody } from '../storage/tus-append.js';
import type { PartialUploads, TusRecord } from '../storage/tus-partials.js';
import { isPlaced, placeFinished, type FinishedUpload } from '../storage/tus-placement.js';
import type { Caller } from './keys.js';
import { placementHooks } from './tus-policy.js';
import { failpoint } from '../util/failpoints.js';
import type { QuotaHold } from './quota.js';
import { keptContent, prepareVersion, recordVersion } from './versions.js';

/** One upload as this daemon holds it. */
export interface LiveUpload {
  record: TusRecord;
  /** The bytes held against the quota; null once placed (counted as the file) or dropped. */
  hold: QuotaHold | null;
  /** The PATCH writing it now: `stop()` ends its body early (what arrived is kept). */
  writing: { stop: () => void } | null;
  /** Gone (terminated, expired, dropped): a request still waiting for it answers 404. */
  gone: boolean;
}

export class TusWriter {
  constructor(
    private readonly nimbus: NimbusContext,
    private readonly partials: PartialUploads,
    private readonly drop: (live: LiveUpload) => Promise<void>,
  ) {}

  /** Appends the body at the upload's offset; each checkpoint records the new offset once its bytes are on disk. */
  async append(live: LiveUpload, body: Readable): Promise<void> {
    const { record } = live;
    live.writing = { stop: () => body.destroy() };
    try {
      await appendBody(this.partials.partPath(record.id), record.offset, body, record.length - record.offset, async (offset) => {
        const before = record.offset;
        record.offset = offset;
        try {
          await this.partials.save(record);
        } catch (err) {
          record.offset = before;
          throw err;
        }
      });
    } finally {
      live.writing = null;
    }
  }

  /** At start: an upload whose target already is its partial file (placed, the daemon died before recording it) is marked done. */
  async recognisePlaced(record: TusRecord): Promise<void> {
    if (await isPlaced(this.nimbus.storage, this.#finished(record))) await this.partials.markDone(record);
  }

  #finished(record: TusRecord): FinishedUpload {
    return { ...record, partPath: this.partials.partPath(record.id), size: record.length };
  }

  /**
   * Places an upload whose bytes are all in: through files.upload's steps and checks, with the
   * caller of the request that completed it. Its quota hold is let go once the file is counted.
   * A refusal that will not pass by waiting (the folder or the user deleted meanwhile: 404; the
   * name taken or a case twin: 409) drops the upload, leaving nothing behind; any other failure
   * (a WebDAV lock, the disk) keeps it whole, and its next HEAD or PATCH places it again.
   */
  async finish(live: LiveUpload, caller: Caller, settled: (username: string) => Promise<void>): Promise<void> {
    const { record } = live;
    const upload = this.#finished(record);
    await settled(record.username);
    // The daemon may have died between placing it and recording that: the target is then the partial file itself.
    if (!(await isPlaced(this.nimbus.storage, upload))) {
      // Onto a name: what it replaces is kept as a version, as any upload's is (docs/versions.md).
      const { username, folder, file } = record;
      const kept =
        record.overwrite && this.nimbus.index.getFile(username, folder, file) ? await prepareVersion(this.nimbus, username) : null;
      try {
        await placeFinished(this.nimbus.storage, { ...upload, keep: kept ?? undefined }, placementHooks(this.nimbus, record, caller));
        this.nimbus.metrics?.uploaded(record.length);
      } catch (err) {
        if (kept) await unlink(kept.path).catch(() => undefined);
        if (err instanceof ApiError && (err.status === 404 || err.status === 409)) await this.drop(live);
        throw err;
      }
      if (kept) await recordVersion(this.nimbus, kept, { username, folder, file }, await keptContent(kept.path));
    }
    const hold = live.hold;
    live.hold = null;
    await hold?.release();
    failpoint('tus.placed');
    await this.partials.markDone(record);
  }
}
