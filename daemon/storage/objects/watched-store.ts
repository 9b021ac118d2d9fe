/**
 * The bucket, with what its last calls said about whether it can be reached (issue 23): a
 * call the bucket failed (503 `storage_unavailable`, asStoreFailure) marks it unreachable; any
 * call it answered, or a successful check, marks it reachable again.
 *
 * Why: an upload reserves quota (with PostgreSQL, a transaction holding the user's lock and a
 * pooled connection) before its first byte reaches the bucket. During an outage, clients
 * retrying failing uploads hundreds of times a second were a storm of quota transactions
 * that could take every pooled connection, and listings, renames and health with them. An
 * upload asks `assertReachable()` first: while the bucket is known unreachable it is refused
 * before anything is reserved, unless a check (one HeadBucket at a time, shared by every
 * upload arriving meanwhile) finds the bucket back, so the first upload after an outage
 * lands at once.
 */
import type { Readable } from 'node:stream';
import { ApiError, bucketUnavailable } from '../../errors.js';
import { ObjectMissing, type ObjectStore, type OpenUpload, type PutOptions, type StoredObject } from './object-store.js';

export class WatchedObjectStore implements ObjectStore {
  readonly #inner: ObjectStore;
  /** The last failure the bucket answered a call with; null while it answers. */
  #failure: unknown = null;
  #checking: Promise<void> | null = null;
  /** Told of each call the bucket failed (the metrics' counter, daemon/util/metrics.ts). */
  onFailure: (() => void) | null = null;

  constructor(inner: ObjectStore) {
    this.#inner = inner;
  }

  /** Whether the bucket's last answer was a failure. */
  get knownUnreachable(): boolean {
    return this.#failure !== null;
  }

  /** Resolves at once while the bucket answers; when it is known unreachable, checks it and rejects 503 unless it is back. */
  async assertReachable(): Promise<void> {
    if (this.#failure === null) return;
    await (this.#checking ??= this.check().finally(() => (this.#checking = null))).catch((err: unknown) => {
      throw bucketUnavailable(err);
    });
  }

  ensureBucket(): Promise<void> {
    return this.#inner.ensureBucket();
  }

  put(key: string, body: Readable, options: PutOptions): Promise<StoredObject> {
    return this.#watch(this.#inner.put(key, body, options));
  }

  get(key: string, range?: { start: number; end: number }): Promise<Readable> {
    return this.#watch(this.#inner.get(key, range));
  }

  head(key: string): Promise<StoredObject | null> {
    return this.#watch(this.#inner.head(key));
  }

  copy(from: string, to: string): Promise<StoredObject> {
    return this.#watch(this.#inner.copy(from, to));
  }

  delete(keys: string[]): Promise<void> {
    return this.#inner.delete(keys);
  }

  list(prefix: string): AsyncIterable<{ key: string } & StoredObject> {
    return this.#inner.list(prefix);
  }

  listOpenUploads(prefix: string): AsyncIterable<OpenUpload> {
    return this.#inner.listOpenUploads(prefix);
  }

  lastPartAt(upload: OpenUpload): Promise<Date | null> {
    return this.#inner.lastPartAt(upload);
  }

  abortOpenUpload(upload: OpenUpload): Promise<void> {
    return this.#inner.abortOpenUpload(upload);
  }

  /** HeadBucket (the health check's probe too): any failure means unreachable. */
  beginParts(key: string): Promise<string> {
    return this.#watch(this.#inner.beginParts(key));
  }

  putPart(upload: { key: string; uploadId: string }, number: number, bytes: Buffer): Promise<string> {
    return this.#watch(this.#inner.putPart(upload, number, bytes));
  }

  completeParts(upload: { key: string; uploadId: string }, parts: { number: number; etag: string }[]): Promise<void> {
    return this.#watch(this.#inner.completeParts(upload, parts));
  }

  async check(): Promise<void> {
    try {
      await this.#inner.check();
      this.#failure = null;
    } catch (err) {
      this.#failure = err;
      this.onFailure?.();
      throw err;
    }
  }

  close(): void {
    this.#inner.close();
  }

  /** Records what the bucket answered: the store's failures (503 storage_unavailable) mark it unreachable, everything else reachable. */
  async #watch<T>(call: Promise<T>): Promise<T> {
    try {
      const result = await call;
      this.#failure = null;
      return result;
    } catch (err) {
      // A missing object is the bucket's answer; the request's own refusals (a body too long,
      // the client gone) say nothing of the bucket.
      if (err instanceof ApiError && err.code === 'storage_unavailable') {
        this.#failure = err;
        this.onFailure?.();
      } else if (err instanceof ObjectMissing) this.#failure = null;
      throw err;
    }
  }
}
