/**
 * Directories opened without following symlinks, and paths relative to them.
 *
 * A path such as `<storage>/<user>/<folder>/<file>` is resolved again by every system
 * call, so checking it first (lstat) and using it next leaves a window in which any
 * program can swap `<user>` or `<folder>` for a symlink to somewhere else. Node has no
 * openat()/unlinkat(); on Linux `/proc/self/fd/<fd>/<name>` gives the same thing: the
 * kernel resolves it inside the directory already open as `<fd>`, whatever its path
 * names now. Each component is opened with O_DIRECTORY|O_NOFOLLOW relative to the one
 * before, so a link at any level is refused, not followed.
 *
 * Elsewhere (macOS, Windows: no /proc) every component is lstat'ed, and `recheck()`
 * compares their identity again after the work: correct in the steady state, with a
 * small window in a race. Linux is the hardened path.
 */
import { constants, existsSync, type Stats } from 'node:fs';
import { lstat, open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { fsyncDirectory } from '../store/fsync.js';

export const VIA_PROC = process.platform === 'linux' && existsSync('/proc/self/fd');
const DIR_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0);
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** An error with the errno code that means "no real directory there": ENOENT (nothing) or ENOTDIR (a link, a file). */
function noDir(code: 'ENOENT' | 'ENOTDIR', where: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: not a directory (or a symlink): ${where}`), { code });
}

/** ELOOP is what O_NOFOLLOW answers for a symlink: to callers it is "not a directory". */
function normalise(err: unknown, where: string): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP' || code === 'ENOTDIR') return noDir('ENOTDIR', where);
  return err;
}

/** One open directory (Linux: its fd), or a checked path elsewhere. */
export class OpenDir {
  readonly #handle: FileHandle | null;
  readonly #path: string;
  readonly #chain: { path: string; dev: number; ino: number }[];

  private constructor(handle: FileHandle | null, dirPath: string, chain: { path: string; dev: number; ino: number }[]) {
    this.#handle = handle;
    this.#path = dirPath;
    this.#chain = chain;
  }

  /** Opens `root` (the operator's choice: followed), then each component inside it without following links. */
  static async open(root: string, components: string[]): Promise<OpenDir> {
    if (!VIA_PROC) return OpenDir.#checkPath(root, components);
    let dir = new OpenDir(await open(root, DIR_FLAGS), root, []);
    for (const name of components) {
      try {
        const next = await dir.child(name);
        await dir.close();
        dir = next;
      } catch (err) {
        await dir.close();
        throw err;
      }
    }
    return dir;
  }

  static async #checkPath(root: string, components: string[]): Promise<OpenDir> {
    const chain: { path: string; dev: number; ino: number }[] = [];
    let p = root;
    for (const name of components) {
      p = path.join(p, name);
      const stat = await lstat(p).catch((err: unknown) => {
        throw normalise(err, p);
      });
      if (!stat.isDirectory()) throw noDir('ENOTDIR', p);
      chain.push({ path: p, dev: stat.dev, ino: stat.ino });
    }
    return new OpenDir(null, p, chain);
  }

  /** Opens the directory `name` inside this one, refusing a symlink (ENOTDIR) or nothing (ENOENT). */
  async child(name: string): Promise<OpenDir> {
    const where = path.join(this.#path, name);
    if (!this.#handle) {
      const stat = await lstat(where).catch((err: unknown) => {
        throw normalise(err, where);
      });
      if (!stat.isDirectory()) throw noDir('ENOTDIR', where);
      return new OpenDir(null, where, [...this.#chain, { path: where, dev: stat.dev, ino: stat.ino }]);
    }
    try {
      return new OpenDir(await open(this.at(name), DIR_FLAGS | NOFOLLOW), where, []);
    } catch (err) {
      throw normalise(err, where);
    }
  }

  /** A path to `name` in this directory (or to the directory itself) that does not resolve the names above it again. */
  at(name?: string): string {
    const base = this.#handle ? `/proc/self/fd/${this.#handle.fd}` : this.#path;
    return name === undefined ? base : `${base}/${name}`;
  }

  /** The directory's own stat (fstat where it is open). */
  stat(): Promise<Stats> {
    return this.#handle ? this.#handle.stat() : lstat(this.#path);
  }

  /** Makes the directory's entries durable (fsync of the directory where it is open). */
  async fsync(): Promise<void> {
    if (this.#handle) await this.#handle.sync();
    else await fsyncDirectory(this.#path);
  }

  /** Without /proc: fails unless every component is still the directory checked at open (dev/ino). */
  async recheck(): Promise<void> {
    for (const c of this.#chain) {
      const stat = await lstat(c.path).catch(() => null);
      if (!stat?.isDirectory() || stat.dev !== c.dev || stat.ino !== c.ino) throw noDir('ENOTDIR', c.path);
    }
  }

  async close(): Promise<void> {
    await this.#handle?.close().catch(() => undefined);
  }
}

/** Runs `fn` with the directory `<root>/<components…>` open, and closes it however `fn` ends. */
export async function withDir<T>(root: string, components: string[], fn: (dir: OpenDir) => Promise<T>): Promise<T> {
  const dir = await OpenDir.open(root, components);
  try {
    return await fn(dir);
  } finally {
    await dir.close();
  }
}
