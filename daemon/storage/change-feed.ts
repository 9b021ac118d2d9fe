/**
 * The daemon's one change feed (docs/architecture.md, "Events"): every source of change
 * publishes into it (the file index, the endpoint rows, the trash service, other daemons'
 * rows through PostgreSQL) and every reader follows it (the event hub, the share watcher).
 *
 * Each event gets the next number of this process, and the feed keeps the latest ones for a
 * while, as Syncthing's `lib/events` does, so that an event stream that reconnects with
 * `Last-Event-ID` is sent what it missed instead of refetching everything. An id names the
 * feed it came from (`<epoch>-<seq>`, the epoch random per process): after a restart, or on
 * another daemon behind a balancer, an id means nothing, and the reader is told to reset.
 *
 * Why these bounds: 1,000 events cover a client's reconnect (EventSource retries within
 * seconds; the UI backs off to 15 s) through ordinary activity, and cost at most a few
 * hundred KiB; a burst bigger than that (a copy of thousands of files) is cheaper to refetch
 * than to replay. Five minutes covers a laptop's network switching or a daemon restart
 * behind nginx; older positions refetch. Publishing stays O(1): one slot of a ring written,
 * and nothing at all when no stream has been open for those five minutes.
 */
import { randomBytes } from 'node:crypto';
import type { ChangeEvent } from '../../shared/types.js';

export const REPLAY_MAX_EVENTS = 1000;
export const REPLAY_MAX_AGE_MS = 5 * 60_000;

/** An event as the feed numbered it. */
export interface FedEvent {
  seq: number;
  at: number;
  event: ChangeEvent;
}

export type ChangeListener = (event: ChangeEvent, seq: number) => void;

/** What `since` answers when the events after an id cannot all be given: the reader refetches everything. */
export const RESET = 'reset';

export class ChangeFeed {
  /** Whose ids these are: random per process, so no other daemon or boot shares it. */
  readonly epoch = randomBytes(6).toString('hex');
  readonly #listeners: ChangeListener[] = [];
  /** The latest events, `seq % REPLAY_MAX_EVENTS` each; `#held` of them, ending at `#seq`, are valid. */
  readonly #ring: (FedEvent | undefined)[] = new Array<FedEvent | undefined>(REPLAY_MAX_EVENTS);
  #held = 0;
  #seq = 0;
  #readers = 0;
  /** Whether events are kept: while a stream is open and REPLAY_MAX_AGE_MS after the last one closed (it may come back). */
  #keeping = false;
  #stopKeeping: NodeJS.Timeout | null = null;

  /** The id of the latest event (`<epoch>-0` before the first): where a reader that starts now stands. */
  get position(): string {
    return this.idOf(this.#seq);
  }

  idOf(seq: number): string {
    return `${this.epoch}-${seq}`;
  }

  /** Numbers the event, keeps it for replay while anyone may ask, and hands it to every listener. */
  publish(event: ChangeEvent): void {
    const seq = ++this.#seq;
    // Unless nobody has read the stream for longer than a replay reaches back: then nobody can ask for it.
    if (this.#keeping) {
      this.#ring[seq % REPLAY_MAX_EVENTS] = { seq, at: Date.now(), event };
      if (this.#held < REPLAY_MAX_EVENTS) this.#held++;
    }
    for (const listener of this.#listeners) listener(event, seq);
  }

  /** Calls `listener` with every event published from now on, in order; returns the unsubscribe. */
  subscribe(listener: ChangeListener): () => void {
    this.#listeners.push(listener);
    return () => {
      const at = this.#listeners.indexOf(listener);
      if (at >= 0) this.#listeners.splice(at, 1);
    };
  }

  /** How many event streams are open: the ring is filled only while one is, or was a moment ago. */
  setReaders(count: number): void {
    if (count > 0) {
      if (this.#stopKeeping) clearTimeout(this.#stopKeeping);
      this.#stopKeeping = null;
      this.#keeping = true;
    } else if (this.#readers > 0) {
      this.#stopKeeping = setTimeout(() => this.#drop(), REPLAY_MAX_AGE_MS);
      this.#stopKeeping.unref();
    }
    this.#readers = count;
  }

  /**
   * The events after `lastEventId`, oldest first, or RESET when they cannot all be given: an
   * id of another feed (a restart, another daemon), malformed or ahead of this feed, or one
   * whose next event is no longer kept (past the count or the age).
   */
  since(lastEventId: string): FedEvent[] | typeof RESET {
    const match = /^([0-9a-f]+)-(0|[1-9]\d{0,15})$/.exec(lastEventId);
    if (!match || match[1] !== this.epoch) return RESET;
    const last = Number(match[2]);
    if (last > this.#seq) return RESET;
    if (last === this.#seq) return [];
    const first = last + 1;
    if (first <= this.#seq - this.#held) return RESET;
    const oldest = this.#ring[first % REPLAY_MAX_EVENTS]!;
    if (Date.now() - oldest.at > REPLAY_MAX_AGE_MS) return RESET;
    const missed: FedEvent[] = [];
    for (let seq = first; seq <= this.#seq; seq++) missed.push(this.#ring[seq % REPLAY_MAX_EVENTS]!);
    return missed;
  }

  #drop(): void {
    this.#stopKeeping = null;
    this.#keeping = false;
    this.#ring.fill(undefined);
    this.#held = 0;
  }
}
