/**
 * Quota reservations (docs/cluster.md, "Quota across daemons"): the bytes promised to
 * uploads and copies in flight, so several at once can never pass a user's quota together.
 * `QuotaLedger` keeps them: `MemoryQuotaLedger` in this process (one daemon), a PostgreSQL
 * ledger in a table every daemon shares. `QuotaHold` is one upload's side of it.
 */
import { ApiError, quotaExceeded } from '../errors.js';

/** What a ledger answers: a value, or a promise of it (the in-memory ledger answers at once, so a chunk costs no tick). */
export type MaybePromise<T> = T | Promise<T>;

/** Bytes held for one upload until it is released. */
export interface Reservation {
  readonly username: string;
  /** What is held now (grown by `QuotaLedger.grow`). */
  readonly bytes: number;
}

/**
 * Where reservations are kept. `maxBytes` < 0 is no limit (nothing is refused). `usedBytes`
 * is the user's usage as this daemon counts it (files and trash) less `freedBytes`, what the
 * upload frees once in place (an overwritten file); a ledger that sums usage itself (the
 * PostgreSQL one, in the database) uses its own sum less `freedBytes`. A refusal throws (or
 * rejects) 507 `quota_exceeded` and holds nothing more.
 */
export interface QuotaLedger {
  /**
   * Bytes to hold ahead when an upload's length is unknown: 0 holds exactly what has arrived
   * (the in-memory ledger, where a check costs nothing); the PostgreSQL one holds 8 MiB at a
   * time, so a stream is not a query per chunk.
   */
  readonly step: number;
  /** A new reservation of `bytes` for the user, if usage + everything reserved + `bytes` fits in `maxBytes`. */
  reserve(username: string, bytes: number, maxBytes: number, usedBytes: number, freedBytes: number): MaybePromise<Reservation>;
  /** Holds `bytes` more on the reservation, on the same condition. */
  grow(reservation: Reservation, bytes: number, maxBytes: number, usedBytes: number, freedBytes: number): MaybePromise<void>;
  /** Lets the reservation go (once the file is counted, or the upload failed). */
  release(reservation: Reservation): MaybePromise<void>;
}

/** The 507's message: what the user's usage (with what is reserved) and quota are. */
export function usedMessage(used: number, max: number): string {
  // Binary units, as the UI shows them (a role's `maxStorage` is in MB meaning MiB, as DaneeCloud's always was).
  const mb = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
  return `Storage quota exceeded: ${mb(used)} of ${mb(max)} used`;
}

interface HeldBytes {
  readonly username: string;
  bytes: number;
}

/** Reservations in this process's memory: one daemon's uploads. Answers synchronously. */
export class MemoryQuotaLedger implements QuotaLedger {
  readonly step = 0;
  /** Bytes reserved per user (a user with none has no entry). */
  readonly #reserved = new Map<string, number>();

  /** What is reserved for the user now. */
  reservedFor(username: string): number {
    return this.#reserved.get(username) ?? 0;
  }

  reserve(username: string, bytes: number, maxBytes: number, usedBytes: number): Reservation {
    const reservation: HeldBytes = { username, bytes: 0 };
    this.grow(reservation, bytes, maxBytes, usedBytes);
    return reservation;
  }

  grow(reservation: Reservation, bytes: number, maxBytes: number, usedBytes: number): void {
    const held = reservation as HeldBytes;
    if (maxBytes >= 0) {
      const used = usedBytes + this.reservedFor(held.username);
      if (used + bytes > maxBytes) throw quotaExceeded(usedMessage(used, maxBytes), { needed: bytes, available: maxBytes - used });
    }
    held.bytes += bytes;
    this.#reserved.set(held.username, this.reservedFor(held.username) + bytes);
  }

  release(reservation: Reservation): void {
    const held = reservation as HeldBytes;
    const left = this.reservedFor(held.username) - held.bytes;
    held.bytes = 0;
    if (left > 0) this.#reserved.set(held.username, left);
    else this.#reserved.delete(held.username);
  }
}

