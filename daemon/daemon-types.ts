/** What startDaemon (daemon/daemon.ts) takes and returns; daemon/index.ts publishes them to main/ and tests. */
import type { Routing } from './http/app.js';
import type { Logger, LogLevel } from './logging.js';
import type { WatchFactory } from './storage/watcher.js';

export interface DaemonOptions {
  host?: string;
  /** 0 picks a free port. Default 7878. */
  port?: number;
  dataDir?: string;
  storageDir?: string;
  /** Sets the admin key (as NIMBUS_API_KEY does) instead of the keychain's. */
  apiKey?: string;
  /** PostgreSQL for metadata (as NIMBUS_DATABASE_URL; wins over it). */
  databaseUrl?: string;
  /** An S3 endpoint for file bytes (as NIMBUS_S3_ENDPOINT; wins over it; the other NIMBUS_S3_* still apply). */
  s3Endpoint?: string;
  /** Environment to read NIMBUS_* settings from; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /**
   * Receives each warning line (`NimbusContext.log`) as well as the log file; when given,
   * nothing is echoed to stderr (tests pass it to read or silence the lines).
   */
  log?: (line: string) => void;
  /** trace, debug, info (default), warn, error, fatal or silent; as NIMBUS_LOG_LEVEL. */
  logLevel?: LogLevel;
  /** Subscribes to the storage directory (@parcel/watcher by default); tests pass one that fails or stays silent. */
  watchFactory?: WatchFactory;
  /** How requests find their endpoint (the endpoint table's Map lookup by default); the bench passes @koa/router to compare. */
  routing?: Routing;
}

export interface RunningDaemon {
  /** e.g. http://127.0.0.1:7878 */
  url: string;
  host: string;
  port: number;
  dataDir: string;
  storageDir: string;
  /** The log folder, `<data-dir>/logs` (the current file is `nimbus.log` in it). */
  logDir: string;
  /** This daemon's logger: the desktop shell logs through it into the same file. Silent once closed. */
  logger: Logger;
  /** The admin key (from NIMBUS_API_KEY, the keychain or the key file). */
  adminKey(): string;
  /** Stops accepting requests, lets in-flight writes finish, releases the lock. */
  close(): Promise<void>;
}
