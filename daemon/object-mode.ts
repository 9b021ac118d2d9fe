/**
 * Object mode assembled (docs/cluster.md): what daemon/daemon.ts needs when NIMBUS_S3_* is
 * set, in start order. The bucket is made if missing (waited for while the S3 server is still
 * starting: bucket-at-start.ts); the ObjectStorage builds the index
 * from the store's rows (ready at once: there is no scan) and follows other daemons; the
 * quota ledger is the database's when there is one (several daemons), else this process's;
 * the sweeper starts (at once, then every 10 minutes; one daemon at a time with PostgreSQL).
 */
import type { S3Config } from './config.js';
import type { HealthProbe } from './context.js';
import { MemoryQuotaLedger, type QuotaLedger } from './services/quota.js';
import type { Store } from './store/store.js';
import type { FileIndex } from './storage/file-index.js';
import type { ObjectStore } from './storage/objects/object-store.js';
import { S3ObjectStore } from './storage/objects/s3-store.js';
import { WatchedObjectStore } from './storage/objects/watched-store.js';
import { ensureBucketAtStart } from './storage/objects/bucket-at-start.js';
import { ObjectStorage } from './storage/cluster/object-storage.js';
import { PgQuotaLedger } from './services/pg-quota.js';
import { Sweeper, type SweeperOptions } from './storage/cluster/sweeper.js';

export interface ObjectModeOptions {
  /** Opened (db.json or PostgreSQL). */
  store: Store;
  /** Empty: the rows fill it. */
  index: FileIndex;
  /** The bucket's settings (config.s3), or an object store already made (tests). */
  s3: S3Config | ObjectStore;
  log: (line: string) => void;
  /** The sweeper's timings (tests shorten them). */
  sweeper?: Pick<SweeperOptions, 'minAgeMs' | 'intervalMs'>;
  /** How long the start waits for a bucket still starting (tests shorten it). */
  bucketWaitMs?: number;
}

export interface ObjectMode {
  objects: ObjectStore;
  storage: ObjectStorage;
  quota: QuotaLedger;
  sweeper: Sweeper;
  /** For NimbusContext.probes: HeadBucket. */
  probe: HealthProbe;
  /** Stops the sweeper and the ledger's refresh, unsubscribes, closes the S3 client (before store.close()). */
  close(): Promise<void>;
}

export async function startObjectMode(options: ObjectModeOptions): Promise<ObjectMode> {
  const { store, index, log } = options;
  const objects = new WatchedObjectStore('put' in options.s3 ? options.s3 : new S3ObjectStore(options.s3));
  await ensureBucketAtStart(objects, log, options.bucketWaitMs);
  const storage = new ObjectStorage({ store, index, objects, log });
  storage.open();
  const database = store.database;
  const ledger = database ? new PgQuotaLedger(database) : null;
  const quota = ledger ?? new MemoryQuotaLedger();
  const sweeper = new Sweeper({ objects, store, database, log, ...options.sweeper });
  sweeper.start();
  return {
    objects,
    storage,
    quota,
    sweeper,
    probe: { name: 'bucket', check: () => objects.check() },
    async close() {
      await sweeper.stop();
      ledger?.close();
      storage.close();
      objects.close();
    },
  };
}
