import type { WatcherMode } from '../shared/types.js';
import type { DaemonConfig } from './config.js';
import type { AdminKeySource } from './keys/admin-key.js';
import type { Logger } from './logging.js';
import type { Mailer } from './mail.js';
import type { QuotaLedger } from './services/quota.js';
import type { Revocations } from './services/revocations.js';
import type { Sessions } from './services/sessions.js';
import type { ChangeFeed } from './storage/change-feed.js';
import type { FileIndex } from './storage/file-index.js';
import type { FileStorage } from './storage/file-storage.js';
import type { Store } from './store/store.js';
import type { KeyedMutex } from './util/mutex.js';
import type { Metrics } from './util/metrics.js';

/** One thing `GET /api/health` checks (the database, the bucket, the storage folder); rejects when it cannot be reached. */
export interface HealthProbe {
  name: string;
  check: () => Promise<void>;
  /** Whether the daemon already knows, without asking, that this check fails (a store gone unavailable): health then answers anew, not from its cache. */
  failsNow?: () => boolean;
}

/** What every service and handler works with: one per running daemon. */
export interface NimbusContext {
  config: DaemonConfig;
  store: Store;
  index: FileIndex;
  /** The one change feed (storage/change-feed.ts): every change is published here; the event streams read it. */
  changes: ChangeFeed;
  /** The users' bytes: the storage folder (Storage) or S3 (ObjectStorage). */
  storage: FileStorage;
  mailer: Mailer;
  /** Bytes promised to uploads in flight (services/quota.ts): this process's, or every daemon's. */
  quota: QuotaLedger;
  /** Serialises multi-step mutations of one record (a user, a file path). */
  locks: KeyedMutex;
  /** The admin key (kept in memory only, to hand to the desktop shell) and its hash. */
  admin: { key: string; hash: string; source: AdminKeySource };
  startedAt: number;
  /** The daemon's own URL (share and verify links start with it). */
  baseUrl: string;
  /** Top-level directories in storage that belong to no user: left alone, reported in /api/dash. */
  orphans: Set<string>;
  /** How the storage directory is being followed ('none': object mode, whose index is the store's rows). */
  watcherMode: WatcherMode;
  /** Where a deleted key or a rotated admin key is announced, so its streams and connections close. */
  revocations: Revocations;
  /** Signed-in users' sessions (daemon/services/sessions.ts). */
  sessions: Sessions;
  /** Reconciles the index with the disk now (set once the index is built). */
  rescan?: () => Promise<void>;
  /** What `GET /api/health` checks (daemon/services/health.ts); filled in at start for the configured backends. */
  probes: HealthProbe[];
  /** This daemon's logger (daemon/logging.ts): the log file, echoed to stderr. */
  logger: Logger;
  /** A warning line for the log (`logger.warn`); tests passing `DaemonOptions.log` receive these too. */
  log: (line: string) => void;
  /** What /metrics exports (daemon/util/metrics.ts; docs/metrics.md); absent where a context is made without one (benchmarks, service tests). */
  metrics?: Metrics;
}
