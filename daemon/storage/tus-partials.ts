/**
 * Resumable (tus) uploads on disk (docs/uploads.md): each one is `<id>.part`, the bytes
 * received so far, and `<id>.json`, its record (where it goes, its length, the offset
 * acknowledged to the client, its expiry). Both live in `<data-dir>/tus`, outside the watched
 * storage folder and apart from `<data-dir>/tmp` (which every start empties), so a partial
 * upload survives a SIGKILL and a restart.
 *
 * The record is the truth about the offset: it is written (temp file, fsync, rename, directory
 * fsync) only after the partial file's bytes up to that offset were fsynced, so an answered
 * `Upload-Offset` is never lost; bytes past it (written when the daemon died mid-PATCH) are
 * cut off when the records are read back.
 */
import { constants } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, truncate, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fsyncDirectory } from '../store/fsync.js';
import { ignoreMissing } from './fs-helpers.js';

/** One resumable upload as kept on disk. */
export interface TusRecord {
  /** 32 hex digits (128 random bits): the last segment of its URL. */
  readonly id: string;
  readonly username: string;
  readonly folder: string | null;
  readonly file: string;
  readonly overwrite: boolean;
  /** Upload-Length: the whole file's size, fixed at creation. */
  readonly length: number;
  /** Upload-Metadata as the client sent it (a HEAD answers it back). */
  readonly metadata: string;
  /** The account it belongs to, by its creation time: an account made again under the name is another one. */
  readonly userCreatedAt: string;
  /** Bytes received, fsynced and acknowledged. */
  offset: number;
  /** When an unfinished upload is dropped (ms since the epoch): its last activity plus the expiry setting. */
  expiresAt: number;
  /**
   * The file is in place. The record stays (no bytes, no quota) until it expires, so a client
   * whose final answer was lost learns with a HEAD that it is done, rather than uploading again.
   */
  done: boolean;
}

const ID = /^[0-9a-f]{32}$/;
const PART_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** An id as the URL gives it: anything else names no upload (and never a path). */
export const isUploadId = (id: string): boolean => ID.test(id);

export class PartialUploads {
  constructor(readonly dir: string) {}

  /** The partial file of an upload (read by the placement, written by tus-append.ts). */
  partPath(id: string): string {
    return path.join(this.dir, `${id}.part`);
  }

  #recordPath(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  /**
   * The records kept, read back at start. Bytes past an unfinished upload's acknowledged
   * offset are cut off; a partial file without a record (a crash during creation or removal),
   * a record without its partial file, and unreadable records are removed (each logged).
   */
  async open(log: (line: string) => void): Promise<TusRecord[]> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const names = new Set(await readdir(this.dir));
    const records: TusRecord[] = [];
    for (const name of names) {
      const id = name.slice(0, name.indexOf('.'));
      if (name.endsWith('.json') && isUploadId(id)) {
        const record = await this.#read(id);
        if (record && (record.done || names.has(`${id}.part`))) {
          // A done upload's partial name is the placed file's second name (a crash came between): only the name goes.
          if (record.done) await unlink(this.partPath(id)).catch(ignoreMissing);
          else if (record.offset < record.length) await truncate(this.partPath(id), record.offset);
          records.push(record);
          continue;
        }
        log(`Nimbus: resumable upload ${id} had an unreadable record or lost its bytes; removed`);
        await this.remove(id);
      } else if (!(name.endsWith('.part') && names.has(`${id}.json`))) {
        await unlink(path.join(this.dir, name)).catch(ignoreMissing);
      }
    }
    return records;
  }

  /** Makes a new upload's empty partial file and its record, both durable before it is announced. */
  async create(record: TusRecord): Promise<void> {
    const handle = await open(this.partPath(record.id), PART_FLAGS, 0o600);
    await handle.close();
    try {
      await this.save(record);
    } catch (err) {
      await unlink(this.partPath(record.id)).catch(ignoreMissing);
      throw err;
    }
  }

  /** Writes the record in place of the previous one, atomically and durably. */
  async save(record: TusRecord): Promise<void> {
    const target = this.#recordPath(record.id);
    const temp = `${target}.tmp`;
    const handle = await open(temp, 'w', 0o600);
    try {
      await writeFile(handle, JSON.stringify(record));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
    await fsyncDirectory(this.dir);
  }

  /** Removes an upload's partial file, then its record (a crash between leaves a record whose bytes are gone: dropped at start). */
  async remove(id: string): Promise<void> {
    await unlink(this.partPath(id)).catch(ignoreMissing);
    await unlink(this.#recordPath(id)).catch(ignoreMissing);
    await fsyncDirectory(this.dir);
  }

  /** Removes a placed upload's partial name (the placed file keeps its bytes) and records it done. */
  async markDone(record: TusRecord): Promise<void> {
    record.done = true;
    record.offset = record.length;
    await this.save(record);
    await unlink(this.partPath(record.id)).catch(ignoreMissing);
  }

  async #read(id: string): Promise<TusRecord | null> {
    try {
      const parsed = JSON.parse(await readFile(this.#recordPath(id), 'utf8')) as TusRecord;
      const whole = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
      if (parsed.id !== id || !whole(parsed.length) || !whole(parsed.offset) || parsed.offset > parsed.length) return null;
      if (typeof parsed.username !== 'string' || typeof parsed.file !== 'string' || typeof parsed.expiresAt !== 'number') return null;
      return parsed;
    } catch {
      return null;
    }
  }
}
