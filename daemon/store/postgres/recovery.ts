/**
 * The PostgreSQL backend through an outage (docs/cluster.md, "The store"): a lost connection
 * makes the store unavailable (commits reject 503) until the LISTEN connection is back and
 * everything has been re-read: notifications sent meanwhile were missed, so the resync
 * compares every record and reports each difference as a remote change.
 */
import type { StoreHost } from '../backend.js';
import type { StoreLog } from './snapshot-read.js';
import type { ChangeListener } from './listener.js';

const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 5000;

export interface RecoveryDeps {
  listener: ChangeListener;
  /** Re-reads everything into the Maps (Follower.resync). */
  resync(): Promise<void>;
  /** The store, once the backend is open (null before). */
  host(): StoreHost | null;
  log: StoreLog | undefined;
}

export class Recovery {
  readonly #deps: RecoveryDeps;
  #available = true;
  #recovering: Promise<void> | null = null;
  /** Ends the wait between two reconnection attempts (at close). */
  #wake: (() => void) | null = null;
  #closed = false;

  constructor(deps: RecoveryDeps) {
    this.#deps = deps;
  }

  /** False from a lost connection until the resync that ends the outage. */
  get available(): boolean {
    return this.#available;
  }

  /** The database went away: unavailable until the LISTEN connection is back and everything re-read. */
  lost(err: Error): void {
    if (this.#closed || this.#recovering) return;
    this.#available = false;
    this.#deps.host()?.setAvailable(false);
    this.#deps.log?.warn({ err: err.message }, 'store: the database cannot be reached; retrying');
    this.#recovering = this.#recover().finally(() => (this.#recovering = null));
  }

  /** Stops retrying and waits for an attempt in flight (it may have just reconnected). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wake?.();
    await this.#recovering?.catch(() => undefined);
  }

  async #recover(): Promise<void> {
    const { listener, log } = this.#deps;
    let delay = RECONNECT_FIRST_MS;
    while (!this.#closed) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = null;
      if (this.#closed) return;
      try {
        await listener.start();
        await this.#deps.resync();
        if (this.#closed) return;
        // Lost again during the resync (its onLost was ignored while recovering): once more.
        if (!listener.listening) throw new Error('The LISTEN connection dropped during the resync');
        this.#available = true;
        this.#deps.host()?.setAvailable(true);
        log?.info({}, 'store: the database is back; resynchronised');
        return;
      } catch {
        delay = Math.min(delay * 2, RECONNECT_MAX_MS);
      }
    }
  }
}