/** What a hold checks against, read afresh at each step (other uploads land meanwhile). */
export interface QuotaLimits {
  maxBytes: number;
  usedBytes: number;
  freedBytes: number;
}

/**
 * One upload's reservation, grown as its bytes arrive: `cover(total)` before the bytes are
 * accepted, `release()` however the upload ends. Synchronous while the ledger is.
 */
export class QuotaHold {
  #reservation: Reservation | null = null;
  #held = 0;
  #stepRefused = false;
  /** A hold the ledger has not answered yet: release waits for it, or its bytes would stay held. */
  #answering: Promise<unknown> | null = null;

  constructor(
    private readonly ledger: QuotaLedger,
    private readonly username: string,
    private readonly limits: () => QuotaLimits,
  ) {}

  /**
   * Makes sure `total` bytes are held. `exact`: hold no more (a declared Content-Length);
   * otherwise the ledger's step ahead, or just what is needed once a step no longer fits
   * (from then on: the quota is nearly full, and a step would be refused each time).
   */
  cover(total: number, exact = false): MaybePromise<void> {
    if (total <= this.#held) return;
    const needed = total - this.#held;
    const ahead = exact || this.#stepRefused ? needed : Math.max(needed, this.ledger.step);
    const held = ahead === needed ? this.#hold(needed) : this.#holdHalving(ahead, needed);
    if (held instanceof Promise) this.#answering = Promise.all([this.#answering, held.catch(() => undefined)]);
    return held;
  }

  /** Lets go of everything held (after a hold still being answered). */
  async release(): Promise<void> {
    await this.#answering;
    const reservation = this.#reservation;
    this.#reservation = null;
    this.#held = 0;
    if (reservation) await this.ledger.release(reservation);
  }

  /**
   * Holds `ahead`, or half of it, and so on down to `needed`. When the quota is nearly full,
   * uploads racing for it that each held only the next chunk could all end up refused, each
   * holding a part (measured: six racing 300 KiB bodies under 1 MB, none stored); the first
   * to ask takes a large part and finishes, the others are refused sooner.
   */
  #holdHalving(ahead: number, needed: number): MaybePromise<void> {
    if (ahead <= needed) return this.#hold(needed);
    return catchQuota(
      () => this.#hold(ahead),
      () => {
        this.#stepRefused = true;
        return this.#holdHalving(Math.floor(ahead / 2), needed);
      },
    );
  }

  #hold(bytes: number): MaybePromise<void> {
    const { maxBytes, usedBytes, freedBytes } = this.limits();
    if (this.#reservation) {
      return after(this.ledger.grow(this.#reservation, bytes, maxBytes, usedBytes, freedBytes), () => {
        this.#held += bytes;
      });
    }
    return after(this.ledger.reserve(this.username, bytes, maxBytes, usedBytes, freedBytes), (reservation) => {
      this.#reservation = reservation;
      this.#held += bytes;
    });
  }
}

/** Runs `then` on the value, at once when it is not a promise. */
function after<T>(value: MaybePromise<T>, then: (value: T) => void): MaybePromise<void> {
  if (value instanceof Promise) return value.then(then);
  then(value);
}

/** `attempt`, or `fallback` when it is refused for the quota (sync or async alike). */
function catchQuota(attempt: () => MaybePromise<void>, fallback: () => MaybePromise<void>): MaybePromise<void> {
  const isQuota = (err: unknown) => err instanceof ApiError && err.code === 'quota_exceeded';
  let result: MaybePromise<void>;
  try {
    result = attempt();
  } catch (err) {
    if (!isQuota(err)) throw err;
    return fallback();
  }
  if (result instanceof Promise)
    return result.catch((err: unknown) => {
      if (!isQuota(err)) throw err;
      return fallback();
    });
}
