import { constants, createWriteStream } from 'node:fs';
import { copyFile, link, lstat, mkdir, open, readdir, rename, rm, unlink, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError, conflict, fromFsError, notFound } from '../errors.js';
import { syncDirectory } from '../store/durable-json-file.js';
import type { FileIndex } from './file-index.js';
import { resolveUserPath } from './paths.js';
import { rescanUserTree } from './sync.js';

/** An open regular file, ready to stream. */
export interface OpenedFile {
  handle: FileHandle;
  size: number;
  mtimeMs: number;
}

/**
 * The files on disk: `<storageDir>/<username>/[<folder>/]<file>`. Every operation goes
 * through `resolveUserPath`, never follows a symlink, and updates the index itself so the
 * watcher's echo of it changes nothing.
 */
export class Storage {
  constructor(
    readonly storageDir: string,
    readonly tmpDir: string,
    readonly index: FileIndex,
  ) {}

  /** Refuses to write while the storage directory is gone, so nothing is created on a bare mount point. */
  assertWritable(): void {
    if (this.index.state === 'unavailable') {
      throw new ApiError('storage_unavailable', 'The storage directory is not available (is its disk mounted?); try again once it is back');
    }
  }

  path(username: string, folder: string | null = null, file: string | null = null): string {
    return resolveUserPath(this.storageDir, username, folder, file);
  }

  async ensureUserDir(username: string): Promise<void> {
    this.assertWritable();
    await mkdir(this.path(username), { recursive: true });
    this.index.ensureUser(username);
  }

  /** Rebuilds one user's tree from the disk (keeping what changed while it was read). */
  async rescanUser(username: string): Promise<void> {
    await rescanUserTree(this, username, () => true);
  }

  async createFolder(username: string, folder: string): Promise<void> {
    this.assertWritable();
    const dir = this.path(username, folder);
    if (this.index.user(username)?.folders.has(folder) || (await lstatOrNull(dir))) {
      throw conflict('folder_exists', 'Folder already exists');
    }
    await mkdir(this.path(username), { recursive: true });
    await guard(mkdir(dir));
    const stat = await lstat(dir);
    this.index.addFolder(username, folder, stat.mtimeMs);
  }

  async deleteFolder(username: string, folder: string): Promise<void> {
    this.assertWritable();
    this.requireFolder(username, folder);
    await this.#assertRealDirectory(this.path(username, folder), 'folder_not_found', 'Folder not found');
    await rm(this.path(username, folder), { recursive: true, force: true });
    this.index.removeFolder(username, folder);
  }

  requireFolder(username: string, folder: string | null): void {
    if (folder !== null && !this.index.user(username)?.folders.has(folder)) {
      throw notFound('folder_not_found', 'Folder not found');
    }
  }

  requireFile(username: string, folder: string | null, file: string) {
    this.requireFolder(username, folder);
    const meta = this.index.getFile(username, folder, file);
    if (!meta) throw notFound('file_not_found', 'File not found');
    return meta;
  }

  async deleteFile(username: string, folder: string | null, file: string): Promise<void> {
    this.assertWritable();
    this.requireFile(username, folder, file);
    const target = this.path(username, folder, file);
    const stat = await lstatOrNull(target);
    if (stat && !stat.isFile()) throw notFound('file_not_found', 'File not found');
    await unlink(target).catch(ignoreMissing);
    this.index.removeFile(username, folder, file);
  }

  /** Renames without ever replacing another file (link + unlink fails atomically on EEXIST). */
  async renameFile(username: string, folder: string | null, file: string, newName: string): Promise<void> {
    this.assertWritable();
    const meta = this.requireFile(username, folder, file);
    if (file === newName) return;
    const from = this.path(username, folder, file);
    const to = this.path(username, folder, newName);
    if (this.index.getFile(username, folder, newName)) throw conflict('file_exists', 'A file with that name already exists');
    const stat = await lstatOrNull(from);
    if (!stat?.isFile()) throw notFound('file_not_found', 'File not found');
    if (file.toLowerCase() === newName.toLowerCase()) {
      // A case-only rename: on a case-insensitive disk link() would find "itself".
      if (await lstatOrNull(to)) {
        const sameInode = (await lstat(to)).ino === stat.ino;
        if (!sameInode) throw conflict('file_exists', 'A file with that name already exists');
      }
      await rename(from, to);
    } else {
      try {
        await link(from, to);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw conflict('file_exists', 'A file with that name already exists');
        throw fromFsError(err) ?? err;
      }
      await unlink(from);
    }
    this.index.removeFile(username, folder, file);
    this.index.setFile(username, folder, newName, meta);
  }

  async renameUser(from: string, to: string): Promise<void> {
    this.assertWritable();
    const source = this.path(from);
    const target = this.path(to);
    if (await lstatOrNull(target)) throw conflict('user_exists', 'A directory with that user name already exists in storage');
    if (await lstatOrNull(source)) await rename(source, target);
    else await mkdir(target, { recursive: true });
    this.index.renameUser(from, to);
  }

  async deleteUser(username: string): Promise<void> {
    await rm(this.path(username), { recursive: true, force: true });
    this.index.removeUser(username);
  }

