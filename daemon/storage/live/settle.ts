import type { Stats } from 'node:fs';

/** A changed file is applied once its size has been still this long (as chokidar's awaitWriteFinish would, near 200 ms). */
export const WRITE_FINISH_MS = 200;
/** How often changed names are looked at again until they have settled. */
export const SETTLE_POLL_MS = 50;

/**
 * A look that failed (too many open files under load, say) says nothing about the names: they
 * are looked at again next time instead of read as gone, which dropped new files from the
 * index until the next reconcile. Only after this many failures in a row is the batch taken
 * as gone (the storage folder unreadable for good: the marker check and the reconcile say so).
 */
const LOOK_RETRIES = 20;

/** What a look at a name found: its lstat, null (nothing there) or undefined (changed by the API while read: look again). */
export type Look = Stats | null | undefined;

interface Pending<T> {
  at: T;
  /** Size at the last look (-1 before the first). */
  size: number;
  /** When the last event came or the size last moved. */
  since: number;
}

export interface SettleOptions<T> {
  /** Reads every name of a batch from the disk at once. */
  look(batch: [path: string, at: T][]): Promise<Look[]>;
  /** A name that has settled: what the disk holds now (null: nothing). */
  settled(path: string, at: T, stat: Stats | null): void;
  /**
   * Whether a file found is already known as it is (the daemon's own write, echoed): settled at
   * the first look, without the quiet time, since handing it on changes nothing. A write after
   * that look brings another event, and the name waits as any other.
   */
  known?(at: T, stat: Stats): boolean;
  quietMs?: number;
  pollMs?: number;
}

/**
 * Write-settling: a changed name is looked at every `pollMs` until it is gone, not a file,
 * or a file whose size has been still for `quietMs`; then it is handed on once. More
 * events for a name while it waits restart its quiet time.
 */
export class Settler<T> {
  readonly #options: Required<SettleOptions<T>>;
  readonly #pending = new Map<string, Pending<T>>();
  #timer: NodeJS.Timeout | null = null;
  /** Replaced by clear(), so a look in flight then applies nothing. */
  #round = {};
  #failedLooks = 0;

  constructor(options: SettleOptions<T>) {
    this.#options = { quietMs: WRITE_FINISH_MS, pollMs: SETTLE_POLL_MS, known: () => false, ...options };
  }

  get size(): number {
    return this.#pending.size;
  }

  add(p: string, at: T): void {
    const now = Date.now();
    const pending = this.#pending.get(p);
    if (pending) pending.since = now;
    else this.#pending.set(p, { at, size: -1, since: now });
    this.#schedule();
  }

  /** Forgets every waiting name. */
  clear(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#pending.clear();
    this.#round = {};
  }

  #schedule(): void {
    this.#timer ??= setTimeout(() => void this.#tick(), this.#options.pollMs);
  }

  async #tick(): Promise<void> {
    const round = this.#round;
    const batch = [...this.#pending];
    const looks = await this.#options.look(batch.map(([p, pending]) => [p, pending.at])).then(
      (found) => ((this.#failedLooks = 0), found),
      () => (++this.#failedLooks < LOOK_RETRIES ? null : batch.map(() => null)),
    );
    if (round !== this.#round) return;
    this.#timer = null;
    if (looks === null) return this.#schedule();
    const now = Date.now();
    const settled: [string, Pending<T>, Stats | null][] = [];
    for (let i = 0; i < batch.length; i++) {
      const [p, pending] = batch[i];
      const stat = looks[i];
      if (stat === undefined) continue;
      if (stat?.isFile() && !this.#options.known(pending.at, stat)) {
        // Still being written: wait until the size has been still for quietMs.
        if (pending.size !== -1 && stat.size !== pending.size) pending.since = now;
        pending.size = stat.size;
        if (now - pending.since < this.#options.quietMs) continue;
      }
      this.#pending.delete(p);
      settled.push([p, pending, stat]);
    }
    // Names gone first: a directory moved within the batch is seen gone before it is seen arriving (dir-moves.ts).
    for (const [p, pending, stat] of settled) if (stat === null) this.#options.settled(p, pending.at, stat);
    for (const [p, pending, stat] of settled) if (stat !== null) this.#options.settled(p, pending.at, stat);
    if (this.#pending.size > 0) this.#schedule();
  }
}
