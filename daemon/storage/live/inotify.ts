/**
 * The storage folder's watch on Linux: inotify, read by the daemon's own thread (koffi's FFI,
 * as at-calls.ts), in place of @parcel/watcher there.
 *
 * Why our own: @parcel/watcher reads inotify on a thread of its own and hands each batch to a
 * debounce thread, which calls into JavaScript: two wake-ups between threads for every batch
 * of events, and under a WebDAV MOVE load its threads took ~50 µs of CPU a move, a fifth of
 * the daemon's (bench/NOTES.md, issues 26 and 30). Here the inotify descriptor is read on the
 * main thread, without blocking: every READ_EVERY_MS while changes come, every IDLE_READ_MS
 * after a second without any (a wake-up costs ~180 µs of CPU on a virtual machine: 0.4 % of a
 * core at 50 ms, 0.1 % at 250 ms). One read(2) takes whatever queued since, and nothing wakes
 * between changes. The watcher settles a change for 200 ms anyway, so the wait adds at most
 * a quarter of a second to the first change after a quiet spell.
 *
 * What it reports is what @parcel/watcher's inotify backend reports (subscription.ts's
 * WatchFactory): a create, update or delete per path; a new directory watched in turn (not
 * the directories it holds: the watcher lists an arrival itself, live/subtree-watches.ts); a
 * directory moved or deleted unwatched; the root itself gone as a delete of the root. A full
 * kernel queue is reported as an error, so that the watcher reconciles.
 */
import { closeSync } from 'node:fs';
import { walkSliced } from '../sliced-dir.js';
import {
  EACCES,
  eachEvent,
  ELOOP,
  ENOENT,
  ENOTDIR,
  IN_ATTRIB,
  IN_CLOEXEC,
  IN_CREATE,
  IN_DELETE,
  IN_DELETE_SELF,
  IN_IGNORED,
  IN_ISDIR,
  IN_MODIFY,
  IN_MOVE_SELF,
  IN_MOVED_FROM,
  IN_MOVED_TO,
  IN_NONBLOCK,
  IN_Q_OVERFLOW,
  loadLibc,
  MASK,
  type Libc,
} from './inotify-calls.js';
import { errnoError } from '../at-calls.js';
import { WatchTable, type Subscription, type Watched } from './inotify-watches.js';
import type { WatchFactory, WatchSubscription } from './subscription.js';

/** How often the queue is read while changes come… */
export const READ_EVERY_MS = 50;
/** …and once QUIET_READS reads in a row found nothing. */
export const IDLE_READ_MS = 250;
const QUIET_READS = 20;
const BUFFER_BYTES = 64 * 1024;

/** The code of the error a subscription receives when the kernel dropped changes. */
export const QUEUE_OVERFLOW = 'EOVERFLOW';

type OnEvents = Subscription['onEvents'];

/** One inotify descriptor for every subscription of the process (the kernel allows 128 per user by default). */
class Inotify {
  readonly #libc: Libc;
  readonly #fd: number;
  readonly #watched = new WatchTable();
  readonly #subs = new Set<Subscription>();
  readonly #buffer = Buffer.alloc(BUFFER_BYTES);
  #timer: NodeJS.Timeout | null = null;
  /** Reads in a row that found nothing. */
  #quiet = 0;

