import { lstat } from 'node:fs/promises';
import { checkStorage } from '../availability.js';
import type { FileIndex } from '../file-index.js';
import type { Storage } from '../storage.js';
import { syncIndexDirectory } from '../index-sync.js';
import { eachFolder } from '../index-tree.js';

/** Directory mtimes this close to the polling's start are read again (timestamp granularity; coarser file systems rely on the reconcile). */
const MTIME_SLACK_MS = 50;

export interface PollTarget {
  config: { storageDir: string };
  store: { users: ReadonlyMap<string, unknown> };
  index: FileIndex;
  storage: Storage;
}

export interface PollEvents {
  /** The storage directory or its marker is gone (the pass changed nothing). */
  unavailable(reason: string): void;
  onError(err: unknown): void;
}

/**
 * Polls directory mtimes: every user's directory and folder (at every depth) whose mtime moved since the
 * last pass (or since `since` at the first) is read again into the index. Runs while the
 * watch starts, and instead of it when the OS watch limit is reached.
 */
export class DirPoller {
  readonly #t: PollTarget;
  readonly #on: PollEvents;
  readonly #mtimes = new Map<string, number>();
  #since = 0;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  /** Replaced by stop(), so a pass in flight then stops early. */
  #round = {};

  constructor(t: PollTarget, on: PollEvents) {
    this.#t = t;
    this.#on = on;
  }

  start(everyMs: number, since: number): void {
    this.stop();
    this.#since = since;
    this.#mtimes.clear();
    this.#timer = setInterval(() => void this.once(), everyMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#round = {};
  }

  /** One pass (the one running, if any). */
  once(): Promise<void> {
    return (this.#running ??= this.#pass()
      .catch((err: unknown) => this.#on.onError(err))
      .finally(() => {
        this.#running = null;
      }));
  }

  /** A pass that starts after this call: what changed before it is found. */
  async fresh(): Promise<void> {
    await this.#running;
    await this.once();
  }

  async idle(): Promise<void> {
    await this.#running;
  }

  async #pass(): Promise<void> {
    const round = this.#round;
    const { storage, store, index, config } = this.#t;
    const status = await checkStorage(config.storageDir);
    if (round !== this.#round) return;
    if (!status.ok) return this.#on.unavailable(status.reason);
    const isUser = (name: string) => store.users.has(name);
    // Every directory is stat'ed at once, then only the ones that moved are read.
    const users = [...store.users.keys()];
    const rootsChanged = await Promise.all(users.map((u) => this.#changed(storage.path(u))));
    const folders: (readonly [string, string])[] = [];
    for (const u of users) eachFolder(index.user(u)?.folders ?? new Map(), null, (f) => folders.push([u, f]));
    const foldersChanged = await Promise.all(folders.map(([u, f]) => this.#changed(storage.path(u, f))));
    for (let i = 0; i < users.length; i++) {
      if (round !== this.#round) return;
      if (rootsChanged[i]) await syncIndexDirectory(storage, users[i], null, isUser);
    }
    for (let i = 0; i < folders.length; i++) {
      if (round !== this.#round) return;
      if (foldersChanged[i]) await syncIndexDirectory(storage, folders[i][0], folders[i][1], isUser);
    }
  }

  async #changed(dir: string): Promise<boolean> {
    const stat = await lstat(dir).catch(() => null);
    const mtime = stat?.mtimeMs ?? -1;
    const before = this.#mtimes.get(dir);
    this.#mtimes.set(dir, mtime);
    if (before === undefined) return mtime === -1 || mtime >= this.#since - MTIME_SLACK_MS;
    return before !== mtime;
  }
}
