import type { ChangeEvent } from '../../../shared/types';

export const BUCKET_MS = 10_000;
export const WINDOW_MS = 10 * 60_000;
export const BUCKETS = WINDOW_MS / BUCKET_MS;
export const LATEST = 20;

export interface LoggedEvent {
  /** Unique within the log, for React keys. */
  id: number;
  at: number;
  event: ChangeEvent;
}

/**
 * What the event stream said lately: counts per 10 s over the last 10 minutes, and the latest
 * 20 events. Counts are kept per bucket, not per event, so a burst of 10,000 events (a folder
 * copied in) costs a number, not 10,000 entries.
 */
export class ActivityLog {
  #counts = new Map<number, number>();
  #latest: LoggedEvent[] = [];
  #nextId = 0;
  /** When listening began: older buckets are unknown, not quiet. */
  readonly since: number;

  constructor(now: number) {
    this.since = now;
  }

  add(event: ChangeEvent, now: number): void {
    const bucket = Math.floor(now / BUCKET_MS);
    this.#counts.set(bucket, (this.#counts.get(bucket) ?? 0) + 1);
    this.#latest.unshift({ id: this.#nextId++, at: now, event });
    if (this.#latest.length > LATEST) this.#latest.length = LATEST;
    this.#forget(now);
  }

  /** The last BUCKETS counts, oldest first, the last one being the 10 s that hold `now`. */
  counts(now: number): number[] {
    this.#forget(now);
    const last = Math.floor(now / BUCKET_MS);
    return Array.from({ length: BUCKETS }, (_, i) => this.#counts.get(last - BUCKETS + 1 + i) ?? 0);
  }

  /** Newest first. */
  latest(): readonly LoggedEvent[] {
    return this.#latest;
  }

  #forget(now: number): void {
    const oldest = Math.floor(now / BUCKET_MS) - BUCKETS + 1;
    for (const bucket of this.#counts.keys()) if (bucket < oldest) this.#counts.delete(bucket);
  }
}
