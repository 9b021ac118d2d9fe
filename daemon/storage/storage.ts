import { constants, createWriteStream } from 'node:fs';
import { copyFile, link, lstat, mkdir, open, readdir, rename, rm, unlink, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError, conflict, fileTaken, fromFsError, notFound } from '../errors.js';
import type { ErrorCode } from '../../shared/errors.js';
import { foldName, type FileIndex, type FileMeta } from './file-index.js';
import { resolveUserPath } from './paths.js';
import { isNoDir, lstatIn, mkdirIn, OpenDir, removeTree, withDir } from './safe-dir.js';
import { SharedExclusiveLock } from './safe-lock.js';
import { rescanUserTree } from './sync.js';

/** An open regular file, ready to stream. */
export interface OpenedFile {
  handle: FileHandle;
  size: number;
  mtimeMs: number;
}

/** An upload's claim on its user and folder: deleting or renaming either in the meantime voids it. */
export interface UploadTicket {
  readonly username: string;
  readonly folder: string | null;
  void: boolean;
}

const userKey = (username: string) => username;
const folderKey = (username: string, folder: string) => `${username}\0${folder}`;
const keysOf = (username: string, folder: string | null) =>
  folder === null ? [userKey(username)] : [userKey(username), folderKey(username, folder)];

/**
 * The files on disk: `<storageDir>/<username>/[<folder>/]<file>`. Every name goes through
 * `resolveUserPath`; every operation works inside directories opened without following
 * symlinks (safe-dir.ts), so a link at any level below the storage directory, there
 * before or swapped in mid-request, is never followed. The index is updated here so the
 * watcher's echo changes nothing. Work inside a user or folder holds it shared; deleting
 * or renaming it holds it exclusively (a delete waits for a file being placed, and
 * nothing is placed into what was deleted).
 */
export class Storage {
  readonly #live = new SharedExclusiveLock();
  readonly #tickets = new Set<UploadTicket>();

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

  /**
   * Makes a new user's directory, or adopts a real directory already there (an orphan).
   * Anything else of that name (a symlink, a file) is refused: adopting a link would
   * hand the user whatever it points to.
   */
  async ensureUserDir(username: string): Promise<void> {
    this.assertWritable();
    this.path(username);
    await withDir(this.storageDir, [], async (root) => {
      const stat = await lstatIn(root, username);
      if (!stat) await mkdirIn(root, username).catch(ignoreExists);
      const dir = await root.child(username).catch((err: unknown) => {
        if (isNoDir(err))
          throw conflict(
            'user_exists',
            'The storage directory holds a symlink or file of that name; move it away before creating the user',
          );
        throw fromFsError(err) ?? err;
      });
      await dir.close();
    });
    this.index.ensureUser(username);
  }

  /** Puts back the directory of a user whose directory went missing; a link or file there is left alone (and never followed). */
  async restoreUserDir(username: string): Promise<void> {
    this.path(username);
    await withDir(this.storageDir, [], async (root) => {
      if (!(await lstatIn(root, username))) await mkdirIn(root, username).catch(ignoreExists);
    });
  }

  /** Rebuilds one user's tree from the disk (keeping what changed while it was read). */
  async rescanUser(username: string): Promise<void> {
    await rescanUserTree(this, username, () => true);
  }

