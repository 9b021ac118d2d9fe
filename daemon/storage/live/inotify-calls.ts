/**
 * inotify's calls and constants on Linux, through koffi's FFI (its binary ships inside the npm
 * package, as for at-calls.ts), and the reading of its event records. Used by live/inotify.ts.
 */
import { createRequire } from 'node:module';
import os from 'node:os';
import type { Koffi } from '../at-calls.js';

export const IN_MODIFY = 0x2;
export const IN_ATTRIB = 0x4;
export const IN_MOVED_FROM = 0x40;
export const IN_MOVED_TO = 0x80;
export const IN_CREATE = 0x100;
export const IN_DELETE = 0x200;
export const IN_DELETE_SELF = 0x400;
export const IN_MOVE_SELF = 0x800;
export const IN_Q_OVERFLOW = 0x4000;
export const IN_IGNORED = 0x8000;
export const IN_ONLYDIR = 0x1000000;
export const IN_DONT_FOLLOW = 0x2000000;
export const IN_EXCL_UNLINK = 0x4000000;
export const IN_ISDIR = 0x40000000;
export const IN_NONBLOCK = 0o4000;
export const IN_CLOEXEC = 0o2000000;
/** What @parcel/watcher asks for: every change of a name or of a file's content, never following a link. */
export const MASK =
  IN_ATTRIB |
  IN_CREATE |
  IN_DELETE |
  IN_DELETE_SELF |
  IN_MODIFY |
  IN_MOVE_SELF |
  IN_MOVED_FROM |
  IN_MOVED_TO |
  IN_DONT_FOLLOW |
  IN_ONLYDIR |
  IN_EXCL_UNLINK;

const ERRNO = os.constants.errno as Record<string, number>;
export const { ENOENT, ENOTDIR, ELOOP, EACCES } = ERRNO;
const EVENT_HEADER = 16;

export interface Libc {
  init(flags: number): number;
  add(fd: number, path: string, mask: number): number;
  rm(fd: number, wd: number): number;
  read(fd: number, buffer: Buffer, bytes: number): number;
  errno(): number;
}

/** The calls, or null where they cannot be had (not Linux, koffi missing, NIMBUS_WATCHER=parcel). */
export function loadLibc(): Libc | null {
  if (process.platform !== 'linux' || process.env.NIMBUS_WATCHER === 'parcel') return null;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as Koffi;
    const libc = koffi.load('libc.so.6');
    const init = libc.func('int inotify_init1(int)');
    const add = libc.func('int inotify_add_watch(int, const char *, uint32_t)');
    const rm = libc.func('int inotify_rm_watch(int, int)');
    const read = libc.func('long read(int, _Out_ uint8_t *, size_t)');
    return {
      init: (f) => init(f),
      add: (fd, p, m) => add(fd, p, m),
      rm: (fd, wd) => rm(fd, wd),
      read: (fd, b, n) => read(fd, b, n),
      errno: () => koffi.errno(),
    };
  } catch {
    return null;
  }
}

/** Calls `each` with every `struct inotify_event` in the first `n` bytes of `b`: its watch, its mask and its name ('' for the directory itself). */
export function eachEvent(b: Buffer, n: number, each: (wd: number, mask: number, name: string) => void): void {
  for (let at = 0; at + EVENT_HEADER <= n;) {
    const wd = b.readInt32LE(at);
    const mask = b.readUInt32LE(at + 4);
    const len = b.readUInt32LE(at + 12);
    const start = at + EVENT_HEADER;
    at = start + len;
    // The name is NUL-padded to its record's length.
    const nul = len === 0 ? start : b.indexOf(0, start);
    each(wd, mask, b.toString('utf8', start, nul < 0 || nul > at ? at : nul));
  }
}
