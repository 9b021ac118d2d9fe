/**
 * What the daemon's parts tell the metrics (docs/metrics.md), connected once at start: the
 * file index and the watcher are read at each scrape (gauges, nothing kept in step), and the
 * store, the database and the bucket are given a hook each, called where they already see
 * every commit and every failure. The HTTP side (requests, event streams) is
 * daemon/http/metrics.ts.
 */
import type { IndexState, WatcherMode } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import type { ObjectStore } from '../storage/objects/object-store.js';
import { WatchedObjectStore } from '../storage/objects/watched-store.js';
import type { Metrics } from '../util/metrics.js';
import { VERSION } from '../version.js';

/** Every value of a union, as a list the compiler keeps complete (a new state is a compile error here until it is listed). */
const allOf = <T extends string>(values: Record<T, true>): T[] => Object.keys(values) as T[];
const INDEX_STATES = allOf<IndexState>({ scanning: true, ready: true, unavailable: true });
const WATCHER_MODES = allOf<WatcherMode>({ inotify: true, polling: true, 'reconcile-only': true, starting: true, none: true });

/**
 * Connects `nimbus`'s parts to its metrics. `bucket`: object mode's object store (its failures
 * are S3 errors); `mode`: the backends (daemon/backends.ts), exported as a label of the build info.
 */
export function observeDaemon(metrics: Metrics, nimbus: NimbusContext, bucket: ObjectStore | null, mode: string): void {
  const { index, store } = nimbus;
  metrics.info('nimbus_build_info', 'The running version and backend mode (always 1)', { version: VERSION, mode });
  metrics.stateGauge(
    'nimbus_index_state',
    'The file index: scanning (first scan), ready, or unavailable (storage gone)',
    'state',
    INDEX_STATES,
    () => index.state,
  );
  metrics.stateGauge(
    'nimbus_watcher_mode',
    'How the storage folder is followed (none: object mode)',
    'mode',
    WATCHER_MODES,
    () => nimbus.watcherMode,
  );
  // totals() is cached by the index until the next change: a scrape does not walk the tree.
  metrics.gauge('nimbus_index_users', 'Users in the file index', () => index.users.size);
  metrics.gauge('nimbus_index_files', 'Files in the file index (trash and versions not included)', () => index.totals().files);
  metrics.gauge('nimbus_index_folders', 'Folders in the file index', () => index.totals().folders);
  metrics.gauge('nimbus_index_bytes', 'Bytes of the files in the file index', () => index.totals().usedBytes);
  store.onCommitted = metrics.committed;
  const database = store.database;
  if (database) {
    database.onError = metrics.postgresErrors();
    metrics.gauge('nimbus_postgres_available', 'Whether the store can reach PostgreSQL (1) or answers 503 until it is back (0)', () =>
      store.available ? 1 : 0,
    );
  }
  if (bucket instanceof WatchedObjectStore) {
    bucket.onFailure = metrics.s3Errors();
    metrics.gauge('nimbus_s3_reachable', 'Whether the bucket answered its last call (1) or failed it (0)', () =>
      bucket.knownUnreachable ? 0 : 1,
    );
  }
}
