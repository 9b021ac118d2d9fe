/**
 * The configured backends, opened (docs/cluster.md, "Modes"): where metadata lives (db.json
 * or PostgreSQL) and where bytes live (the storage folder or an S3 bucket). With nothing
 * configured this is exactly the embedded program: db.json and the plain storage folder.
 *
 * pg and the object mode (the AWS SDK) are imported only by the modes that use them: at
 * the top they cost every embedded start ~60 ms (pg) and ~350 ms (the SDK) of CPU before
 * listening, of ~850 ms in all (issue 15). A mode that uses them loads them once, at start.
 */
import path from 'node:path';
import type pg from 'pg';
import type { DaemonConfig } from './config.js';
import type { HealthProbe } from './context.js';
import type { Logger } from './logging.js';
import type { ObjectMode } from './object-mode.js';
import type { FileIndex } from './storage/file-index.js';
import { Store } from './store/store.js';

/**
 * - `embedded`: db.json + the storage folder (the default);
 * - `postgres`: PostgreSQL + the storage folder (one machine, one daemon);
 * - `object`: db.json + S3 (one daemon);
 * - `cluster`: PostgreSQL + S3, any number of daemons.
 */
export type BackendMode = 'embedded' | 'postgres' | 'object' | 'cluster';

export function backendMode(config: Pick<DaemonConfig, 'databaseUrl' | 's3'>): BackendMode {
  if (config.databaseUrl) return config.s3 ? 'cluster' : 'postgres';
  return config.s3 ? 'object' : 'embedded';
}

/**
 * Daemons sharing PostgreSQL and a bucket must accept the same admin key, and each machine's
 * keychain would give each its own: the cluster mode takes it from NIMBUS_API_KEY. (Checked
 * at the daemon's start, not in resolveConfig: `nimbus migrate` needs no admin key.)
 */
export function assertSharedAdminKey(config: Pick<DaemonConfig, 'databaseUrl' | 's3' | 'apiKey'>): void {
  if (backendMode(config) === 'cluster' && !config.apiKey)
    throw new Error(
      'With NIMBUS_DATABASE_URL and NIMBUS_S3_ENDPOINT, several daemons share one admin key: set NIMBUS_API_KEY (the same on every daemon).',
    );
}

/** Only PostgreSQL + S3 shares everything between daemons; every other mode has one daemon per data directory. */
export const needsDataDirLock = (mode: BackendMode): boolean => mode !== 'cluster';

/** PostgreSQL with a local storage folder: the database holds one folder's metadata, so one daemon (this lock's holder) uses it. */
const LOCAL_DISK_LOCK = 0x6e696d64; // "nimd"

export interface OpenedBackends {
  mode: BackendMode;
  store: Store;
  /** Object mode's storage, quota ledger, sweeper and bucket probe; null when bytes are in the storage folder. */
  objects: ObjectMode | null;
  /** The database's probe (the bucket's is in `objects`). */
  probes: HealthProbe[];
  /** Stops what runs beside the store (sweeper, S3 client, the local-disk lock): before store.close(). */
  closeBeforeStore(): Promise<void>;
}

export async function openBackends(
  config: DaemonConfig,
  index: FileIndex,
  logger: Logger,
  log: (line: string) => void,
): Promise<OpenedBackends> {
  const mode = backendMode(config);
  const store = config.databaseUrl
    ? await Store.openPostgres(config.databaseUrl, { log: logger })
    : new Store(path.join(config.dataDir, 'db.json'));
  // Opened before anything may close it: closing a db.json store refreshes its backup from
  // the file, and a file that failed to open must never replace the last good copy.
  if (!config.databaseUrl) await store.open();
  const undo: (() => Promise<void> | void)[] = [() => store.close()];
  try {
    const probes: HealthProbe[] = [];
    const database = store.database;
    if (database) {
      probes.push({
        name: 'database',
        check: async () => {
          if (!store.available) throw new Error('the database cannot be reached');
          await database.query('SELECT 1');
        },
        failsNow: () => !store.available,
      });
    }
    let diskLock: pg.Client | null = null;
    if (mode === 'postgres') {
      diskLock = await holdLocalDiskLock(config.databaseUrl!);
      undo.push(() => diskLock?.end());
    }
    const objects = config.s3
      ? await (
          await import('./object-mode.js')
        ).startObjectMode({ store, index, s3: config.s3, log, sweeper: { minAgeMs: config.orphanMinAgeMs } })
      : null;
    return {
      mode,
      store,
      objects,
      probes,
      async closeBeforeStore() {
        await objects?.close();
        await diskLock?.end().catch(() => undefined);
      },
    };
  } catch (err) {
    for (const step of undo.reverse()) await Promise.resolve(step()).catch(() => undefined);
    throw err;
  }
}

/**
 * Holds a session-level advisory lock on its own connection for the daemon's life. A second
 * daemon pointed at the same database with another storage folder would list files that
 * are not on its disk and let shares point at nothing: it refuses to start instead.
 */
async function holdLocalDiskLock(url: string): Promise<pg.Client> {
  const { default: pgModule } = await import('pg');
  const client = new pgModule.Client({ connectionString: url });
  // A dropped connection releases the lock on the server; the daemon goes on (the store notices the outage itself).
  client.on('error', () => undefined);
  await client.connect();
  const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [LOCAL_DISK_LOCK]);
  if (!rows[0]?.locked) {
    await client.end();
    throw new Error(
      'Another Nimbus daemon uses this database with its own storage folder. With PostgreSQL and a local storage folder one daemon ' +
        'serves the database; to run several, keep the files in S3 as well (NIMBUS_S3_ENDPOINT, docs/scaling.md).',
    );
  }
  return client;
}
