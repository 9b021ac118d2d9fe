import path from 'node:path';
import type { Stats } from 'node:fs';
import { applyChange, confirmRemovals, indexHolds, knownNames, lookFresh, touchedLocation, type Removal } from './live/apply-changes.js';
import { DirMoves, resyncMoved, type DirMove, type FolderMoved } from './live/dir-moves.js';
import { every, FALLBACK_POLL_MS, fallbackReconcileMs, limitMessage, logOncePerCode, waitForStorage } from './live/fallback.js';
import { MarkerGuard } from './live/marker-guard.js';
import { DirPoller } from './live/poller.js';
import { Settler } from './live/settle.js';
import { QUEUE_OVERFLOW } from './live/inotify.js';
import { nativeWatch } from './live/native-watch.js';
import { readArrival, SubtreeWatches } from './live/subtree-watches.js';
import {
  limitCode,
  locate,
  type DirAt,
  type Location,
  type WatchEvent,
  type WatchFactory,
  type WatchSubscription,
} from './live/subscription.js';
import type { LiveTarget, WatcherMode } from './live/target.js';
import { markUnavailable, reconcileAll } from './reconcile.js';

export type { LiveTarget, WatcherMode, WatchEvent, WatchFactory, WatchSubscription };

type Phase = 'idle' | 'watching' | 'fallback' | 'unavailable';

/**
 * Keeps the file index equal to the storage directory while the daemon runs: one
 * subscription over the storage directory (our inotify reader on Linux, @parcel/watcher
 * elsewhere: live/native-watch.ts), started after the first scan.
 * Each changed name settles (settle.ts), then goes into the index (apply-changes.ts), which
 * ignores the echo of the daemon's own operations; removals wait for the storage-marker
 * check (marker-guard.ts), and a folder's for a directory with its identity to appear: one
 * moved within a user's tree is relinked as one move (dir-moves.ts). When the OS watch limit is hit it polls directory mtimes and
 * reconciles more often (poller.ts, fallback.ts); when the storage directory goes away it
 * keeps the index as it is and waits for it.
 */
export class LiveStorage {
  readonly #t: LiveTarget;
  readonly #subscribe: WatchFactory;
  readonly #settler: Settler<Location>;
  readonly #removals: MarkerGuard<Removal>;
  readonly #poller: DirPoller;
  readonly #gone: DirMoves;
  readonly #subtrees: SubtreeWatches;
  readonly #folderMoved: FolderMoved;
  readonly #logError: (err: unknown) => void;
  #phase: Phase = 'idle';
  /** Identifies the current subscription: events of an older one are dropped. */
  #session: object | null = null;
  #subscription: Promise<WatchSubscription | null> | null = null;
  #stopTimer: (() => void) | null = null;
  #reconciling: Promise<boolean> | null = null;
  #closed = false;

