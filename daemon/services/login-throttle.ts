/**
 * Limits password guessing (docs/accounts.md, "Guessing passwords"). A failed sign-in (or a
 * wrong current password in `auth.password`) counts against the username, case-folded, and
 * against the client's address, over a sliding 15 minutes. With 5 failures for a username,
 * or 20 from an address, in the window, sign-ins for that username or from that address are
 * refused (429, Retry-After: until enough failures leave the window), even with the right
 * password; nothing else is slowed. A success clears the username's count.
 *
 * Guesses sent at once must not slip through while the first are still being verified (a
 * password hash takes milliseconds): `begin` counts an attempt as pending until `fail`, `succeed` or
 * `release` settles it, and pending attempts count towards the limits as failures would.
 *
 * Separate from FailureThrottle (daemon/http/throttle.ts), which answers floods of wrong API
 * keys and share links per address and stays as it is.
 */
import { foldName } from '../storage/case-folds.js';

export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
export const FAILURES_PER_USERNAME = 5;
export const FAILURES_PER_ADDRESS = 20;
/** Kept entries at most per map; past it, entries with nothing left in the window are dropped. */
const MAX_ENTRIES = 50_000;

/** How an attempt went: refused while blocked (the seconds to wait), or checked (`value` null: wrong). */
export type AttemptOutcome<T> = { refusedFor: number } | { value: T | null };

export class LoginThrottle {
  /** Attempts being checked, by username and guess (`attempt`). */
  readonly #checking = new Map<string, Promise<AttemptOutcome<unknown>>>();
  readonly #byUsername = new Map<string, number[]>();
  readonly #byAddress = new Map<string, number[]>();
  /** Attempts begun and not yet settled, per username and per address. */
  readonly #pendingByUsername = new Map<string, number>();
  readonly #pendingByAddress = new Map<string, number>();
  readonly #log: (line: string) => void;

  constructor(log: (line: string) => void = () => undefined) {
    this.#log = log;
  }

  /**
   * One attempt under the limits: refused while blocked, else pending while `check` runs, then
   * settled by its answer (null: a failure) or released when it throws. Attempts for the same
   * username with the same `guess` (the password's hash) arriving while one is checked share
   * it: one guess, counted once, all answered alike. Counted apart, a client's requests at once
   * were pending attempts each, and pending attempts count as failures: a WebDAV client's sixth
   * request with the right password met 429.
   */
  attempt<T>(username: string, address: string, guess: string, check: () => Promise<T | null>): Promise<AttemptOutcome<T>> {
    // The name as given, not folded as the limits count it: a check answers for exactly what it checked.
    const key = `${username}\0${guess}`;
    const running = this.#checking.get(key) as Promise<AttemptOutcome<T>> | undefined;
    if (running) return running;
    const wait = this.begin(username, address);
    if (wait > 0) return Promise.resolve({ refusedFor: wait });
    const checked = this.#settle(username, address, check);
    this.#checking.set(key, checked);
    const forget = () => {
      if (this.#checking.get(key) === checked) this.#checking.delete(key);
    };
    checked.then(forget, forget);
    return checked;
  }

  async #settle<T>(username: string, address: string, check: () => Promise<T | null>): Promise<AttemptOutcome<T>> {
    let value: T | null;
    try {
      value = await check();
    } catch (err) {
      this.release(username, address);
      throw err;
    }
    if (value === null) this.fail(username, address);
    else this.succeed(username, address);
    return { value };
  }

