import path from 'node:path';
import type { Stats } from 'node:fs';
import { applyChange, confirmRemovals, indexHolds, knownNames, lookFresh, touchedLocation, type Removal } from './apply-changes.js';
import { DirMoves, resyncMoved, type DirMove, type FolderMoved } from './dir-moves.js';
import { MarkerGuard } from './marker-guard.js';
import { Settler } from './settle.js';
import { readArrival, SubtreeWatches } from './subtree-watches.js';
import { locate, type DirAt, type Location, type WatchEvent, type WatchFactory } from './subscription.js';
import type { LiveTarget } from './target.js';

/** What the flow hands back to the watcher that owns it (watcher.ts), which decides the phase. */
export interface FlowOwner {
  onError(err: unknown): void;
  /** The storage directory is gone (the marker check said so). */
  onUnavailable(reason: string): void;
  /** Too many trees followed apart: the watch must start again. */
  watchAfresh(): void;
  folderMoved: FolderMoved;
}

/**
 * The way of a watch event into the index, for one subscription at a time (a session): each
 * changed name settles (settle.ts), then goes into the index (apply-changes.ts), which ignores
 * the echo of the daemon's own operations; removals wait for the storage-marker check
 * (marker-guard.ts), and a folder's for a directory with its identity to appear: one moved
 * within a user's tree is relinked as one move (dir-moves.ts). Events of an ended session, and
 * work begun for one, are dropped.
 */
export class ChangeFlow {
  readonly #t: LiveTarget;
  readonly #owner: FlowOwner;
  readonly #settler: Settler<Location>;
  readonly #removals: MarkerGuard<Removal>;
  readonly #gone: DirMoves;
  readonly #subtrees: SubtreeWatches;
  #session: object | null = null;

  constructor(t: LiveTarget, watch: WatchFactory, owner: FlowOwner) {
    this.#t = t;
    this.#owner = owner;
    const root = t.config.storageDir;
    this.#gone = new DirMoves(root, t.index);
    this.#subtrees = new SubtreeWatches(watch);
    this.#settler = new Settler<Location>({
      look: (batch) => lookFresh(root, t.index, batch, touchedLocation),
      settled: (p, at, stat) => this.#onSettled(p, at, stat),
      known: (at, stat) => indexHolds(t.index, at, stat),
    });
    this.#removals = new MarkerGuard<Removal>({
      storageDir: root,
      unavailable: (reason) => owner.onUnavailable(reason),
      onError: (err) => owner.onError(err),
      confirm: (batch, current) =>
        confirmRemovals(t, batch, current, (later) => this.#gone.later(() => later.forEach((r) => this.#removals.queue(r)))),
    });
  }

  /** Starts a session: from now on only its events are taken. */
  begin(): object {
    return (this.#session = {});
  }

  isCurrent(session: object): boolean {
    return this.#session === session;
  }

  /** The callback of a subscription made for `session`: its events are dropped once another session began. */
  eventsFor(session: object): (err: Error | null, events: WatchEvent[]) => void {
    return (err, events) => {
      if (this.#session !== session) return;
      if (err) this.#owner.onError(err);
      else this.#onEvents(events);
    };
  }

  /** Ends the session and drops whatever waits; resolves once the followed subtrees are unwatched. */
  clear(): Promise<void> {
    this.#session = null;
    this.#settler.clear();
    this.#removals.clear();
    this.#gone.clear();
    return this.#subtrees.clear();
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
    if (!('remove' in next)) return void this.#listNew(p, next.list, stat?.ctimeMs ?? 0).catch((err: unknown) => this.#owner.onError(err));
    this.#gone.seen(this.#t, next.remove, () => this.#removals.queue(next.remove));
  }

  /** A directory moved within a user's tree, relinked whole: its shares follow, and its subtree is read again in the background. */
  #onMoved(move: DirMove): void {
    this.#owner.folderMoved(move);
    const session = this.#session;
    void resyncMoved(this.#t, move, () => session === this.#session).catch((err: unknown) => this.#owner.onError(err));
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
    if (session === null) return;
    const { names: onDisk, holdsDirectory } = await readArrival(dir);
    if (session !== this.#session) return;
    if (holdsDirectory && !(await this.#subtrees.follow(dir, ctimeMs, this.eventsFor(session)))) return this.#owner.watchAfresh();
    if (session !== this.#session) return;
    const names = new Set(onDisk);
    for (const name of knownNames(this.#t.index, at)) names.add(name);
    for (const name of names) this.#settler.add(path.join(dir, name), { ...at, name });
  }
}
