/**
 * The PostgreSQL backend (docs/cluster.md, "The store"). The Maps are loaded whole at open;
 * afterwards each `commit()` hands its change-set to the writer (writer.ts), the follower
 * (follower.ts) applies what other daemons wrote, and the recovery (recovery.ts) takes the
 * store through a lost connection. This module connects them and owns their lifecycle.
 */
import { randomBytes } from 'node:crypto';
import { databaseUnavailable } from '../../errors.js';
import type { StoreBackend, StoreHost } from '../backend.js';
import { Database } from './database.js';
import { Follower } from './follower.js';
import type { StoreLog } from './snapshot-read.js';
import { LocalWrites } from './local-writes.js';
import { ChangeListener } from './listener.js';
import { migrate } from './migrate.js';
import { Recovery } from './recovery.js';
import { ChangeWriter, noKnownKeys } from './writer.js';

export type { StoreLog } from './snapshot-read.js';

export interface PgBackendOptions {
  log?: StoreLog;
}

export class PgBackend implements StoreBackend {
  readonly tracksChanges = true;
  readonly database: Database;
  /** Names this daemon in its notifications, so it ignores its own. */
  readonly origin = randomBytes(8).toString('hex');
  readonly #listener: ChangeListener;
  readonly #follower: Follower;
  readonly #writer: ChangeWriter;
  readonly #recovery: Recovery;
  #host: StoreHost | null = null;

  private constructor(database: Database, options: PgBackendOptions) {
    this.database = database;
    const { log } = options;
    const known = noKnownKeys();
    const localWrites = new LocalWrites();
    const host = () => this.#host!;
    const lost = (err: Error) => this.#recovery.lost(err);
    this.#listener = new ChangeListener(database.url, (payload) => this.#follower.received(payload), lost);
    this.#follower = new Follower({ database, listener: this.#listener, origin: this.origin, known, localWrites, host, lost, log });
    this.#writer = new ChangeWriter({
      database,
      origin: this.origin,
      known,
      localWrites,
      lost,
      reread: (changes) => this.#follower.reread(changes),
    });
    this.#recovery = new Recovery({ listener: this.#listener, resync: () => this.#follower.resync(), host: () => this.#host, log });
  }

  /** Connects to `url` and brings its schema up to date (the Store's `open()` loads it). */
  static async connect(url: string, options: PgBackendOptions = {}): Promise<PgBackend> {
    const database = await Database.connect(url, { log: options.log });
    try {
      await migrate(database);
    } catch (err) {
      await database.close().catch(() => undefined);
      throw err;
    }
    return new PgBackend(database, options);
  }

  async open(host: StoreHost): Promise<void> {
    this.#host = host;
    // LISTEN before loading: a change committed after the load is then always notified.
    await this.#listener.start();
    await this.#follower.load();
  }

  commit(): Promise<void> {
    // While unavailable the dirty keys stay where they are: the resync that ends the outage drops them.
    if (!this.#recovery.available) return Promise.reject(databaseUnavailable());
    return this.#writer.commit(this.#host!);
  }

  async idle(): Promise<void> {
    await this.#writer.idle();
  }

  /** Resolves once the Maps hold every commit other daemons made before the call (follower.ts). */
  async catchUp(strict?: boolean): Promise<void> {
    await this.#follower.catchUp(strict);
  }

  async close(): Promise<void> {
    await this.idle();
    await this.#recovery.close();
    // After the recovery: one in flight may have just reconnected.
    await this.#listener.stop();
    await this.#follower.settled();
    await this.database.close();
  }
}
