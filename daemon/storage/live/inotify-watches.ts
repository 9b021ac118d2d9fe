/**
 * Which directory each inotify watch stands for, and which subscriptions follow it
 * (live/inotify.ts): the kernel names a watch by a descriptor per directory (its inode), so
 * a subtree's subscription shares the root's, and a directory moved within the tree keeps its own.
 */
import type { WatchEvent } from './subscription.js';

/** One subscription: its root, where its batches go, its watches and the changes not yet handed on. */
export interface Subscription {
  root: string;
  onEvents: (err: Error | null, events: WatchEvent[]) => void;
  wds: Set<number>;
  events: WatchEvent[];
}

/** One watched directory: its path and the subscriptions that follow it. */
export interface Watched {
  dir: string;
  subs: Set<Subscription>;
}

export class WatchTable {
  readonly #watched = new Map<number, Watched>();

  get(wd: number): Watched | undefined {
    return this.#watched.get(wd);
  }

  /** The watch `wd` the kernel gave for `dir`, followed by `sub`; a descriptor given again (the same directory) takes the latest path. */
  add(wd: number, dir: string, sub: Subscription): void {
    const watched = this.#watched.get(wd);
    if (watched) {
      watched.dir = dir;
      watched.subs.add(sub);
    } else this.#watched.set(wd, { dir, subs: new Set([sub]) });
    sub.wds.add(wd);
  }

  /** `sub` no longer follows `wd`; true when nothing does, and the kernel's watch is to be removed. */
  remove(wd: number, sub: Subscription): boolean {
    sub.wds.delete(wd);
    const watched = this.#watched.get(wd);
    if (!watched) return false;
    watched.subs.delete(sub);
    if (watched.subs.size > 0) return false;
    this.#watched.delete(wd);
    return true;
  }

  /** The kernel removed the watch itself (IN_IGNORED: its directory is gone). */
  dropped(wd: number): void {
    const watched = this.#watched.get(wd);
    if (!watched) return;
    this.#watched.delete(wd);
    for (const sub of watched.subs) sub.wds.delete(wd);
  }

  /**
   * A directory moved away or deleted: its path no longer names its watch. As @parcel/watcher,
   * the watch itself is kept (a move within the tree finds it again, the same descriptor, when
   * its new path is watched), and so are those below it, still under their old paths: the
   * watcher maps those to where the directory went (live/dir-moves.ts).
   */
  forget(sub: Subscription, dir: string): void {
    for (const wd of [...sub.wds]) {
      const watched = this.#watched.get(wd);
      if (watched?.dir !== dir) continue;
      sub.wds.delete(wd);
      watched.subs.delete(sub);
      if (watched.subs.size === 0) this.#watched.delete(wd);
    }
  }
}
