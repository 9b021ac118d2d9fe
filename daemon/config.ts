import os from 'node:os';
import path from 'node:path';
import type { Dialect } from '../shared/types.js';
import { parseLogLevel, type LogLevel } from './logging.js';

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

export const DEFAULT_PORT = 7878;

/** The data directory the OS conventions give (XDG on Linux). */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Nimbus');
  if (process.platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Nimbus');
  return path.join(env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'nimbus');
}

export function resolveConfig(input: ConfigInput, env: NodeJS.ProcessEnv, rendererDir: string): DaemonConfig {
  const dataDir = path.resolve(input.dataDir ?? env.NIMBUS_DATA_DIR ?? defaultDataDir(env));
  const port = input.port ?? parsePort(env.NIMBUS_PORT) ?? DEFAULT_PORT;
  return {
    host: input.host ?? env.NIMBUS_HOST ?? '127.0.0.1',
    port,
    dataDir,
    storageDir: path.resolve(input.storageDir ?? env.NIMBUS_STORAGE_DIR ?? path.join(dataDir, 'storage')),
    apiKey: input.apiKey ?? (env.NIMBUS_API_KEY || null),
    smtpUrl: env.NIMBUS_SMTP_URL || null,
    mailFrom: env.NIMBUS_MAIL_FROM || 'Nimbus <nimbus@localhost>',
    allowedHosts: list(env.NIMBUS_ALLOWED_HOSTS),
    corsOrigins: list(env.NIMBUS_CORS_ORIGINS),
    publicUrl: env.NIMBUS_PUBLIC_URL ? env.NIMBUS_PUBLIC_URL.replace(/\/+$/, '') : null,
    keychain: env.NIMBUS_KEYCHAIN === 'off' ? 'off' : 'auto',
    reconcileIntervalMs: parseInterval(env.NIMBUS_RECONCILE_SECONDS) ?? 10 * 60_000,
    bodyIdleMs: (positive(env, 'NIMBUS_BODY_IDLE_SECONDS') ?? 30) * 1000,
    minBodyRate: nonNegative(env, 'NIMBUS_MIN_BODY_RATE') ?? 240,
    minBodyGraceMs: (nonNegative(env, 'NIMBUS_MIN_BODY_GRACE_SECONDS') ?? 5) * 1000,
    headersTimeoutMs: (positive(env, 'NIMBUS_HEADERS_TIMEOUT_SECONDS') ?? 20) * 1000,
    eventBufferBytes: Math.round((positive(env, 'NIMBUS_EVENT_BUFFER_KB') ?? 1024) * 1024),
    maxConnections: Math.round(positive(env, 'NIMBUS_MAX_CONNECTIONS') ?? 2000),
    rendererDir,
    adminDialect: parseDialect(env.NIMBUS_ADMIN_DIALECT),
    logLevel: input.logLevel ?? parseLogLevel(env.NIMBUS_LOG_LEVEL, 'NIMBUS_LOG_LEVEL') ?? 'info',
    registration: parseRegistration(env.NIMBUS_REGISTRATION),
    requireVerified: parseFlag(env.NIMBUS_REQUIRE_VERIFIED, 'NIMBUS_REQUIRE_VERIFIED'),
    trashDays: parseTrashDays(env.NIMBUS_TRASH_DAYS),
    databaseUrl: parseDatabaseUrl(
      input.databaseUrl ?? env.NIMBUS_DATABASE_URL,
      input.databaseUrl ? '--database-url' : 'NIMBUS_DATABASE_URL',
    ),
    s3: parseS3(input.s3Endpoint ?? env.NIMBUS_S3_ENDPOINT, input.s3Endpoint ? '--s3-endpoint' : 'NIMBUS_S3_ENDPOINT', env),
    orphanMinAgeMs: (positive(env, 'NIMBUS_ORPHAN_MIN_AGE_SECONDS') ?? 60 * 60) * 1000,
  };
}

/**
 * A URL as it may be logged or shown: the password replaced by `***`
 * (postgres://nimbus:***@db:5432/nimbus). Anything that does not parse as a URL is not
 * shown at all: it could be a password pasted in the wrong place.
 */
export function redactUrl(raw: string): string {
  const url = parseUrl(raw);
  if (!url) return '(not a URL)';
  if (url.password) url.password = '***';
  return url.toString();
}

/**
 * `scheme://…` parsed, or null. WHATWG's parser also accepts `word:anything` as an opaque
 * URL, so "nimbus:hunter2 at db" would parse (and be shown whole): only URLs with an
 * authority part count.
 */
function parseUrl(raw: string): URL | null {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) return null;
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

/** A postgres:// or postgresql:// URL with a host, or null when unset; the error never repeats the password. */
function parseDatabaseUrl(raw: string | undefined, name: string): string | null {
  if (!raw) return null;
  const url = parseUrl(raw);
  // Said without the value: what does not parse cannot be redacted reliably.
  if (!url) throw new Error(`Invalid ${name}: not a URL (expected postgres://user:password@host:5432/database)`);
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new Error(`Invalid ${name}: ${redactUrl(raw)} (expected a postgres:// or postgresql:// URL)`);
  // `postgres:///db?host=/run/postgresql` (a Unix socket, as libpq allows) has no host part.
  if (!url.hostname && !url.searchParams.get('host'))
    throw new Error(`Invalid ${name}: ${redactUrl(raw)} has no host (postgres://user:password@host:5432/database)`);
  return raw;
}

