/**
 * Slows down whoever keeps presenting wrong keys or share tokens. Keys are 256-bit, so
 * this is about log floods and wasted work, not guessing: after FAILURES_ALLOWED misses
 * within WINDOW_MS from one address, further misses answer 429 with Retry-After until the
 * block lapses. A correct key is never refused, so the owner keeps working.
 */
import { ApiError } from '../errors.js';

const WINDOW_MS = 60_000;
const FAILURES_ALLOWED = 20;
const BLOCK_MS = 30_000;

interface Record {
  failures: number;
  windowStart: number;
  blockedUntil: number;
}

export class FailureThrottle {
  readonly #clients = new Map<string, Record>();
  readonly #log: (line: string) => void;

  constructor(log: (line: string) => void) {
    this.#log = log;
  }

  /** Seconds until this client may fail again, or 0 when it is not blocked. */
  retryAfter(client: string, now = Date.now()): number {
    const record = this.#clients.get(client);
    if (!record || record.blockedUntil <= now) return 0;
    return Math.ceil((record.blockedUntil - now) / 1000);
  }

  /** Counts a failure; logs once when the client becomes blocked. */
  fail(client: string, what: string, now = Date.now()): void {
    let record = this.#clients.get(client);
    if (!record || now - record.windowStart > WINDOW_MS) {
      record = { failures: 0, windowStart: now, blockedUntil: record?.blockedUntil ?? 0 };
      this.#clients.set(client, record);
    }
    record.failures++;
    if (record.failures > FAILURES_ALLOWED && record.blockedUntil <= now) {
      record.blockedUntil = now + BLOCK_MS;
      this.#log(`Nimbus: ${record.failures} wrong ${what} from ${client} within a minute; answering 429 for ${BLOCK_MS / 1000} s.`);
    }
    if (this.#clients.size > 10_000) this.#prune(now);
  }

  #prune(now: number): void {
    for (const [client, record] of this.#clients) {
      if (record.blockedUntil <= now && now - record.windowStart > WINDOW_MS) this.#clients.delete(client);
    }
  }
}

/** Counts a wrong API key from `client` (the caller then answers its 401); 429 with Retry-After once it has sent too many. */
export function countWrongKey(throttle: FailureThrottle, client: string): void {
  const wait = throttle.retryAfter(client);
  if (wait > 0) throw new ApiError('too_many_requests', 'Too many wrong API keys; try again later', { 'Retry-After': String(wait) });
  throttle.fail(client, 'API keys');
}
