/**
 * One tus PATCH's bytes appended to an upload's partial file (tus-partials.ts), made durable
 * before they are acknowledged: the bytes are fdatasynced, then the new offset is recorded,
 * at the end of the body and every CHECKPOINT_BYTES while it streams.
 */
import { bodyBytesReceived } from '../util/body-memory.js';
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { ApiError } from '../errors.js';

/**
 * While one long PATCH streams (tus-js-client sends a whole file as one PATCH unless told a
 * chunk size), its bytes are fsynced and the offset recorded every this many: a daemon killed
 * mid-body loses at most this much of it, not the whole body. At 64 MiB the fsyncs overlap
 * the disk's own writeback (temp-file-writer.ts measured the same period for plain uploads).
 */
const CHECKPOINT_BYTES = 64 << 20;
/** Chunks of the body (64 KiB each from Node) are gathered up to this size and written with one writev. */
const BATCH_BYTES = 1 << 20;

/** Thrown (413) by a body longer than the upload has room for, once the partial file is back as it was. */
export const bodyTooLong = () => new ApiError('payload_too_large', 'The body goes past Upload-Length');

/**
 * Appends `source` to the partial file at `start`, at most `room` bytes, and answers the new
 * offset. `checkpoint(offset)` runs once the bytes up to `offset` are fdatasynced, and must
 * record it before it resolves. A body that ends early (the client went away, the connection
 * was cut, the PATCH was stopped by a newer one) is no failure: what arrived is kept, as tus
 * asks. A body longer than `room` changes nothing: the file is cut back to `start` and 413.
 * A disk failure is thrown, the acknowledged offset left as it was.
 */
export async function appendBody(
  partPath: string,
  start: number,
  source: Readable,
  room: number,
  checkpoint: (offset: number) => Promise<void>,
): Promise<number> {
  // O_NOFOLLOW: the data directory is the daemon's own, but a link there is still not followed.
  const handle = await open(partPath, constants.O_WRONLY | constants.O_NOFOLLOW);
  const out = new Appender(handle, start, checkpoint);
  const chunks = new BodyChunks(source);
  try {
    for (let chunk = await chunks.next(); chunk !== null; chunk = await chunks.next()) {
      if (out.received + chunk.length - start > room) {
        // The rest of the body is left unread: the error handler reads it away after the 413.
        await out.rollBack(start);
        throw bodyTooLong();
      }
      await out.add(chunk);
    }
    // The body ended, or ended early (the client went away, a newer PATCH stopped it): what came is kept.
    await out.sync();
    return out.received;
  } catch (err) {
    // A failed write or sync: cut back to what was acknowledged, so the file holds nothing unrecorded.
    if (!(err instanceof ApiError)) await out.rollBack(out.recorded).catch(() => undefined);
    throw err;
  } finally {
    chunks.release();
    await handle.close();
  }
}

/**
 * The chunks of a body, pulled one at a time (paused mode), null at its end or once it broke
 * off. Unlike an async iterator, letting go of it neither destroys the request (a refusal's
 * answer must still reach the client) nor keeps it paused for whoever reads it after.
 */
export class BodyChunks {
  #wake: (() => void) | null = null;
  #over = false;
  readonly #onChange = () => {
    this.#wake?.();
    this.#wake = null;
  };
  readonly #onOver = () => {
    this.#over = true;
    this.#onChange();
  };

  constructor(private readonly source: Readable) {
    source.on('readable', this.#onChange);
    source.on('end', this.#onOver);
    source.on('close', this.#onOver);
    // Listened to so that a client going away ends the body here rather than being thrown.
    source.on('error', this.#onOver);
  }

  async next(): Promise<Buffer | null> {
    for (;;) {
      const chunk = this.source.read() as Buffer | null;
      if (chunk !== null) {
        bodyBytesReceived(chunk.length);
        return chunk;
      }
      if (this.#over || this.source.destroyed || this.source.readableEnded) return null;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  release(): void {
    this.source.off('readable', this.#onChange);
    this.source.off('end', this.#onOver);
    this.source.off('close', this.#onOver);
    this.source.off('error', this.#onOver);
  }
}

/** The writing side: batches, positional writes, and the checkpoints. */
class Appender {
  #batch: Buffer[] = [];
  #batched = 0;
  #written: number;
  recorded: number;

  constructor(
    private readonly handle: FileHandle,
    start: number,
    private readonly checkpoint: (offset: number) => Promise<void>,
  ) {
    this.#written = start;
    this.recorded = start;
  }

  /** Bytes received: written, or gathered to be written. */
  get received(): number {
    return this.#written + this.#batched;
  }

  async add(chunk: Buffer): Promise<void> {
    this.#batch.push(chunk);
    this.#batched += chunk.length;
    if (this.#batched >= BATCH_BYTES) await this.#flush();
    if (this.#written - this.recorded >= CHECKPOINT_BYTES) await this.sync();
  }

  /** Writes what is gathered, fdatasyncs, records the offset. */
  async sync(): Promise<void> {
    await this.#flush();
    if (this.#written === this.recorded) return;
    await this.handle.datasync();
    await this.checkpoint(this.#written);
    this.recorded = this.#written;
  }

  /** Cuts the file back to `offset` (durably) and records it, if a checkpoint had moved past it. */
  async rollBack(offset: number): Promise<void> {
    this.#batch = [];
    this.#batched = 0;
    await this.handle.truncate(offset);
    await this.handle.datasync();
    if (this.recorded !== offset) await this.checkpoint(offset);
    this.recorded = offset;
    this.#written = offset;
  }

  async #flush(): Promise<void> {
    let chunks = this.#batch;
    let left = this.#batched;
    this.#batch = [];
    this.#batched = 0;
    while (left > 0) {
      const { bytesWritten } = await this.handle.writev(chunks, this.#written);
      this.#written += bytesWritten;
      left -= bytesWritten;
      // A short write (rare on a regular file): the rest, from where it stopped.
      if (left > 0) chunks = [Buffer.concat(chunks).subarray(bytesWritten)];
    }
  }
}