  constructor(libc: Libc) {
    this.#libc = libc;
    this.#fd = libc.init(IN_NONBLOCK | IN_CLOEXEC);
    if (this.#fd < 0) throw errnoError(libc.errno(), 'inotify_init1', '');
    this.#schedule();
  }

  get idle(): boolean {
    return this.#subs.size === 0;
  }

  async subscribe(root: string, onEvents: OnEvents): Promise<WatchSubscription> {
    const sub: Subscription = { root, onEvents, wds: new Set(), events: [] };
    this.#subs.add(sub);
    try {
      await this.#watchTree(sub, root);
    } catch (err) {
      this.#unsubscribe(sub);
      throw err;
    }
    return { unsubscribe: async () => this.#unsubscribe(sub) };
  }

  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    closeSync(this.#fd);
  }

  /** Watches `dir` and every directory below it, each before it is read (what appears in it then is reported); throws on a limit. */
  #watchTree(sub: Subscription, dir: string): Promise<void> {
    return walkSliced(dir, (next) => this.#subs.has(sub) && this.#watch(sub, next));
  }

  /** One directory's watch for `sub`: false when it is not there (or not a directory); throws on a limit. */
  #watch(sub: Subscription, dir: string): boolean {
    if (!this.#subs.has(sub)) return false;
    const wd = this.#libc.add(this.#fd, dir, MASK);
    if (wd < 0) {
      const errno = this.#libc.errno();
      if (errno === ENOENT || errno === ENOTDIR || errno === ELOOP || errno === EACCES) return false;
      throw errnoError(errno, 'inotify_add_watch', dir);
    }
    this.#watched.add(wd, dir, sub);
    return true;
  }

  #unwatch(wd: number, sub: Subscription): void {
    if (this.#watched.remove(wd, sub)) this.#libc.rm(this.#fd, wd);
  }

  #unsubscribe(sub: Subscription): void {
    if (!this.#subs.delete(sub)) return;
    for (const wd of [...sub.wds]) this.#unwatch(wd, sub);
    if (this.idle) closeShared();
  }

  /** The next read, sooner while changes come; none once closed. Not keeping the process alive (the daemon's server does). */
  #schedule(): void {
    const ms = this.#quiet >= QUIET_READS ? IDLE_READ_MS : READ_EVERY_MS;
    this.#timer = setTimeout(() => {
      this.#quiet = this.#readAll() ? 0 : this.#quiet + 1;
      if (this.#timer) this.#schedule();
    }, ms).unref();
  }

  /** Reads and hands on whatever queued; whether anything had. */
  #readAll(): boolean {
    let any = false;
    for (;;) {
      const n = this.#libc.read(this.#fd, this.#buffer, BUFFER_BYTES);
      if (n <= 0) break;
      any = true;
      eachEvent(this.#buffer, n, (wd, mask, name) => this.#onRecord(wd, mask, name));
      if (n < BUFFER_BYTES - 4096) break;
    }
    for (const sub of this.#subs) {
      if (sub.events.length === 0) continue;
      const events = sub.events;
      sub.events = [];
      sub.onEvents(null, events);
    }
    return any;
  }

  /** One record: a full queue, a watch the kernel dropped (its directory gone), or a change. */
  #onRecord(wd: number, mask: number, name: string): void {
    if (mask & IN_Q_OVERFLOW) {
      // Changes were dropped: the watcher starts afresh on this error (a reconcile, then a new walk).
      for (const sub of this.#subs) sub.onEvents(Object.assign(new Error('inotify queue overflow'), { code: QUEUE_OVERFLOW }), []);
      return;
    }
    const watched = this.#watched.get(wd);
    if (!watched) return;
    if (mask & IN_IGNORED) return this.#watched.dropped(wd);
    this.#handle(watched, mask, name);
  }

  #handle(watched: Watched, mask: number, name: string): void {
    const p = name === '' ? watched.dir : `${watched.dir}/${name}`;
    for (const sub of [...watched.subs]) {
      if (mask & (IN_CREATE | IN_MOVED_TO)) {
        sub.events.push({ type: 'create', path: p });
        if (mask & IN_ISDIR) this.#watchNew(sub, p);
      } else if (mask & (IN_MODIFY | IN_ATTRIB)) {
        sub.events.push({ type: 'update', path: p });
      } else if (mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
        // Only the root's own removal is news: anything else was said by its parent.
        if (p === sub.root) sub.events.push({ type: 'delete', path: p });
      } else if (mask & (IN_DELETE | IN_MOVED_FROM)) {
        sub.events.push({ type: 'delete', path: p });
        if (mask & IN_ISDIR) this.#watched.forget(sub, p);
      }
    }
  }

  /** A directory that appeared: watched (only it, as @parcel/watcher does); a limit reached is the subscription's error. */
  #watchNew(sub: Subscription, dir: string): void {
    try {
      this.#watch(sub, dir);
    } catch (err) {
      sub.onEvents(err as Error, []);
    }
  }
}

let libc: Libc | null | undefined;
let shared: Inotify | null = null;

function closeShared(): void {
  shared?.close();
  shared = null;
}

/** The inotify watch, or null where it cannot be had (the caller uses @parcel/watcher). */
export function inotifyWatch(): WatchFactory | null {
  if (libc === undefined) libc = loadLibc();
  const calls = libc;
  if (!calls) return null;
  return async (root, onEvents) => {
    shared ??= new Inotify(calls);
    return shared.subscribe(root, onEvents);
  };
}
