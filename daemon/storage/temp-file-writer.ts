/** The writable end of an upload's temp file (temp-upload.ts streams the body into it). */
import { close, closeSync, constants, fdatasync, fsync, open, writev, writevSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';

/** fdatasync of the temp file every this many bytes, while the body still streams (see TempFileWriter). */
const SYNC_EVERY_BYTES = 64 << 20;
/** Bytes buffered before the request is paused: they go to disk as one writev. */
const WRITE_BATCH_BYTES = 1 << 20;
/** A batch up to this size is written synchronously: a copy into the page cache, shorter than a trip through the thread pool. */
const SYNC_WRITE_BYTES = 256 << 10;
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;
const fsyncOf = promisify(fsync);
const fdatasyncOf = promisify(fdatasync);
const closeOf = promisify(close);
const openOf = promisify(open);
const writevOf = (fd: number, chunks: Buffer[]) =>
  new Promise<number>((resolve, reject) => writev(fd, chunks, (err, written) => (err ? reject(err) : resolve(written))));

/**
 * A new temp file (O_EXCL, 0600) written with one writev per batch of the request's chunks
 * (they come 64 KiB at a time; the Writable buffers up to WRITE_BATCH_BYTES while a write
 * is in flight), counted before each write, and fsynced before 'finish'.
 *
 * Writeback starts while the body still streams: every SYNC_EVERY_BYTES an fdatasync runs
 * in the thread pool beside the writes (one at a time; Node has no sync_file_range), so the
 * final fsync has at most the last stretch to flush. Measured with a 1 GiB upload by curl
 * over loopback (same machine, alternating, 8 rounds on a loaded host): the wait between
 * the body's last byte and the answer went from 1.1–1.9 s to 48–110 ms, the whole upload
 * 5–70 % faster in 7 rounds (equal in the 8th), at the same CPU (1.5–2.1 s per GiB). Every
 * 16 or 32 MiB was no better. One writev per batch instead of a write per chunk: 3,400 fewer calls per GiB.
 * The receiving CPU then goes (perf) to the kernel's socket reads and page-cache copies and
 * to a memmove in Node's HTTP parser (on_body copies each chunk out of the socket buffer).
 */
export class TempFileWriter extends Writable {
  total = 0;
  #fd = -1;
  #sinceSync = 0;
  #syncing: Promise<void> | null = null;
  #syncError: unknown = null;

  constructor(
    private readonly tempPath: string,
    private readonly onBytes: (total: number) => void,
  ) {
    super({ highWaterMark: WRITE_BATCH_BYTES });
  }

  /**
   * The writes of a small batch and the close are synchronous (safe-dir.ts says why: a trip
   * through the thread pool cost more than the call). The create is not: a new inode waits for
   * the journal while other uploads' fsyncs commit it, ~600 µs a create on the main thread
   * under 16 concurrent 4 KiB uploads (measured: 45 % of the main thread). The fsyncs wait for
   * the disk and stay in the pool, as do large batches. tmpDir is made again only when missing.
   */
  override _construct(callback: (err?: Error | null) => void): void {
    openOf(this.tempPath, TEMP_FLAGS, 0o600)
      .catch(async (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
        await mkdir(path.dirname(this.tempPath), { recursive: true });
        return openOf(this.tempPath, TEMP_FLAGS, 0o600);
      })
      .then(
        (fd) => {
          this.#fd = fd;
          callback();
        },
        (err: Error) => callback(err),
      );
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.#writeAll([chunk]).then(() => callback(), callback);
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (err?: Error | null) => void): void {
    this.#writeAll(chunks.map((c) => c.chunk)).then(() => callback(), callback);
  }

  override _final(callback: (err?: Error | null) => void): void {
    this.#settleSync()
      .then(() => fsyncOf(this.#fd))
      .then(() => callback(), callback);
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    const fd = this.#fd;
    this.#fd = -1;
    // A sync still running holds the descriptor: close it only after.
    const syncing = this.#syncing;
    if (fd < 0) return callback(err);
    if (!syncing) {
      try {
        closeSync(fd);
      } catch (closeErr) {
        return callback(err ?? (closeErr as Error));
      }
      return callback(err);
    }
    syncing
      .catch(() => undefined)
      .then(() => closeOf(fd))
      .then(
        () => callback(err),
        (closeErr: Error) => callback(err ?? closeErr),
      );
  }

  async #writeAll(chunks: Buffer[]): Promise<void> {
    if (this.#syncError) throw this.#syncError;
    let bytes = 0;
    for (const c of chunks) bytes += c.length;
    this.total += bytes;
    this.onBytes(this.total);
    const fd = this.#fd;
    let bytesWritten = bytes <= SYNC_WRITE_BYTES ? writevSync(fd, chunks) : await writevOf(fd, chunks);
    // A short write (rare on a regular file): the rest, from where it stopped.
    while (bytesWritten < bytes) {
      const rest = Buffer.concat(chunks).subarray(bytesWritten);
      bytesWritten += await writevOf(fd, [rest]);
    }
    this.#sinceSync += bytes;
    if (this.#sinceSync >= SYNC_EVERY_BYTES && this.#syncing === null) {
      this.#sinceSync = 0;
      this.#syncing = fdatasyncOf(fd).then(
        () => {
          this.#syncing = null;
        },
        (err: unknown) => {
          this.#syncError ??= err;
          this.#syncing = null;
        },
      );
    }
  }

  async #settleSync(): Promise<void> {
    await this.#syncing;
    if (this.#syncError) throw this.#syncError;
  }
}