  /**
   * Streams `source` into a temp file under tmpDir, calling `onBytes` with the running
   * total (it throws to stop the upload), then fsyncs it. Returns the temp path.
   */
  async receive(source: Readable, onBytes: (total: number) => void): Promise<{ tempPath: string; size: number }> {
    this.assertWritable();
    await mkdir(this.tmpDir, { recursive: true });
    const tempPath = path.join(this.tmpDir, `upload-${randomBytes(12).toString('hex')}`);
    let total = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        total += chunk.length;
        try {
          onBytes(total);
          done(null, chunk);
        } catch (err) {
          done(err as Error);
        }
      },
    });
    const out = createWriteStream(tempPath, { flags: 'wx', mode: 0o600, highWaterMark: 1 << 20 });
    // The request is piped, not pipelined: a refused upload must not destroy the request's
    // socket, or the client would never read the 507. Node drains the rest after the response.
    const finished = pipeline(counter, out);
    const onSourceGone = () => {
      if (!source.readableEnded) counter.destroy(new Error('The client went away before the upload finished'));
    };
    source.on('close', onSourceGone);
    source.on('error', onSourceGone);
    source.pipe(counter);
    // The client may have gone while we were getting ready: its events have fired already.
    if (source.destroyed) onSourceGone();
    try {
      await finished.finally(() => {
        source.unpipe(counter);
        source.off('close', onSourceGone);
        source.off('error', onSourceGone);
      });
      const handle = await open(tempPath, 'r');
      await handle.sync().finally(() => handle.close());
    } catch (err) {
      // The write stream may still be opening its file: wait until it is closed, or the
      // unlink could run first and the file appear after it.
      out.destroy();
      if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
      await unlink(tempPath).catch(() => undefined);
      if (err instanceof ApiError) throw err;
      throw fromFsError(err) ?? err;
    }
    return { tempPath, size: total };
  }

  /** Moves a received temp file into place; without `overwrite`, an existing file is a 409. */
  async placeUpload(tempPath: string, username: string, folder: string | null, file: string, overwrite: boolean): Promise<void> {
    const target = this.path(username, folder, file);
    try {
      this.assertWritable();
      await mkdir(path.dirname(target), { recursive: true });
      const existing = await lstatOrNull(target);
      if (existing && !existing.isFile()) throw conflict('file_exists', 'A folder or link with that name already exists');
      if (overwrite) await moveReplacing(tempPath, target);
      else await moveNoClobber(tempPath, target);
      await syncDirectory(path.dirname(target));
    } catch (err) {
      await unlink(tempPath).catch(() => undefined);
      if (err instanceof ApiError) throw err;
      throw fromFsError(err) ?? err;
    }
    const stat = await lstat(target);
    this.index.setFile(username, folder, file, { size: stat.size, mtimeMs: stat.mtimeMs });
  }

  /** Opens a file for reading, refusing symlinks and anything but a regular file. */
  async openFile(username: string, folder: string | null, file: string): Promise<OpenedFile> {
    this.requireFile(username, folder, file);
    if (folder !== null) await this.#assertRealDirectory(this.path(username, folder), 'file_not_found', 'File not found');
    let handle: FileHandle;
    try {
      handle = await open(this.path(username, folder, file), constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR') throw notFound('file_not_found', 'File not found');
      throw err;
    }
    const stat = await handle.stat();
    if (!stat.isFile()) {
      await handle.close();
      throw notFound('file_not_found', 'File not found');
    }
    return { handle, size: stat.size, mtimeMs: stat.mtimeMs };
  }

  async discardTemp(tempPath: string): Promise<void> {
    await unlink(tempPath).catch(ignoreMissing);
  }

  /** Removes upload temp files a crash left behind. */
  async cleanTemp(): Promise<number> {
    const names = await readdir(this.tmpDir).catch(() => [] as string[]);
    await Promise.all(names.map((n) => rm(path.join(this.tmpDir, n), { force: true, recursive: true })));
    return names.length;
  }

  async #assertRealDirectory(dir: string, code: 'folder_not_found' | 'file_not_found', message: string): Promise<void> {
    const stat = await lstatOrNull(dir);
    if (!stat?.isDirectory()) throw notFound(code, message);
  }
}

async function lstatOrNull(p: string) {
  try {
    return await lstat(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}

function ignoreMissing(err: NodeJS.ErrnoException): void {
  if (err.code !== 'ENOENT') throw err;
}

async function guard<T>(op: Promise<T>): Promise<T> {
  try {
    return await op;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw conflict('folder_exists', 'Folder already exists');
    throw fromFsError(err) ?? err;
  }
}

async function moveNoClobber(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
    await unlink(from);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw conflict('file_exists', 'A file with that name already exists (pass overwrite=true to replace it)');
    if (code !== 'EXDEV' && code !== 'EPERM') throw err;
    // Another file system (or one without hard links): copy exclusively, then drop the temp.
    await copyFile(from, to, constants.COPYFILE_EXCL).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'EEXIST') throw conflict('file_exists', 'A file with that name already exists (pass overwrite=true to replace it)');
      throw e;
    });
    await unlink(from);
  }
}

async function moveReplacing(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    const staged = `${to}.nimbus-${randomBytes(6).toString('hex')}`;
    await copyFile(from, staged);
    await rename(staged, to);
    await unlink(from);
  }
}
