import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { WatchEvent, WatchFactory, WatchSubscription } from './subscription.js';

/** Trees followed by a subscription of their own at once; past it, the main watch starts again (its walk watches them all). */
export const MAX_SUBTREE_WATCHES = 128;

/** A directory's ctime this close before a subscription's walk began may have been missed by it (timestamp granularity). */
const CTIME_SLACK_MS = 50;

/**
 * The names in a directory that just appeared, and whether one of them is a directory.
 * @parcel/watcher reports a new directory but not what was written into it before its watch
 * began (cp -r, or a file written right after mkdir: missed 7 times in 13), so the watcher lists it itself.
 */
export async function readArrival(dir: string): Promise<{ names: string[]; holdsDirectory: boolean }> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return { names: entries.map((e) => e.name), holdsDirectory: entries.some((e) => e.isDirectory()) };
}

type OnEvents = (err: Error | null, events: WatchEvent[]) => void;

/**
 * Subscriptions of their own for directory trees that arrived whole (a `mv` in from outside
 * the storage directory). @parcel/watcher's inotify backend watches a new directory, but not
 * the directories it holds (it walks only at subscribe), so a file written later two levels
 * down would wait for the reconcile. A subscription rooted at the arrival walks that subtree
 * only and shares the inotify instance: a directory watched twice keeps one watch, removed
 * with its last subscription. (A second subscription over the storage directory would not
 * do: @parcel/watcher shares one tree per root, so it would not walk again while the first lives.)
 */
export class SubtreeWatches {
  readonly #subscribe: WatchFactory;
  /** Root → when its walk began and its subscription (null if it failed). */
  readonly #roots = new Map<string, { since: number; subscription: Promise<WatchSubscription | null> }>();

  constructor(subscribe: WatchFactory) {
    this.#subscribe = subscribe;
  }

  /**
   * Watches the tree at `dir` (changed at `ctimeMs`) at every depth, unless a followed
   * tree's walk already found it there; resolves once it is. False past the cap: the caller
   * starts its own subscription again, whose walk watches every directory.
   */
  async follow(dir: string, ctimeMs: number, onEvents: OnEvents): Promise<boolean> {
    if (this.#covered(dir, ctimeMs)) return true;
    // A tree replaced where a followed one was: the library keeps one tree per root and would walk nothing again while the old subscription lives.
    const replaced = this.#roots.get(dir)?.subscription;
    this.#roots.delete(dir);
    await (await replaced)?.unsubscribe().catch(() => undefined);
    if (this.#roots.size >= MAX_SUBTREE_WATCHES) return false;
    const since = Date.now();
    const subscription = (async () => this.#subscribe(dir, onEvents))();
    this.#roots.set(dir, { since, subscription: subscription.catch(() => null) });
    await subscription;
    return true;
  }

  /** Ends every subtree's subscription. */
  async clear(): Promise<void> {
    const subscriptions = [...this.#roots.values()].map((r) => r.subscription);
    this.#roots.clear();
    await Promise.all(subscriptions.map(async (s) => (await s)?.unsubscribe().catch(() => undefined)));
  }

  #covered(dir: string, ctimeMs: number): boolean {
    for (const [root, { since }] of this.#roots) {
      const inside = dir === root || dir.startsWith(root + path.sep);
      if (inside && ctimeMs < since - CTIME_SLACK_MS) return true;
    }
    return false;
  }
}
