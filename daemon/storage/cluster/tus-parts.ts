/**
 * One tus PATCH's bytes with several daemons (docs/uploads.md, "Several daemons"): appended to
 * the upload's S3 multipart upload in parts of the row's part size, each recorded in the row
 * once the bucket has it; what the body leaves past the last whole part (under a part) is
 * recorded as the row's tail at the body's end, so the offset answered is durable either way.
 * The next PATCH, on whichever daemon, starts its first part with that tail. The last part
 * (the file's end) may be of any size. Memory: one part and the chunk in hand per PATCH.
 */
import type { Readable } from 'node:stream';
import { conflict } from '../../errors.js';
import type { ObjectStore } from '../objects/object-store.js';
import { BodyChunks, bodyTooLong } from '../tus-append.js';
import { objectKey } from './ids.js';
import type { StoredPart, TusRows, WritableRow } from './tus-rows.js';

/** S3 allows 10,000 parts; the part size leaves room for a thousand taken by PATCHes another replaced. */
const MAX_PLANNED_PARTS = 9000;
const MIB = 1 << 20;
/** The smallest part: S3 refuses parts under 5 MiB but the last. */
export const MIN_PART_BYTES = 8 * MIB;

/** The part size for an upload of `length` bytes: 8 MiB, more when 9,000 such parts would not hold it (a whole number of MiB). */
export const partSizeFor = (length: number): number => Math.max(MIN_PART_BYTES, Math.ceil(length / MAX_PLANNED_PARTS / MIB) * MIB);

/** Thrown when another request took the upload over while this one wrote (a newer PATCH, a termination). */
export const takenOver = () =>
  conflict('upload_offset_mismatch', 'Another request took this upload over while this one was sending; ask for its offset (HEAD)');

/**
 * Appends `body` to the upload `row` (taken by `writer`), at most `room` bytes: 413 past that,
 * the row put back as it was. Answers the new offset. A body that ends early is no
 * failure: what arrived is recorded (as the tail). The row's writer changed meanwhile: 409.
 */
export async function appendParts(rows: TusRows, objects: ObjectStore, row: WritableRow, writer: string, body: Readable): Promise<number> {
  const sink = new PartSink(rows, objects, row, writer);
  const chunks = new BodyChunks(body);
  const room = row.length - row.offset;
  let received = 0;
  try {
    for (let chunk = await chunks.next(); chunk !== null; chunk = await chunks.next()) {
      received += chunk.length;
      if (received > room) {
        // Nothing of a refused body stays: the row goes back to where the PATCH found it (the
        // parts it put meanwhile are left out of the completion, so the bucket drops them).
        await sink.rollBack();
        throw bodyTooLong();
      }
      await sink.add(chunk);
    }
    await sink.end();
    return sink.recorded;
  } finally {
    chunks.release();
  }
}

class PartSink {
  readonly #key: string;
  #multipartId: string | null;
  readonly #parts: StoredPart[];
  /** Bytes in the parts recorded. */
  #inParts: number;
  /** Bytes received past the parts (the tail read back first), not yet in a part. */
  #pending: Buffer[];
  #pendingBytes: number;
  /** The offset the row records now. */
  recorded: number;

  constructor(
    private readonly rows: TusRows,
    private readonly objects: ObjectStore,
    private readonly row: WritableRow,
    private readonly writer: string,
  ) {
    this.#key = objectKey(row.objectId);
    this.#multipartId = row.multipartId;
    this.#parts = [...row.parts];
    this.#inParts = row.parts.reduce((sum, p) => sum + p.size, 0);
    this.#pending = row.tail.length > 0 ? [row.tail] : [];
    this.#pendingBytes = row.tail.length;
    this.recorded = row.offset;
  }

  async add(chunk: Buffer): Promise<void> {
    this.#pending.push(chunk);
    this.#pendingBytes += chunk.length;
    while (this.#pendingBytes >= this.row.partSize) {
      const all = Buffer.concat(this.#pending);
      await this.#putPart(all.subarray(0, this.row.partSize));
      const rest = all.subarray(this.row.partSize);
      this.#pending = rest.length > 0 ? [Buffer.from(rest)] : [];
      this.#pendingBytes = rest.length;
    }
  }

  /** Puts the row back as this PATCH found it (its writer still). */
  async rollBack(): Promise<void> {
    if (this.recorded !== this.row.offset) {
      if (!(await this.rows.record(this.row.id, this.writer, this.row.parts, this.row.tail, this.row.offset))) throw takenOver();
      this.recorded = this.row.offset;
    }
  }

  /** The body's end: the file's last part when every byte is in, else the tail. */
  async end(): Promise<void> {
    const pending = Buffer.concat(this.#pending);
    const offset = this.#inParts + pending.length;
    if (offset === this.row.length && pending.length > 0) return this.#putPart(pending);
    if (offset === this.recorded) return;
    await this.#record(pending, offset);
  }

  async #putPart(bytes: Buffer): Promise<void> {
    const n = await this.rows.nextPart(this.row.id, this.writer);
    if (n === null) throw takenOver();
    if (n > 10_000) throw new Error(`Upload ${this.row.id} ran out of part numbers`);
    const upload = { key: this.#key, uploadId: await this.#multipart() };
    const etag = await this.objects.putPart(upload, n, bytes);
    this.#parts.push({ n, etag, size: bytes.length });
    this.#inParts += bytes.length;
    await this.#record(Buffer.alloc(0), this.#inParts);
  }

  async #record(tail: Buffer, offset: number): Promise<void> {
    if (!(await this.rows.record(this.row.id, this.writer, this.#parts, tail, offset))) throw takenOver();
    this.recorded = offset;
  }

  /** The bucket's multipart upload: begun by the first part (only one writer's is kept). */
  async #multipart(): Promise<string> {
    if (this.#multipartId) return this.#multipartId;
    const begun = await this.objects.beginParts(this.#key);
    if (!(await this.rows.setMultipart(this.row.id, this.writer, begun))) {
      await this.objects.abortOpenUpload({ key: this.#key, uploadId: begun, initiated: new Date() }).catch(() => undefined);
      throw takenOver();
    }
    this.#multipartId = begun;
    return begun;
  }
}
