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
 *
 * On Linux the walk is synchronous (openat/close on the main thread, no thread pool): the
 * directories on a request's path are in the kernel's dentry cache, where one open costs a
 * few µs, while each async call cost ~20–40 µs of main-thread time in promise and thread-pool
 * hops. A walk to a folder was 6 such calls, and an upload walks twice (issue 30: 7.4 opens,
 * 7.4 closes per 4 KiB upload; 53–60 % of the main thread in file-system calls). So a walk's
 * directory is kept open across requests (held-dirs.ts) and each later `open()` of the same
 * path checks it again with one `readlink`, walking anew when it moved: a lease, ended by
 * `close()` as an owned directory is closed.
 */
import { closeSync, constants, existsSync, fstat, openSync, type Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { fsyncDirectory } from '../store/fsync.js';
import { heldKey, holdWalked, kernelPathOf, leaseHeld, releaseHeld, type HeldDir } from './held-dirs.js';
import { directoryIdentity, fsyncDirectoryShared } from './shared-fsync.js';

export const VIA_PROC = process.platform === 'linux' && existsSync('/proc/self/fd');
const DIR_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0);
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const fstatOf = promisify(fstat);

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
  /** The open directory's fd (Linux), -1 once closed (a path through it then fails, never resolves by name), null elsewhere. */
  #fd: number | null;
  readonly #path: string;
  readonly #chain: { path: string; dev: number; ino: number }[];
  /** Set when the fd is a lease on a held directory (held-dirs.ts): close() ends the lease instead of closing the fd. */
  readonly #held: HeldDir | null;

  private constructor(
    fd: number | null,
    dirPath: string,
    chain: { path: string; dev: number; ino: number }[],
    held: HeldDir | null = null,
  ) {
    this.#fd = fd;
    this.#path = dirPath;
    this.#chain = chain;
    this.#held = held;
  }

  /** Opens `root` (the operator's choice: followed), then each component inside it without following links. */
  static async open(root: string, components: string[]): Promise<OpenDir> {
    return VIA_PROC ? OpenDir.#openNow(root, components) : OpenDir.#checkPath(root, components);
  }

  /**
   * open(), synchronously (Linux only): a lease on the held directory when it is still where it
   * was walked to, else each component's openat from the one before, then that one's close.
   */
  static #openNow(root: string, components: string[]): OpenDir {
    const where = components.length === 0 ? root : path.join(root, ...components);
    const key = heldKey(root, components);
    const leased = leaseHeld(key);
    if (leased !== null) return new OpenDir(leased.fd, where, [], leased);
    let fd = openSync(root, DIR_FLAGS);
    const rootPath = kernelPathOf(fd);
    let reached = root;
    for (const name of components) {
      reached = path.join(reached, name);
      try {
        const next = openSync(`/proc/self/fd/${fd}/${name}`, DIR_FLAGS | NOFOLLOW);
        closeSync(fd);
        fd = next;
      } catch (err) {
        closeSync(fd);
        throw normalise(err, reached);
      }
    }
    const kept = rootPath === null ? null : holdWalked(key, fd, expectedPath(rootPath, components));
    return new OpenDir(fd, where, [], kept);
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
    if (this.#fd === null) {
      const stat = await lstat(where).catch((err: unknown) => {
        throw normalise(err, where);
      });
      if (!stat.isDirectory()) throw noDir('ENOTDIR', where);
      return new OpenDir(null, where, [...this.#chain, { path: where, dev: stat.dev, ino: stat.ino }]);
    }
    try {
      return new OpenDir(openSync(this.at(name), DIR_FLAGS | NOFOLLOW), where, []);
    } catch (err) {
      throw normalise(err, where);
    }
  }

  /** A path to `name` in this directory (or to the directory itself) that does not resolve the names above it again. */
  at(name?: string): string {
    const base = this.#fd !== null ? `/proc/self/fd/${this.#fd}` : this.#path;
    return name === undefined ? base : `${base}/${name}`;
  }

  /** The open directory's descriptor, for the *at() calls (at-calls.ts); null where it is not open (no /proc) or closed. */
  get fd(): number | null {
    return this.#fd !== null && this.#fd >= 0 ? this.#fd : null;
  }

  /** The directory's own stat (fstat where it is open). */
  stat(): Promise<Stats> {
    return this.#fd !== null ? fstatOf(this.#fd) : lstat(this.#path);
  }

  /** Makes the directory's entries durable (fsync of the directory where it is open, shared with writers waiting at once). */
  async fsync(): Promise<void> {
    if (this.#fd === null) return fsyncDirectory(this.#path);
    const held = this.#held;
    // A closed one (-1) still fails as it did, on its fstat.
    if (held === null || this.#fd < 0) return fsyncDirectoryShared(this.#fd);
    held.identity ??= directoryIdentity(this.#fd);
    return fsyncDirectoryShared(this.#fd, held.identity);
  }

  /** Without /proc: fails unless every component is still the directory checked at open (dev/ino). */
  async recheck(): Promise<void> {
    for (const c of this.#chain) {
      const stat = await lstat(c.path).catch(() => null);
      if (!stat?.isDirectory() || stat.dev !== c.dev || stat.ino !== c.ino) throw noDir('ENOTDIR', c.path);
    }
  }

  /** Closes the directory, or ends its lease when held (once; later calls do nothing). Synchronous: a directory's close writes nothing. */
  async close(): Promise<void> {
    const fd = this.#fd;
    if (fd === null || fd < 0) return;
    this.#fd = -1;
    if (this.#held !== null) releaseHeld(this.#held);
    else closeSync(fd);
  }
}

/** The kernel's path of `<root>/<components…>` given the root's: the walked directory must read as exactly this. */
function expectedPath(rootPath: Buffer, components: string[]): Buffer {
  const base = rootPath.at(-1) === 0x2f ? rootPath.subarray(0, -1) : rootPath;
  return Buffer.concat([base, ...components.map((name) => Buffer.from(`/${name}`))]);
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