  async createFolder(username: string, folder: string): Promise<void> {
    this.assertWritable();
    this.path(username, folder);
    if (this.index.user(username)?.folders.has(folder)) throw conflict('folder_exists', 'Folder already exists');
    await this.#live.run([userKey(username)], false, () =>
      this.#within(username, null, { missing: 'user_not_found' }, async (dir) => {
        await withMkdirErrors(mkdirIn(dir, folder));
        const stat = await lstat(dir.at(folder));
        this.index.addFolder(username, folder, stat.mtimeMs);
      }),
    );
  }

  async deleteFolder(username: string, folder: string): Promise<void> {
    this.assertWritable();
    this.path(username, folder);
    this.requireFolder(username, folder);
    await this.#live.run([userKey(username)], false, () =>
      this.#live.run([folderKey(username, folder)], true, () =>
        this.#within(username, null, { missing: 'folder_not_found' }, async (dir) => {
          if (!(await lstatIn(dir, folder))?.isDirectory()) throw notFound('folder_not_found', 'Folder not found');
          this.#voidTickets(username, folder);
          await removeTree(dir, folder);
          this.index.removeFolder(username, folder);
        }),
      ),
    );
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
    this.path(username, folder, file);
    this.requireFile(username, folder, file);
    await this.#live.run(keysOf(username, folder), false, () =>
      this.#within(username, folder, { missing: 'file_not_found' }, async (dir) => {
        const stat = await lstatIn(dir, file);
        if (stat && !stat.isFile()) throw notFound('file_not_found', 'File not found');
        await unlink(dir.at(file)).catch(ignoreMissing);
        this.index.removeFile(username, folder, file);
      }),
    );
  }

  /** Renames without ever replacing another file (link + unlink fails atomically on EEXIST). */
  async renameFile(username: string, folder: string | null, file: string, newName: string): Promise<void> {
    this.assertWritable();
    this.path(username, folder, file);
    this.path(username, folder, newName);
    const meta = this.requireFile(username, folder, file);
    if (file === newName) return;
    if (this.index.getFile(username, folder, newName)) throw conflict('file_exists', 'A file with that name already exists');
    await this.#live.run(keysOf(username, folder), false, () =>
      this.#within(username, folder, { missing: 'file_not_found' }, async (dir) => {
        const stat = await lstatIn(dir, file);
        if (!stat?.isFile()) throw notFound('file_not_found', 'File not found');
        if (foldName(file) === foldName(newName)) {
          // A case-only rename: on a case-insensitive disk link() would find "itself".
          const there = await lstatIn(dir, newName);
          if (there && there.ino !== stat.ino) throw conflict('file_exists', 'A file with that name already exists');
          await rename(dir.at(file), dir.at(newName));
        } else {
          try {
            await link(dir.at(file), dir.at(newName));
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw conflict('file_exists', 'A file with that name already exists');
            throw fromFsError(err) ?? err;
          }
          await unlink(dir.at(file));
        }
        this.index.removeFile(username, folder, file);
        this.index.setFile(username, folder, newName, meta);
      }),
    );
  }

  async renameUser(from: string, to: string): Promise<void> {
    this.assertWritable();
    this.path(from);
    this.path(to);
    await this.#live.run([userKey(from), userKey(to)], true, () =>
      withDir(this.storageDir, [], async (root) => {
        const target = await lstatIn(root, to);
        const source = await lstatIn(root, from);
        // On a case-insensitive disk `Ana` finds `ana` itself: a case-only rename, not a clash.
        const sameEntry = target !== null && source !== null && target.ino === source.ino && target.dev === source.dev;
        if (target && !sameEntry) throw conflict('user_exists', 'A directory with that user name already exists in storage');
        this.#voidTickets(from);
        // rename() moves a link itself, never its target; a link where the user's directory
        // should be is left behind (it was never followed) and the user starts afresh.
        if (source?.isDirectory()) await rename(root.at(from), root.at(to));
        else await mkdirIn(root, to);
        this.index.renameUser(from, to);
      }),
    );
  }

  async deleteUser(username: string): Promise<void> {
    this.path(username);
    await this.#live.run([userKey(username)], true, async () => {
      this.#voidTickets(username);
      try {
        await withDir(this.storageDir, [], (root) => removeTree(root, username));
      } catch (err) {
        // The storage directory itself is gone (an unmounted disk): nothing to remove.
        if (!isNoDir(err)) throw err;
      }
      this.index.removeUser(username);
    });
  }

  /**
   * Checks, before a byte of the body is read, that an upload could land: the folder is a
   * real directory and the name is free (or a file, with `overwrite`).
   */
  async checkUploadTarget(username: string, folder: string | null, file: string, overwrite: boolean): Promise<void> {
    this.assertWritable();
    this.path(username, folder, file);
    this.requireFolder(username, folder);
    await this.#within(username, folder, { missing: folder === null ? 'user_not_found' : 'folder_not_found' }, async (dir) => {
      const existing = await lstatIn(dir, file);
      if (existing && !existing.isFile()) throw conflict('file_exists', 'A folder or link with that name already exists');
      if (existing && !overwrite) throw fileTaken();
    });
  }

  /** Claims the user and folder for an upload until `endUpload`. */
  beginUpload(username: string, folder: string | null): UploadTicket {
    const ticket: UploadTicket = { username, folder, void: false };
    this.#tickets.add(ticket);
    return ticket;
  }

  endUpload(ticket: UploadTicket): void {
    this.#tickets.delete(ticket);
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

  /**
   * Moves a received temp file into place; without `overwrite`, an existing file is a 409.
   * Under the user's (and folder's) shared lock: a voided ticket or `isCurrent()` false
   * (the user was deleted, perhaps made again) is a 404. A missing user directory or
   * folder is never made again here (a reconcile puts back a user's directory). The temp
   * file is removed on every failure.
   */
  async placeUpload(tempPath: string, ticket: UploadTicket, file: string, overwrite: boolean, isCurrent: () => boolean): Promise<FileMeta> {
    const { username, folder } = ticket;
    try {
      this.assertWritable();
      this.path(username, folder, file);
      return await this.#live.run(keysOf(username, folder), false, async () => {
        if (ticket.void || !isCurrent()) {
          throw folder === null
            ? notFound('user_not_found', 'The user was deleted during the upload')
            : notFound('folder_not_found', 'The folder was deleted during the upload');
        }
        return this.#within(username, folder, { missing: folder === null ? 'user_not_found' : 'folder_not_found' }, async (dir) => {
          const existing = await lstatIn(dir, file);
          if (existing && !existing.isFile()) throw conflict('file_exists', 'A folder or link with that name already exists');
          if (overwrite) await moveReplacing(tempPath, dir, file);
          else await moveNoClobber(tempPath, dir, file);
          await dir.sync();
          await dir.recheck();
          const stat = await lstat(dir.at(file));
          const meta = { size: stat.size, mtimeMs: stat.mtimeMs };
          this.index.setFile(username, folder, file, meta);
          return meta;
        });
      });
    } catch (err) {
      await unlink(tempPath).catch(() => undefined);
      if (err instanceof ApiError) throw err;
      throw fromFsError(err) ?? err;
    }
  }

  /** Opens a file for reading, refusing symlinks (at any level) and anything but a regular file. */
  async openFile(username: string, folder: string | null, file: string): Promise<OpenedFile> {
    this.path(username, folder, file);
    this.requireFile(username, folder, file);
    return this.#within(username, folder, { missing: 'file_not_found' }, async (dir) => {
      let handle: FileHandle;
      try {
        // O_NONBLOCK: a FIFO put where the file was would otherwise hold a thread-pool thread
        // until some writer came (four such requests stopped all file I/O); a regular file ignores it.
        handle = await open(dir.at(file), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR') throw notFound('file_not_found', 'File not found');
        throw err;
      }
      try {
        const stat = await handle.stat();
        if (!stat.isFile()) throw notFound('file_not_found', 'File not found');
        await dir.recheck().catch(() => {
          throw notFound('file_not_found', 'File not found');
        });
        return { handle, size: stat.size, mtimeMs: stat.mtimeMs };
      } catch (err) {
        await handle.close();
        throw err;
      }
    });
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

  /**
   * Runs `fn` inside the user's directory (or folder), opened without following links;
   * `missing` is the 404 for a directory that is not there or not a real one.
   */
  async #within<T>(username: string, folder: string | null, opts: { missing: ErrorCode }, fn: (dir: OpenDir) => Promise<T>): Promise<T> {
    let dir: OpenDir;
    try {
      dir = await OpenDir.open(this.storageDir, folder === null ? [username] : [username, folder]);
    } catch (err) {
      if (!isNoDir(err)) throw fromFsError(err) ?? err;
      throw notFound(
        opts.missing,
        opts.missing === 'folder_not_found'
          ? 'Folder not found'
          : opts.missing === 'user_not_found'
            ? 'The user’s directory is missing from storage, or is not a real directory (a rescan puts a missing one back)'
            : 'File not found',
      );
    }
    try {
      return await fn(dir);
    } finally {
      await dir.close();
    }
  }

  /** Voids the tickets of uploads into the user (every folder) or one folder. */
  #voidTickets(username: string, folder?: string): void {
    for (const ticket of this.#tickets) {
      if (ticket.username === username && (folder === undefined || ticket.folder === folder)) ticket.void = true;
    }
  }
}

