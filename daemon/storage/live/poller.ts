import { lstat } from 'node:fs/promises';
import { checkStorage } from '../availability.js';
import type { FileIndex } from '../file-index.js';
import type { Storage } from '../storage.js';
import { syncIndexDirectory } from '../index-sync.js';
import { joinFolder, type FolderNode } from '../index-tree.js';

/** Directory mtimes this close to the polling's start are read again (timestamp granularity; coarser file systems rely on the reconcile). */
const MTIME_SLACK_MS = 50;
/**
 * lstat calls in flight at once. A pass over 120,000 folders once made them all at once, and
 * their promises and Stats, alive together, grew the heap by hundreds of MiB it never gave
 * back (bench/NOTES.md, issue 25); a bounded batch keeps a pass's garbage short-lived.
 */
const STAT_BATCH = 64;

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
 * last pass (or since `since` at the first) is read again into the index. Runs instead of the
 * watch when the OS watch limit is reached, and once (`catchUp`) when the watch has started.
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
    // One entry per folder (120,000 at full size): not kept once nothing polls.
    this.#mtimes.clear();
  }

  /**
   * One pass reading again every directory whose mtime moved since `since`, then nothing kept:
   * what changed between the scan and the watch's start (the watch reports what comes after).
   */
  async catchUp(since: number): Promise<void> {
    this.stop();
    await this.#running;
    this.#since = since;
    const round = this.#round;
    await this.once();
    // Unless polling started meanwhile (the watch failed): its mtimes are its own.
    if (round === this.#round) this.#mtimes.clear();
  }

  /** One pass (the one running, if any). */
  once(): Promise<void> {
    return (this.#running ??= this.#pass()
      .catch((err: unknown) => this.#on.onError(err))
      .finally(() => {
        this.#running = null;
      }));
  }

  async idle(): Promise<void> {
    await this.#running;
  }

  async #pass(): Promise<void> {
    const round = this.#round;
    const { storage, store, config } = this.#t;
    const status = await checkStorage(config.storageDir);
    if (round !== this.#round) return;
    if (!status.ok) return this.#on.unavailable(status.reason);
    const isUser = (name: string) => store.users.has(name);
    // Every directory is stat'ed first (a bounded batch at a time), then only the ones that moved are read.
    const changed: (readonly [string, string | null])[] = [];
    let batch: (readonly [string, string | null])[] = [];
    const statBatch = async () => {
      const moved = await Promise.all(batch.map(([u, f]) => this.#changed(storage.path(u, f))));
      for (let i = 0; i < batch.length; i++) if (moved[i]) changed.push(batch[i]);
      batch = [];
    };
    for (const dir of this.#directories()) {
      batch.push(dir);
      if (batch.length < STAT_BATCH) continue;
      await statBatch();
      if (round !== this.#round) return;
    }
    await statBatch();
    for (const [u, f] of changed) {
      if (round !== this.#round) return;
      await syncIndexDirectory(storage, u, f, isUser);
    }
  }

  /** Every user's directory (folder null), then every folder of each user, parents first; read lazily from the index. */
  *#directories(): Generator<readonly [string, string | null]> {
    const { store, index } = this.#t;
    const users = [...store.users.keys()];
    for (const u of users) yield [u, null];
    for (const u of users) yield* foldersBelow(u, index.user(u)?.folders, null);
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

function* foldersBelow(
  user: string,
  folders: Map<string, FolderNode> | undefined,
  parent: string | null,
): Generator<readonly [string, string]> {
  if (!folders) return;
  for (const [name, node] of folders) {
    const folder = joinFolder(parent, name);
    yield [user, folder];
    yield* foldersBelow(user, node.folders, folder);
  }
}
