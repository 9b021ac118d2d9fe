/** Reading a user's file from disk: opened once without following links, then streamed or read from that handle. */
import { closeSync, constants, createReadStream, fstatSync, lstatSync, open, read, type BigIntStats, type ReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { notFound } from '../errors.js';
import type { FileIdentity, OpenedFile } from './file-storage.js';
import type { FileMeta } from './index-tree.js';
import { within, type StorageParts } from './storage-parts.js';

/** Opens a file for reading, refusing symlinks (at any level) and anything but a regular file. */
export async function openFile(s: StorageParts, username: string, folder: string | null, file: string): Promise<OpenedFile> {
  s.path(username, folder, file);
  s.requireFile(username, folder, file);
  return within(s.storageDir, username, folder, 'file_not_found', async (dir) => {
    let fd: number;
    try {
      // O_NONBLOCK: a FIFO put where the file was would otherwise hold a thread-pool thread
      // until some writer came (four such requests stopped all file I/O); a regular file ignores it.
      // Through the pool: a file's inode may not be in memory yet (a disk read).
      fd = await openOf(dir.at(file), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR') throw notFound('file_not_found', 'File not found');
      throw err;
    }
    try {
      // Synchronous: the open inode is in memory, and a trip through the pool costs more (safe-dir.ts).
      const stat = fstatSync(fd, { bigint: true });
      if (!stat.isFile()) throw notFound('file_not_found', 'File not found');
      await dir.recheck().catch(() => {
        throw notFound('file_not_found', 'File not found');
      });
      return new DiskOpenedFile(fd, stat);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  });
}

/**
 * Opens a file the daemon keeps in its own data directory (a file's version, docs/versions.md)
 * for reading: never through a link, and only a regular file; 404 `not_found` otherwise.
 */
export async function openKeptFile(filePath: string, missing: () => Error): Promise<OpenedFile> {
  let fd: number;
  try {
    fd = await openOf(filePath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR') throw missing();
    throw err;
  }
  const stat = fstatSync(fd, { bigint: true });
  if (!stat.isFile()) {
    closeSync(fd);
    throw missing();
  }
  return new DiskOpenedFile(fd, stat);
}

const openOf = promisify(open);
/** Reads up to `length` bytes at `position` into `buffer`: the count read. */
const readAt = (fd: number, buffer: Buffer, length: number, position: number) =>
  new Promise<number>((resolve, reject) => read(fd, buffer, 0, length, position, (err, n) => (err ? reject(err) : resolve(n))));

/** How old a file's last change must be before its identity is sure to move with the next one. */
const SETTLED_MS = 1000;

/** What names a disk file's bytes (OpenedFile.identity), from its stat: a download's and a WebDAV listing's alike. */
export function diskIdentity(stat: BigIntStats): { identity: string; identityIsStrong: boolean } {
  return {
    // Inode, size, and modification and change times to the nanosecond: a file replaced (a
    // new inode) or written in place (new times) is another, even within the same millisecond.
    identity: `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`,
    // But the kernel stamps those times from a clock that moves by ticks (1–10 ms on Linux; a
    // second or two on some file systems): a write in place within the tick of the last one
    // keeps every field, so the identity of a file changed within that window may yet name
    // other bytes. It is strong once the change time (set by the kernel at every write, which
    // no program can set back, unlike the modification time) is a second old; Apache makes its
    // ETag weak within a second of the modification time for the same reason.
    identityIsStrong: Date.now() - Number(stat.ctimeMs) >= SETTLED_MS,
  };
}

/** 1 MiB reads (256 KiB ran ~30 % slower in the bench). */
const CHUNK_BYTES = 1 << 20;

/** An open regular file (its descriptor): its size and times as they were at open, read from it. */
class DiskOpenedFile implements OpenedFile {
  readonly size: number;
  readonly mtimeMs: number;
  readonly identity: string;
  readonly identityIsStrong: boolean;
  #stream: ReadStream | null = null;
  /** The descriptor while this object owns it (-1 once closed or handed to a stream). */
  #fd: number;

  constructor(fd: number, stat: BigIntStats) {
    this.#fd = fd;
    this.size = Number(stat.size);
    // The float milliseconds a plain stat answers (Last-Modified, a zip entry's time).
    this.mtimeMs = Number(stat.mtimeMs) + Number(stat.mtimeNs % 1_000_000n) / 1e6;
    const { identity, identityIsStrong } = diskIdentity(stat);
    this.identity = identity;
    this.identityIsStrong = identityIsStrong;
  }

  async stream(range?: { start: number; end: number }): Promise<Readable> {
    if (this.#stream || this.#fd < 0) throw new Error('The file was streamed or closed already');
    if (this.size === 0) {
      this.#closeNow();
      return Readable.from([]);
    }
    // Up to the size seen at open. Without a range, no `start`: plain reads from the fresh
    // descriptor's offset 0, so the offset (/proc fdinfo) shows how far it got. The stream owns
    // the descriptor: it closes it at its end or when destroyed.
    const options = range
      ? { start: range.start, end: range.end, autoClose: true, highWaterMark: CHUNK_BYTES }
      : { end: this.size - 1, autoClose: true, highWaterMark: CHUNK_BYTES };
    this.#stream = createReadStream('', { ...options, fd: this.#fd });
    this.#fd = -1;
    return this.#stream;
  }

  async read(): Promise<Buffer> {
    // One read: the bytes sniffed are the bytes decoded (the file may change meanwhile; this copy cannot).
    // Unsafe: only the bytes read are handed out (the subarray below).
    const bytes = Buffer.allocUnsafe(this.size);
    const bytesRead = await readAt(this.#fd, bytes, this.size, 0);
    return bytes.subarray(0, bytesRead);
  }

  async close(): Promise<void> {
    const stream = this.#stream;
    if (stream) {
      if (!stream.closed) {
        const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
        stream.destroy();
        await closed;
      }
      return;
    }
    this.#closeNow();
  }

  /** Closes the descriptor now: a regular file's close writes nothing. */
  #closeNow(): void {
    const fd = this.#fd;
    this.#fd = -1;
    if (fd >= 0) closeSync(fd);
  }
}

/** How long a listing may answer a file's identity from `knownIdentities` without another lstat. */
const KNOWN_IDENTITY_MS = 60_000;

/**
 * Identities learned by listings, by the index's meta object of the file: every change the index
 * learns of (the daemon's own writes, the watcher's) puts a new object there, so an entry is
 * never read for other bytes the index knows of. Only strong identities are kept (a weak one
 * turns strong with time, and must then be seen again), and for a minute at most: a file
 * replaced by another program with the very same size and modification time (cp -p of other
 * bytes) keeps its meta object, and so its old identity, that long.
 */
const knownIdentities = new WeakMap<FileMeta, FileIdentity & { until: number }>();

/**
 * The identities of the files of a folder as a download would name them (`diskIdentity`), by
 * name, from one walk to the folder (never through a link) and an lstat of each name the index
 * lists that `knownIdentities` does not answer: what a WebDAV listing's getetag needs without
 * opening every file. A name that is not a regular file now is left out.
 */
export async function fileIdentities(s: StorageParts, username: string, folder: string | null): Promise<Map<string, FileIdentity>> {
  s.path(username, folder);
  const found = new Map<string, FileIdentity>();
  const files = s.index.files(username, folder);
  if (!files || files.size === 0) return found;
  const now = Date.now();
  const unknown: [string, FileMeta][] = [];
  for (const [name, meta] of files) {
    const known = knownIdentities.get(meta);
    if (known && known.until > now) found.set(name, known);
    else unknown.push([name, meta]);
  }
  if (unknown.length === 0) return found;
  return within(s.storageDir, username, folder, 'folder_not_found', async (dir) => {
    for (const [name, meta] of unknown) {
      let stat: BigIntStats;
      try {
        // Synchronous: thousands of lstat calls through the thread pool cost more in hops than the calls.
        stat = lstatSync(dir.at(name), { bigint: true });
      } catch {
        continue; // gone meanwhile: left out
      }
      if (!stat.isFile()) continue;
      const identity = { mtimeMs: Number(stat.mtimeMs) + Number(stat.mtimeNs % 1_000_000n) / 1e6, ...diskIdentity(stat) };
      found.set(name, identity);
      if (identity.identityIsStrong && Number(stat.size) === meta.size)
        knownIdentities.set(meta, { ...identity, until: now + KNOWN_IDENTITY_MS });
    }
    return found;
  });
}
