/**
 * Where file bytes live in object mode (docs/cluster.md): an S3 bucket. Keys are
 * `files/<id>`, ids that never change; the store's `files` rows say which name each has.
 * What a request calls (put, get, head, copy) rejects with a 503 `storage_unavailable`
 * (asStoreFailure) when the bucket fails it: unreachable, or an error of its own.
 */
import type { Readable } from 'node:stream';
import { ApiError, bucketUnavailable } from '../../errors.js';

export interface StoredObject {
  size: number;
  /** As the store gave it, quotes included. */
  etag: string;
  lastModified: Date;
}

/** A multipart upload begun and neither completed nor aborted. */
export interface OpenUpload {
  key: string;
  uploadId: string;
  /** When it began, by the bucket's clock. */
  initiated: Date;
}

export interface PutOptions {
  contentType: string;
  /** Called with the running total as bytes go out; a throw aborts the upload (nothing is left behind) and rejects put with it. */
  onBytes?: (total: number) => void;
  /** The body's length when the client declared it: a very large one needs larger parts (S3 allows 10,000). */
  expectedBytes?: number;
}

export interface ObjectStore {
  /** Creates the bucket when it is missing (at start). */
  ensureBucket(): Promise<void>;
  /** Streams `body` to a new object (multipart for large bodies). */
  put(key: string, body: Readable, options: PutOptions): Promise<StoredObject>;
  /** Reads the whole object, or the bytes start..end (inclusive). Rejects with ObjectMissing when there is none. */
  get(key: string, range?: { start: number; end: number }): Promise<Readable>;
  /** The object's size and ETag, or null when there is none. */
  head(key: string): Promise<StoredObject | null>;
  /** Copies an object inside the bucket (files.copy). */
  copy(from: string, to: string): Promise<StoredObject>;
  /** Deletes objects (missing ones are not an error), in batches. */
  delete(keys: string[]): Promise<void>;
  /** Every object under a prefix, page by page (the sweeper). */
  list(prefix: string): AsyncIterable<{ key: string } & StoredObject>;
  /** Every multipart upload open under a prefix: puts in flight, and those a killed daemon left (the sweeper). */
  listOpenUploads(prefix: string): AsyncIterable<OpenUpload>;
  /** When the upload's newest part arrived, or null when it has none (the sweeper: is it still going?). */
  lastPartAt(upload: OpenUpload): Promise<Date | null>;
  /** Aborts an open multipart upload: its parts are deleted (one already gone is not an error). */
  abortOpenUpload(upload: OpenUpload): Promise<void>;
  /** Begins a multipart upload onto `key` whose parts come one request at a time (a resumable upload's); its id. */
  beginParts(key: string): Promise<string>;
  /** Uploads part `number` (1–10,000) of it; the part's ETag. Parts but the last must be at least 5 MiB. */
  putPart(upload: { key: string; uploadId: string }, number: number, bytes: Buffer): Promise<string>;
  /** Completes it from these parts, in ascending order of their numbers: the object at `key`. */
  completeParts(upload: { key: string; uploadId: string }, parts: { number: number; etag: string }[]): Promise<void>;
  /** Rejects when the bucket cannot be reached (health). */
  check(): Promise<void>;
  close(): void;
}

export class ObjectMissing extends Error {
  constructor(key: string) {
    super(`No object ${key}`);
    this.name = 'ObjectMissing';
  }
}

/**
 * What a request that needed the bucket answers when the bucket failed it (unreachable, an
 * error of its own): 503 storage_unavailable, the store's error kept as the cause. The
 * requests' own refusals (ApiErrors) pass as they are.
 */
export function asStoreFailure(err: unknown): Error {
  return err instanceof ApiError ? err : bucketUnavailable(err);
}
