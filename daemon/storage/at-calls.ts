/**
 * The *at() system calls Node lacks, on Linux, through koffi's FFI (its binary ships inside
 * the npm package): lstat (`statx`), `linkat`, `unlinkat` and `renameat2` of a name inside a
 * directory already open (safe-dir.ts), by its descriptor; and `readlinkat` of a descriptor's
 * name in /proc/self/fd, for the check of a held directory (held-dirs.ts).
 *
 * Why: the same calls on `/proc/self/fd/<fd>/<name>` paths make the kernel resolve /proc,
 * the process, the descriptor's magic link and then the name, every time. Measured on this
 * project's machine (bench/NOTES.md, issues 26 and 30): an lstat 3.5 µs through /proc
 * against 0.95 µs by descriptor, a link and an unlink 14 µs against 6.5 µs; under a WebDAV
 * MOVE load those /proc paths were ~35 % of the daemon's main thread. The meaning is the
 * same: the name is resolved in that directory, whatever path it has now, and the last
 * component is never followed (AT_SYMLINK_NOFOLLOW; link and unlink never follow it).
 *
 * `atCalls()` is null elsewhere (macOS, Windows), when koffi cannot load, or with
 * NIMBUS_AT_CALLS=off: callers then use the /proc paths as before.
 */
import { constants, openSync, Stats } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';

export interface AtCalls {
  /** lstat of `name` in the directory `dirFd`; null when nothing (or no directory on the way) is there. */
  lstat(dirFd: number, name: string): Stats | null;
  /** A new name `toName` in `toFd` for `fromName` in `fromFd` (the name itself: a link is linked, not followed). */
  link(fromFd: number, fromName: string, toFd: number, toName: string): void;
  /** Removes the name `name` (not a directory) from `dirFd`. */
  unlink(dirFd: number, name: string): void;
  /**
   * Renames `fromName` in `fromFd` to `toName` in `toFd`, failing with EEXIST rather than replace
   * anything there (renameat2's RENAME_NOREPLACE); EINVAL where the file system cannot promise that.
   */
  renameNoReplace(fromFd: number, fromName: string, toFd: number, toName: string): void;
  /** Renames `fromName` in `fromFd` to `toName` in `toFd`, replacing what is there (renameat2 with no flags). */
  rename(fromFd: number, fromName: string, toFd: number, toName: string): void;
  /**
   * Where the kernel says the open descriptor `fd` is now (held-dirs.ts): `readlinkat` of its
   * name in /proc/self/fd, opened once, into a buffer kept for it. Raw bytes, valid until the
   * next call; null when it cannot say.
   */
  pathOf(fd: number): Buffer | null;
}

/** A path relative to the working directory (an absolute one: as plain link(2) takes it). */
export const AT_FDCWD = -100;
const AT_SYMLINK_NOFOLLOW = 0x100;
const RENAME_NOREPLACE = 1;
/** STATX_BASIC_STATS | STATX_BTIME: what libuv asks for, so the fields agree with fs.lstat's. */
const STATX_MASK = 0xfff;
const STATX_SIZE = 256;
/** Linux's longest path, with its NUL: a longer link reads as cut short, so as no answer. */
const PATH_MAX = 4096;

/** What the daemon uses of koffi (also live/inotify-calls.ts). */
export type Koffi = {
  load(lib: string): { func(signature: string): (...args: unknown[]) => number };
  errno(): number;
};

let loaded: AtCalls | null | undefined;

/** The calls, loaded on first use; null where they cannot be had. */
export function atCalls(): AtCalls | null {
  if (loaded === undefined) loaded = load();
  return loaded;
}