function ignoreMissing(err: NodeJS.ErrnoException): void {
  if (err.code !== 'ENOENT') throw err;
}

function ignoreExists(err: NodeJS.ErrnoException): void {
  if (err.code !== 'EEXIST') throw err;
}

/** Maps a mkdir failure to the API's errors: an existing name is `folder_exists`. */
async function withMkdirErrors<T>(op: Promise<T>): Promise<T> {
  try {
    return await op;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw conflict('folder_exists', 'Folder already exists');
    throw fromFsError(err) ?? err;
  }
}

async function moveNoClobber(from: string, dir: OpenDir, name: string): Promise<void> {
  const to = dir.at(name);
  try {
    await link(from, to);
    await unlink(from);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw fileTaken();
    if (code !== 'EXDEV' && code !== 'EPERM') throw err;
    // Another file system (or one without hard links): copy exclusively (O_EXCL never follows a link), then drop the temp.
    await copyFile(from, to, constants.COPYFILE_EXCL).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'EEXIST') throw fileTaken();
      throw e;
    });
    await unlink(from);
  }
}

async function moveReplacing(from: string, dir: OpenDir, name: string): Promise<void> {
  try {
    await rename(from, dir.at(name));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    const staged = dir.at(`.nimbus-${randomBytes(6).toString('hex')}`);
    await copyFile(from, staged, constants.COPYFILE_EXCL);
    await rename(staged, dir.at(name));
    await unlink(from);
  }
}