  /**
   * Seconds until a sign-in for `username` from `address` may be tried again; 0 when it may be
   * now. Attempts still being verified count as failures (they may turn out to be).
   */
  retryAfter(username: string, address: string, now = Date.now()): number {
    const name = fold(username);
    const ms = Math.max(
      waitFor(this.#byUsername, name, FAILURES_PER_USERNAME, now, this.#pendingByUsername.get(name) ?? 0),
      waitFor(this.#byAddress, address, FAILURES_PER_ADDRESS, now, this.#pendingByAddress.get(address) ?? 0),
    );
    return ms > 0 ? Math.max(1, Math.ceil(ms / 1000)) : 0;
  }

  /**
   * Starts an attempt: the seconds to wait when it is refused (nothing is counted then), else 0
   * and the attempt is pending until `fail`, `succeed` or `release`.
   */
  begin(username: string, address: string, now = Date.now()): number {
    const wait = this.retryAfter(username, address, now);
    if (wait > 0) return wait;
    const name = fold(username);
    this.#pendingByUsername.set(name, (this.#pendingByUsername.get(name) ?? 0) + 1);
    this.#pendingByAddress.set(address, (this.#pendingByAddress.get(address) ?? 0) + 1);
    return 0;
  }

  /** Settles a pending attempt that was neither a failure nor a success (an error on the way). */
  release(username: string, address: string): void {
    decrement(this.#pendingByUsername, fold(username));
    decrement(this.#pendingByAddress, address);
  }

  /** Counts a failed sign-in (settling its pending attempt); logs once when the username or the address becomes blocked. */
  fail(username: string, address: string, now = Date.now()): void {
    this.release(username, address);
    const name = fold(username);
    if (record(this.#byUsername, name, now) === FAILURES_PER_USERNAME)
      this.#log(`Nimbus: ${FAILURES_PER_USERNAME} failed sign-ins for one username within 15 minutes; refusing its sign-ins for a while.`);
    if (record(this.#byAddress, address, now) === FAILURES_PER_ADDRESS)
      this.#log(`Nimbus: ${FAILURES_PER_ADDRESS} failed sign-ins from ${address} within 15 minutes; refusing its sign-ins for a while.`);
    if (this.#byUsername.size > MAX_ENTRIES) prune(this.#byUsername, now);
    if (this.#byAddress.size > MAX_ENTRIES) prune(this.#byAddress, now);
  }

  /** A successful sign-in (settling its pending attempt): the username's failures are forgotten (the address's stay). */
  succeed(username: string, address: string): void {
    this.release(username, address);
    this.#byUsername.delete(fold(username));
  }
}

/** Usernames are compared case-folded, as user directories are: "Ana" and "ana" share one count. */
const fold = foldName;

/** The failures of `key` still in the window, oldest first (the list is trimmed in place). */
function inWindow(map: Map<string, number[]>, key: string, now: number): number[] {
  const times = map.get(key);
  if (!times) return [];
  let drop = 0;
  while (drop < times.length && now - times[drop] >= LOGIN_WINDOW_MS) drop++;
  if (drop > 0) times.splice(0, drop);
  if (times.length === 0) map.delete(key);
  return times;
}

/**
 * Milliseconds until `key` has fewer than `limit` failures and pending attempts in the window
 * (0: it has now). Pending attempts settle within a second or so: until then, 1 s.
 */
function waitFor(map: Map<string, number[]>, key: string, limit: number, now: number, pending: number): number {
  const times = inWindow(map, key, now);
  if (times.length + pending < limit) return 0;
  if (times.length < limit) return 1000;
  // Once the failure at this position leaves the window, fewer than `limit` remain.
  return times[times.length - limit] + LOGIN_WINDOW_MS - now;
}

function decrement(map: Map<string, number>, key: string): void {
  const left = (map.get(key) ?? 0) - 1;
  if (left > 0) map.set(key, left);
  else map.delete(key);
}

/** Adds a failure; answers how many are in the window now. */
function record(map: Map<string, number[]>, key: string, now: number): number {
  const times = inWindow(map, key, now);
  if (times.length === 0) map.set(key, times);
  times.push(now);
  // A blocked key cannot collect more than this (its attempts are refused before they count),
  // but concurrent attempts can: keep the list bounded all the same.
  if (times.length > FAILURES_PER_ADDRESS * 2) times.splice(0, times.length - FAILURES_PER_ADDRESS * 2);
  return times.length;
}

function prune(map: Map<string, number[]>, now: number): void {
  for (const key of [...map.keys()]) inWindow(map, key, now);
}
