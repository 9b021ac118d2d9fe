import { ChangeFlow } from './live/change-flow.js';
import type { FolderMoved } from './live/dir-moves.js';
import { every, FALLBACK_POLL_MS, fallbackReconcileMs, limitMessage, logOncePerCode, waitForStorage } from './live/fallback.js';
import { DirPoller } from './live/poller.js';
import { QUEUE_OVERFLOW } from './live/inotify.js';
import { nativeWatch } from './live/native-watch.js';
import { limitCode, type WatchEvent, type WatchFactory, type WatchSubscription } from './live/subscription.js';
import type { LiveTarget, WatcherMode } from './live/target.js';
import { markUnavailable, reconcileAll } from './reconcile.js';

export type { LiveTarget, WatcherMode, WatchEvent, WatchFactory, WatchSubscription };

type Phase = 'idle' | 'watching' | 'fallback' | 'unavailable';

/**
 * Keeps the file index equal to the storage directory while the daemon runs: one
 * subscription over the storage directory (our inotify reader on Linux, @parcel/watcher
 * elsewhere: live/native-watch.ts), started after the first scan, whose events take the way
 * of live/change-flow.ts into the index. This class decides the phase: when the OS watch
 * limit is hit it polls directory mtimes and reconciles more often (poller.ts, fallback.ts);
 * when the storage directory goes away it keeps the index as it is and waits for it; when
 * the kernel dropped changes it watches afresh.
 */
export class LiveStorage {
  readonly #t: LiveTarget;
  readonly #subscribe: WatchFactory;
  readonly #flow: ChangeFlow;
  readonly #poller: DirPoller;
  readonly #logError: (err: unknown) => void;
  #phase: Phase = 'idle';
  #subscription: Promise<WatchSubscription | null> | null = null;
  #stopTimer: (() => void) | null = null;
  #reconciling: Promise<boolean> | null = null;
  #closed = false;

  constructor(t: LiveTarget, watch: WatchFactory = nativeWatch, folderMoved: FolderMoved = () => undefined) {
    this.#t = t;
    this.#subscribe = watch;
    this.#logError = logOncePerCode(t.config.storageDir, t.log);
    this.#flow = new ChangeFlow(t, watch, {
      onError: (err) => this.#onError(err),
      onUnavailable: (reason) => this.#onUnavailable(reason),
      watchAfresh: () => this.#watchAfresh(),
      folderMoved,
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
    const session = this.#flow.begin();
    const subscribing = (async () => this.#subscribe(this.#t.config.storageDir, this.#flow.eventsFor(session)))();
    this.#subscription = subscribing.catch(() => null);
    try {
      await subscribing;
    } catch (err) {
      if (!this.#flow.isCurrent(session)) return;
      this.#onError(err);
      // No watch at all, for another reason than a limit (said above): poll instead.
      this.#fallBack(null);
      return;
    }
    if (!this.#flow.isCurrent(session)) return;
    // Whatever changed between the scan and the subscription's start is found by one pass over
    // directory mtimes. Not polled meanwhile: at 120,000 folders the subscription takes seconds
    // and polling them all every 200 ms cost ~1 GiB of heap never given back (bench/NOTES.md).
    await this.#poller.catchUp(since);
    if (!this.#flow.isCurrent(session)) return;
    this.#t.watcherMode = 'inotify';
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
    const subtrees = this.#flow.clear();
    this.#poller.stop();
    this.#stopTimer?.();
    this.#stopTimer = null;
    const subscription = this.#subscription;
    this.#subscription = null;
    await Promise.all([(await subscription)?.unsubscribe().catch(() => undefined), subtrees]);
  }
}
