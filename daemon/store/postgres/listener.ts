/**
 * The dedicated connection on which a daemon LISTENs for other daemons' changes
 * (docs/cluster.md, "The store"). It is not pooled: a LISTEN belongs to one session. When
 * the connection ends or fails once listening, `onLost` is called once; the backend then
 * reconnects it (with backoff) through `start()` again, which throws if it is lost meanwhile.
 */
import pg from 'pg';
import type { CollectionName } from '../collections.js';

export const CHANGES_CHANNEL = 'nimbus_changes';

/** What a daemon's commit tells the others on CHANGES_CHANNEL (writer.ts sends it, follower.ts reads it). */
export interface ChangeNotice {
  /** The daemon that wrote (PgBackend.origin): it ignores its own. */
  origin: string;
  /** The keys written, by collection. */
  changes?: Partial<Record<CollectionName, string[]>>;
  /** Collections to re-read whole (the keys would not fit in a NOTIFY). */
  reload?: CollectionName[];
}

export class ChangeListener {
  readonly #url: string;
  readonly #onNotification: (payload: string) => void;
  readonly #onLost: (err: Error) => void;
  #client: pg.Client | null = null;

  constructor(url: string, onNotification: (payload: string) => void, onLost: (err: Error) => void) {
    this.#url = url;
    this.#onNotification = onNotification;
    this.#onLost = onLost;
  }

  /** Connects and LISTENs; resolves once notifications from now on will arrive. */
  async start(): Promise<void> {
    await this.stop();
    const client = new pg.Client({ connectionString: this.#url, connectionTimeoutMillis: 5000 });
    let lost: Error | null = null;
    const lose = (err: Error): void => {
      if (lost) return;
      lost = err;
      void client.end().catch(() => undefined);
      // Still starting: start() throws it. Stopped or replaced: nobody needs telling.
      if (this.#client !== client) return;
      this.#client = null;
      this.#onLost(err);
    };
    client.on('error', lose);
    client.on('end', () => lose(new Error('Connection terminated (LISTEN connection)')));
    client.on('notification', (message) => {
      if (message.channel === CHANGES_CHANNEL && message.payload !== undefined) this.#onNotification(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
      // A server shutting down may send its FATAL in the same read as the answer to LISTEN:
      // the connection is gone before it was ever counted as listening.
      if (lost) throw lost;
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    this.#client = client;
  }

  /**
   * Resolves once every notification of a transaction committed before the call has been
   * handed to `onNotification`: PostgreSQL sends a listening session what is queued for it
   * before the answer to its next command, so one round trip on this connection is the barrier.
   */
  async sync(): Promise<void> {
    await this.#client?.query('SELECT 1');
  }

  /** Whether the connection is up and listening. */
  get listening(): boolean {
    return this.#client !== null;
  }

  /** Disconnects without calling onLost. */
  async stop(): Promise<void> {
    const client = this.#client;
    this.#client = null;
    if (client) await client.end().catch(() => undefined);
  }
}
