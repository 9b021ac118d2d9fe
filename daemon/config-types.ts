/**
 * The shape of the daemon's configuration. Each field but `rendererDir` is one row of the
 * configuration table (daemon/config-table.ts), which says its variable, flag, default and
 * parser; resolveConfig (daemon/config.ts) fills it from that table.
 */
import type { Dialect } from '../shared/types.js';
import type { LogLevel } from './logging.js';

/** Everything the daemon is configured by, resolved from options, then NIMBUS_* variables, then defaults. */
export interface DaemonConfig {
  host: string;
  port: number;
  dataDir: string;
  storageDir: string;
  /** Set by NIMBUS_API_KEY or an option: overrides the keychain. */
  apiKey: string | null;
  smtpUrl: string | null;
  mailFrom: string;
  /** Extra Host names allowed besides 127.0.0.1, localhost and [::1] (NIMBUS_ALLOWED_HOSTS, comma-separated). */
  allowedHosts: string[];
  /** Origins granted CORS (NIMBUS_CORS_ORIGINS, comma-separated); none by default. */
  corsOrigins: string[];
  /** Addresses and CIDR ranges that may read /metrics without a key (NIMBUS_METRICS_ALLOW); none by default (docs/metrics.md). */
  metricsAllow: string[];
  /** Base of share and verify links; default http://<host>:<port>. */
  publicUrl: string | null;
  /** Keychain use: 'auto' tries the OS keychain and falls back to a file; 'off' uses the file. */
  keychain: 'auto' | 'off';
  reconcileIntervalMs: number;
  /** A request body that sends no byte for this long is aborted (NIMBUS_BODY_IDLE_SECONDS, default 30). */
  bodyIdleMs: number;
  /**
   * Bytes a second a request body must average once it has been read for `minBodyGraceMs`, else
   * 408 (NIMBUS_MIN_BODY_RATE, default 240 as Kestrel; 0 turns it off). daemon/http/body-timeout.ts.
   */
  minBodyRate: number;
  /** NIMBUS_MIN_BODY_GRACE_SECONDS, default 5. */
  minBodyGraceMs: number;
  /** A client must send a request's headers within this (NIMBUS_HEADERS_TIMEOUT_SECONDS, default 20). */
  headersTimeoutMs: number;
  /** Unsent bytes an event-stream client may hold for 5 s (32 times that at most) before it is dropped (NIMBUS_EVENT_BUFFER_KB, default 1024). */
  eventBufferBytes: number;
  /**
   * Open connections at most; more are refused at once (NIMBUS_MAX_CONNECTIONS, default 2000: twice
   * the bench's 1,000 simultaneous clients, yet below the usual file-handle limit, which Node
   * raises to the hard limit at start), so a flood cannot leave the store without file handles.
   */
  maxConnections: number;
  /** Where the built web UI lives. */
  rendererDir: string;
  /** The response shapes the admin key gets (NIMBUS_ADMIN_DIALECT: nimbus, the default, or daneecloud). */
  adminDialect: Dialect;
  /** Lowest level written to the log file and stderr (--log-level, NIMBUS_LOG_LEVEL; default info). */
  logLevel: LogLevel;
  /** Whether anyone may create an account (`auth.register`): NIMBUS_REGISTRATION=open; closed by default. */
  registration: 'open' | 'closed';
  /** NIMBUS_REQUIRE_VERIFIED=1: a non-admin user with an unverified e-mail may not upload or share. */
  requireVerified: boolean;
  /** Trash items older than this many days are purged (NIMBUS_TRASH_DAYS, a whole number ≥ 1; default 30). */
  trashDays: number;
  /** How many earlier versions of a file are kept (NIMBUS_VERSIONS_KEEP; default 10; 0 keeps none). */
  versionsKeep: number;
  /** Versions older than this many days are dropped (NIMBUS_VERSIONS_DAYS; default 30). */
  versionsDays: number;
  /** A resumable (tus) upload left unfinished this long after its last byte is dropped (NIMBUS_UPLOAD_EXPIRY_HOURS; default 24 h). */
  uploadExpiryMs: number;
  /**
   * PostgreSQL for metadata instead of db.json (--database-url, NIMBUS_DATABASE_URL: a
   * postgres:// or postgresql:// URL); null is the embedded store (docs/cluster.md, "Modes").
   */
  databaseUrl: string | null;
  /** An S3 bucket for file bytes instead of the storage folder (--s3-endpoint, NIMBUS_S3_*); null keeps the folder. */
  s3: S3Config | null;
  /**
   * Object mode: the sweeper deletes an object no row names only once it is this old
   * (NIMBUS_ORPHAN_MIN_AGE_SECONDS, default an hour), so an upload between its object and
   * its row is never taken for an orphan. Tests shorten it to see a sweep.
   */
  orphanMinAgeMs: number;
}

/** Where file bytes live in object mode, and how to reach them (NIMBUS_S3_* variables). */
export interface S3Config {
  /** http(s) URL of the S3 API (NIMBUS_S3_ENDPOINT or --s3-endpoint). */
  endpoint: string;
  /** NIMBUS_S3_BUCKET: required with an endpoint. */
  bucket: string;
  /** NIMBUS_S3_REGION, default us-east-1 (what most S3-compatible stores accept). */
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** NIMBUS_S3_FORCE_PATH_STYLE: `endpoint/bucket/key` URLs (default true: self-hosted stores rarely have per-bucket DNS). */
  forcePathStyle: boolean;
}

export interface ConfigInput {
  host?: string;
  port?: number;
  dataDir?: string;
  storageDir?: string;
  apiKey?: string;
  logLevel?: LogLevel;
  /** --database-url: wins over NIMBUS_DATABASE_URL. */
  databaseUrl?: string;
  /** --s3-endpoint: wins over NIMBUS_S3_ENDPOINT (the other NIMBUS_S3_* variables still apply). */
  s3Endpoint?: string;
}
