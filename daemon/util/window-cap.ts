/**
 * Counts what a key did over a sliding window, up to a limit: the caps on verification mails
 * and registrations (daemon/services/caps.ts) and on reset mails (services/password-reset.ts).
 * In memory and per daemon, like the sign-in limits (daemon/services/login-throttle.ts): a restart
 * forgets, which only allows more.
 */

/** Kept keys at most; past it, keys with nothing left in the window are dropped. */
const MAX_KEYS = 50_000;

export class WindowCap {
  readonly #times = new Map<string, number[]>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Seconds until `key` may take one more; 0 when it may now. */
  retryAfter(key: string, now = Date.now()): number {
    const times = this.#recent(key, now);
    if (times.length < this.limit) return 0;
    // Once the entry at this position leaves the window, fewer than `limit` remain.
    return Math.max(1, Math.ceil((times[times.length - this.limit] + this.windowMs - now) / 1000));
  }

  /** Takes one for `key` and answers 0, or answers the seconds to wait and takes nothing. */
  take(key: string, now = Date.now()): number {
    const wait = this.retryAfter(key, now);
    if (wait > 0) return wait;
    let times = this.#times.get(key);
    if (!times) this.#times.set(key, (times = []));
    times.push(now);
    if (this.#times.size > MAX_KEYS) for (const other of [...this.#times.keys()]) this.#recent(other, now);
    return 0;
  }

  /** Gives back the newest one taken for `key` (what it was taken for did not happen). */
  giveBack(key: string): void {
    const times = this.#times.get(key);
    times?.pop();
    if (times?.length === 0) this.#times.delete(key);
  }

  /** The times of `key` still in the window, oldest first (trimmed in place). */
  #recent(key: string, now: number): number[] {
    const times = this.#times.get(key);
    if (!times) return [];
    let drop = 0;
    while (drop < times.length && now - times[drop] >= this.windowMs) drop++;
    if (drop > 0) times.splice(0, drop);
    if (times.length === 0) this.#times.delete(key);
    return times;
  }
}