  constructor(t: LiveTarget, watch: WatchFactory = nativeWatch, folderMoved: FolderMoved = () => undefined) {
    this.#t = t;
    this.#subscribe = watch;
    this.#folderMoved = folderMoved;
    this.#gone = new DirMoves(t.config.storageDir, t.index);
    this.#subtrees = new SubtreeWatches(watch);
    this.#logError = logOncePerCode(t.config.storageDir, t.log);
    const root = t.config.storageDir;
    this.#settler = new Settler<Location>({
      look: (batch) => lookFresh(root, t.index, batch, touchedLocation),
      settled: (p, at, stat) => this.#onSettled(p, at, stat),
      known: (at, stat) => indexHolds(t.index, at, stat),
    });
    this.#removals = new MarkerGuard<Removal>({
      storageDir: root,
      unavailable: (reason) => this.#onUnavailable(reason),
      onError: (err) => this.#onError(err),
      confirm: (batch, current) =>
        confirmRemovals(t, batch, current, (later) => this.#gone.later(() => later.forEach((r) => this.#removals.queue(r)))),
    });
    this.#poller = new DirPoller(t, { unavailable: (reason) => this.#onUnavailable(reason), onError: (err) => this.#onError(err) });
  }

  /** Reconciles the index with the disk (one at a time), then (re)starts watching if needed. */
  reconcile(): Promise<boolean> {
    return (this.#reconciling ??= this.#reconcileOnce().finally(() => {
      this.#reconciling = null;
    }));
  }

  async close(): Promise<void> {
    this.#closed = true;
    const unsubscribed = this.#stop();
    await this.#reconciling?.catch(() => undefined);
    await this.#poller.idle();
    await unsubscribed;
  }

  async #reconcileOnce(): Promise<boolean> {
    const since = Date.now();
    const ok = await reconcileAll(this.#t);
    if (this.#closed) return ok;
    if (!ok) this.#enterUnavailable();
    else if (this.#phase === 'idle' || this.#phase === 'unavailable') void this.#startWatching(since);
    return ok;
  }

  async #startWatching(since: number): Promise<void> {
    void this.#stop();
    this.#phase = 'watching';
    this.#t.watcherMode = 'starting';
    const session = (this.#session = {});
    const subscribing = (async () => this.#subscribe(this.#t.config.storageDir, this.#eventsFor(session)))();
    this.#subscription = subscribing.catch(() => null);
    try {
      await subscribing;
    } catch (err) {
      if (this.#session !== session) return;
      this.#onError(err);
      // No watch at all, for another reason than a limit (said above): poll instead.
      this.#fallBack(null);
      return;
    }
    if (this.#session !== session) return;
    // Whatever changed between the scan and the subscription's start is found by one pass over
    // directory mtimes. Not polled meanwhile: at 120,000 folders the subscription takes seconds
    // and polling them all every 200 ms cost ~1 GiB of heap never given back (bench/NOTES.md).
    await this.#poller.catchUp(since);
    if (this.#session !== session) return;
    this.#t.watcherMode = 'inotify';
  }

  #onEvents(events: WatchEvent[]): void {
    const root = this.#t.config.storageDir;
    const tmp = this.#t.storage.tmpDir;
    for (const e of events) {
      // The storage directory itself gone (moved away, unmounted): the marker check says so.
      if (e.path === root) this.#removals.queue(null);
      if (e.path === tmp || e.path.startsWith(tmp + path.sep)) continue;
      const p = this.#gone.current(e.path);
      const at = locate(root, p);
      if (at) this.#settler.add(p, at);
    }
  }

  #onSettled(p: string, at: Location, stat: Stats | null): void {
    const moved = stat?.isDirectory() ? this.#gone.relinkIfMoved(this.#t, at, stat) : null;
    if (moved) return this.#onMoved(moved);
    const next = applyChange(this.#t, at, stat);
    if (next === null) return;
    if (!('remove' in next)) return void this.#listNew(p, next.list, stat?.ctimeMs ?? 0).catch((err: unknown) => this.#onError(err));
    this.#gone.seen(this.#t, next.remove, () => this.#removals.queue(next.remove));
  }

  /** A directory moved within a user's tree, relinked whole: its shares follow, and its subtree is read again in the background. */
  #onMoved(move: DirMove): void {
    this.#folderMoved(move);
    const session = this.#session;
    void resyncMoved(this.#t, move, () => session === this.#session).catch((err: unknown) => this.#onError(err));
  }

  /**
   * A directory that appeared (or came back): every name in it, and every name the index
   * holds for it, is treated as changed, since what was copied in with it (cp -r) may have
   * landed before its watch began, and is indexed once settled like any other change. One
   * holding directories may have come whole (mv from outside): it is watched at every depth
   * first (subtree-watches.ts), so nothing written below it after this listing is missed.
   */
  async #listNew(dir: string, at: DirAt, ctimeMs: number): Promise<void> {
    const session = this.#session;
    const { names: onDisk, holdsDirectory } = await readArrival(dir);
    if (session !== this.#session || this.#phase !== 'watching') return;
    if (holdsDirectory && session && !(await this.#subtrees.follow(dir, ctimeMs, this.#eventsFor(session)))) return this.#watchAfresh();
    if (session !== this.#session || this.#phase !== 'watching') return;
    const names = new Set(onDisk);
    for (const name of knownNames(this.#t.index, at)) names.add(name);
    for (const name of names) this.#settler.add(path.join(dir, name), { ...at, name });
  }

  /** The callback of a subscription made for `session`: its events are dropped once another session began. */
  #eventsFor(session: object): (err: Error | null, events: WatchEvent[]) => void {
    return (err, events) => {
      if (this.#session !== session) return;
      if (err) this.#onError(err);
      else this.#onEvents(events);
    };
  }

  /** Too many trees followed apart: the watch starts again as at startup (a reconcile, then one walk watching every directory). */
  #watchAfresh(): void {
    if (this.#closed || this.#phase !== 'watching') return;
    void this.#stop();
    this.#phase = 'idle';
    this.#reconcileInBackground();
  }

  #onError(err: unknown): void {
    if (this.#closed) return;
    // The kernel dropped changes (live/inotify.ts): what they were is found as at startup.
    if ((err as NodeJS.ErrnoException | null)?.code === QUEUE_OVERFLOW) {
      this.#t.log(`Nimbus: changes in ${this.#t.config.storageDir} came faster than they were read; reading it again.`);
      return this.#watchAfresh();
    }
    const limit = limitCode(err);
    if (limit) this.#fallBack(limit);
    else this.#logError(err);
  }

  /** The watch cannot be kept (at an OS limit: `code`): say so once, then poll directories and reconcile more often. */
  #fallBack(code: string | null): void {
    if (this.#phase === 'fallback' || this.#phase === 'unavailable' || this.#closed) return;
    void this.#stop();
    this.#phase = 'fallback';
    if (code) this.#t.log(limitMessage(code, FALLBACK_POLL_MS));
    this.#t.watcherMode = 'polling';
    this.#poller.start(FALLBACK_POLL_MS, Date.now());
    this.#stopTimer = every(fallbackReconcileMs(this.#t.config.reconcileIntervalMs), () => void this.reconcile().catch(() => undefined));
    this.#reconcileInBackground();
  }

  #onUnavailable(reason: string): void {
    markUnavailable(this.#t, reason);
    this.#enterUnavailable();
  }

  /** The storage directory is gone: stop watching, keep the index as it is, wait for it. */
  #enterUnavailable(): void {
    if (this.#phase === 'unavailable' || this.#closed) return;
    void this.#stop();
    this.#phase = 'unavailable';
    this.#t.watcherMode = 'reconcile-only';
    this.#stopTimer = waitForStorage(this.#t.config.storageDir, () => {
      this.#stopTimer = null;
      if (this.#closed || this.#phase !== 'unavailable') return;
      this.#reconcileInBackground();
    });
  }

  #reconcileInBackground(): void {
    void this.reconcile().catch((e: Error) => this.#t.log(`Nimbus: reconcile failed: ${e.message}`));
  }

  /** Ends the subscription, the poller and the timers, and drops whatever waits; resolves once unsubscribed. */
  async #stop(): Promise<void> {
    this.#session = null;
    this.#settler.clear();
    this.#removals.clear();
    this.#gone.clear();
    this.#poller.stop();
    const subtrees = this.#subtrees.clear();
    this.#stopTimer?.();
    this.#stopTimer = null;
    const subscription = this.#subscription;
    this.#subscription = null;
    await Promise.all([(await subscription)?.unsubscribe().catch(() => undefined), subtrees]);
  }
}