function load(): AtCalls | null {
  if (process.platform !== 'linux' || process.env.NIMBUS_AT_CALLS === 'off') return null;
  let koffi: Koffi;
  try {
    koffi = createRequire(import.meta.url)('koffi') as Koffi;
  } catch {
    return null;
  }
  try {
    const libc = koffi.load('libc.so.6');
    const statx = libc.func('int statx(int, const char *, int, unsigned int, _Out_ uint8_t *)');
    const linkat = libc.func('int linkat(int, const char *, int, const char *, int)');
    const unlinkat = libc.func('int unlinkat(int, const char *, int)');
    const renameat2 = libc.func('int renameat2(int, const char *, int, const char *, unsigned int)');
    const readlinkat = libc.func('long readlinkat(int, const char *, _Out_ uint8_t *, size_t)');
    const buffer = Buffer.alloc(STATX_SIZE);
    // The process's descriptors as a directory: a name in it is read without resolving /proc
    // and the process again (2.2 µs against 3.8 µs for readlink of /proc/self/fd/<fd>).
    let procFds: number | null = null;
    const pathBuffer = Buffer.alloc(PATH_MAX);
    const fail = (syscall: string, name: string): never => {
      throw errnoError(koffi.errno(), syscall, name);
    };
    return {
      lstat(dirFd, name) {
        if (statx(dirFd, name, AT_SYMLINK_NOFOLLOW, STATX_MASK, buffer) === 0) return statsOf(buffer);
        const errno = koffi.errno();
        if (errno === ENOENT || errno === ENOTDIR) return null;
        throw errnoError(errno, 'lstat', name);
      },
      link(fromFd, fromName, toFd, toName) {
        if (linkat(fromFd, fromName, toFd, toName, 0) !== 0) fail('link', toName);
      },
      unlink(dirFd, name) {
        if (unlinkat(dirFd, name, 0) !== 0) fail('unlink', name);
      },
      renameNoReplace(fromFd, fromName, toFd, toName) {
        if (renameat2(fromFd, fromName, toFd, toName, RENAME_NOREPLACE) !== 0) fail('rename', toName);
      },
      rename(fromFd, fromName, toFd, toName) {
        if (renameat2(fromFd, fromName, toFd, toName, 0) !== 0) fail('rename', toName);
      },
      pathOf(fd) {
        if (procFds === null) {
          try {
            procFds = openSync('/proc/self/fd', constants.O_RDONLY | constants.O_DIRECTORY);
          } catch {
            return null; // no /proc here: the caller reads the link as before
          }
        }
        const length = readlinkat(procFds, String(fd), pathBuffer, PATH_MAX);
        return length < 0 || length >= PATH_MAX ? null : pathBuffer.subarray(0, length);
      },
    };
  } catch {
    return null;
  }
}

const ERRNO = os.constants.errno as Record<string, number>;
const ENOENT = ERRNO.ENOENT;
const ENOTDIR = ERRNO.ENOTDIR;
const CODES = new Map(Object.entries(ERRNO).map(([code, n]) => [n, code]));

/** An error like Node's own for a failed call: `code` (EEXIST…), negative `errno`, `syscall` (also live/inotify-calls.ts). */
export function errnoError(errno: number, syscall: string, name: string): NodeJS.ErrnoException {
  const code = CODES.get(errno) ?? `E${errno}`;
  return Object.assign(new Error(`${code}: ${syscall} '${name}'`), { code, errno: -errno, syscall });
}

/** st_dev as glibc's makedev() (and so libuv, and fs.Stats) builds it from statx's major and minor. */
function makedev(major: number, minor: number): number {
  return (major & 0xfff) * 0x100 + (minor & 0xff) + (minor & 0xffffff00) * 0x1000 + (major & 0xfffff000) * 0x100000000;
}

/** Milliseconds as Node computes them from a timespec (so mtimeMs compares equal to fs.lstat's). */
function msAt(buffer: Buffer, offset: number): number {
  return Number(buffer.readBigInt64LE(offset)) * 1e3 + buffer.readUInt32LE(offset + 8) / 1e6;
}

/** A real fs.Stats (its prototype, its fields) from a `struct statx`. */
function statsOf(b: Buffer): Stats {
  const stats = Object.create(Stats.prototype) as Stats;
  stats.dev = makedev(b.readUInt32LE(136), b.readUInt32LE(140));
  stats.mode = b.readUInt16LE(28);
  stats.nlink = b.readUInt32LE(16);
  stats.uid = b.readUInt32LE(20);
  stats.gid = b.readUInt32LE(24);
  stats.rdev = makedev(b.readUInt32LE(128), b.readUInt32LE(132));
  stats.blksize = b.readUInt32LE(4);
  stats.ino = Number(b.readBigUInt64LE(32));
  stats.size = Number(b.readBigUInt64LE(40));
  stats.blocks = Number(b.readBigUInt64LE(48));
  stats.atimeMs = msAt(b, 64);
  stats.mtimeMs = msAt(b, 112);
  stats.ctimeMs = msAt(b, 96);
  stats.birthtimeMs = msAt(b, 80);
  return stats;
}