/** The S3 settings when an endpoint is set (flag or variable), else null; each mistake named by its variable. */
function parseS3(endpoint: string | undefined, endpointName: string, env: NodeJS.ProcessEnv): S3Config | null {
  if (!endpoint) {
    // A bucket without an endpoint would be silently ignored: the operator meant object mode.
    if (env.NIMBUS_S3_BUCKET) throw new Error('NIMBUS_S3_BUCKET is set but NIMBUS_S3_ENDPOINT is not (set both, or neither)');
    return null;
  }
  const url = parseUrl(endpoint);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new Error(`Invalid ${endpointName}: ${url ? redactUrl(endpoint) : 'not a URL'} (expected an http:// or https:// URL)`);
  if (url.username || url.password)
    throw new Error(`Invalid ${endpointName}: put credentials in NIMBUS_S3_ACCESS_KEY_ID and NIMBUS_S3_SECRET_ACCESS_KEY, not in the URL`);
  const bucket = env.NIMBUS_S3_BUCKET ?? '';
  if (!bucket) throw new Error(`NIMBUS_S3_BUCKET is required when ${endpointName} is set`);
  if (!isBucketName(bucket))
    throw new Error(
      `Invalid NIMBUS_S3_BUCKET: ${bucket} (3 to 63 characters: lower-case letters, digits, dots and hyphens, starting and ending with a letter or digit)`,
    );
  const accessKeyId = env.NIMBUS_S3_ACCESS_KEY_ID ?? '';
  const secretAccessKey = env.NIMBUS_S3_SECRET_ACCESS_KEY ?? '';
  // Required rather than left to the SDK's default chain: a daemon that silently picked up
  // ~/.aws or an instance role would write to a bucket nobody configured for it.
  if (!accessKeyId || !secretAccessKey) {
    const missing = [!accessKeyId && 'NIMBUS_S3_ACCESS_KEY_ID', !secretAccessKey && 'NIMBUS_S3_SECRET_ACCESS_KEY'].filter(Boolean);
    throw new Error(
      `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} required when ${endpointName} is set (both, or neither with no endpoint)`,
    );
  }
  return {
    endpoint: endpoint.replace(/\/+$/, ''),
    bucket,
    region: env.NIMBUS_S3_REGION || 'us-east-1',
    accessKeyId,
    secretAccessKey,
    forcePathStyle: env.NIMBUS_S3_FORCE_PATH_STYLE ? parseFlag(env.NIMBUS_S3_FORCE_PATH_STYLE, 'NIMBUS_S3_FORCE_PATH_STYLE') : true,
  };
}

/** S3's bucket naming rules (the ones every implementation shares): 3–63 of a-z 0-9 . -, no "..", not an IP address. */
function isBucketName(name: string): boolean {
  return /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(name) && !name.includes('..') && !/^\d+\.\d+\.\d+\.\d+$/.test(name);
}

function parseRegistration(raw: string | undefined): 'open' | 'closed' {
  if (!raw || raw === 'closed') return 'closed';
  if (raw === 'open') return 'open';
  throw new Error(`Invalid NIMBUS_REGISTRATION: ${raw} (open or closed)`);
}

/** A whole number of days, 1 or more (unset: 30). */
function parseTrashDays(raw: string | undefined): number {
  if (!raw) return 30;
  // Up to 100 years: beyond that, deletedAt + days is no longer a date.
  if (!/^[1-9][0-9]{0,4}$/.test(raw) || Number(raw) > 36500)
    throw new Error(`Invalid NIMBUS_TRASH_DAYS: ${raw} (a whole number of days from 1 to 36500)`);
  return Number(raw);
}

/** 1/true/yes or 0/false/no (unset: false). */
function parseFlag(raw: string | undefined, name: string): boolean {
  if (!raw) return false;
  if (/^(1|true|yes)$/i.test(raw)) return true;
  if (/^(0|false|no)$/i.test(raw)) return false;
  throw new Error(`Invalid ${name}: ${raw} (1 or 0)`);
}

function parseDialect(raw: string | undefined): Dialect {
  if (!raw || raw === 'nimbus') return 'nimbus';
  if (raw === 'daneecloud') return 'daneecloud';
  throw new Error(`Invalid NIMBUS_ADMIN_DIALECT: ${raw} (nimbus or daneecloud)`);
}

/** Parses a port number; throws on anything that is not 0–65535. */
export function parsePort(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^[0-9]{1,5}$/.test(raw) || Number(raw) > 65535) throw new Error(`Invalid port: ${raw}`);
  return Number(raw);
}

function parseInterval(raw: string | undefined): number | undefined {
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < 0) throw new Error(`Invalid NIMBUS_RECONCILE_SECONDS: ${raw}`);
  return seconds * 1000;
}

/** A number above zero (fractions allowed: tests use sub-second timeouts), or undefined when unset. */
function positive(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`Invalid ${name}: ${raw} (a number above 0)`);
  return value;
}

/** A number of 0 or more (0 turns a rule off), or undefined when unset. */
function nonNegative(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`Invalid ${name}: ${raw} (a number, 0 or more)`);
  return value;
}

function list(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
