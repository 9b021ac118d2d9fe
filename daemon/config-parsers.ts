/**
 * The parsers of the configuration table's rows (daemon/config-table.ts): each takes a set
 * value and the name it came by (the flag or the variable), and either returns the setting or
 * throws a message that names it. Unset values never reach them: the table's defaults apply.
 */
import { readFileSync } from 'node:fs';
import type { Dialect } from '../shared/types.js';
import type { S3Config } from './config-types.js';

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

/** A postgres:// or postgresql:// URL with a host, or null when empty; the error never repeats the password. */
export function parseDatabaseUrl(raw: string, name: string): string | null {
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
export function parseS3(endpoint: string | undefined, endpointName: string, env: NodeJS.ProcessEnv): S3Config | null {
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

export function parseRegistration(raw: string, name: string): 'open' | 'closed' {
  if (raw === 'closed' || raw === 'open') return raw;
  throw new Error(`Invalid ${name}: ${raw} (open or closed)`);
}

/** A whole number of days, 1 or more. */
export function parseTrashDays(raw: string, name: string): number {
  // Up to 100 years: beyond that, deletedAt + days is no longer a date.
  if (!/^[1-9][0-9]{0,4}$/.test(raw) || Number(raw) > 36500)
    throw new Error(`Invalid ${name}: ${raw} (a whole number of days from 1 to 36500)`);
  return Number(raw);
}

/** 1/true/yes or 0/false/no. */
export function parseFlag(raw: string, name: string): boolean {
  if (/^(1|true|yes)$/i.test(raw)) return true;
  if (/^(0|false|no)$/i.test(raw)) return false;
  throw new Error(`Invalid ${name}: ${raw} (1 or 0)`);
}

export function parseDialect(raw: string, name: string): Dialect {
  if (raw === 'nimbus' || raw === 'daneecloud') return raw;
  throw new Error(`Invalid ${name}: ${raw} (nimbus or daneecloud)`);
}

/** Parses a port number; throws on anything that is not 0–65535. */
export function parsePort(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^[0-9]{1,5}$/.test(raw) || Number(raw) > 65535) throw new Error(`Invalid port: ${raw}`);
  return Number(raw);
}

/** A number of seconds, 0 or more (0 turns the rescan off); its message names no rule, as it always has. */
export function parseInterval(raw: string, name: string): number {
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < 0) throw new Error(`Invalid ${name}: ${raw}`);
  return seconds;
}

/** A number above zero (fractions allowed: tests use sub-second timeouts). */
export function positive(raw: string, name: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`Invalid ${name}: ${raw} (a number above 0)`);
  return value;
}

/** A number of 0 or more (0 turns a rule off). */
export function nonNegative(raw: string, name: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`Invalid ${name}: ${raw} (a number, 0 or more)`);
  return value;
}

/** A whole number of 0 or more, up to 10,000 (a count). */
export function nonNegativeInt(raw: string, name: string): number {
  if (!/^[0-9]{1,5}$/.test(raw) || Number(raw) > 10_000) throw new Error(`Invalid ${name}: ${raw} (a whole number from 0 to 10000)`);
  return Number(raw);
}

/** A comma-separated list, blanks dropped. */
export function list(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * The admin key: NIMBUS_API_KEY (or the option), or the contents of NIMBUS_API_KEY_FILE (a
 * container secret, systemd's LoadCredential=), its trailing newline dropped. Both set, or a
 * file missing or empty, stops the start: a daemon must never run with a key other than the
 * one its operator meant.
 */
export function parseApiKey(raw: string | undefined, name: string, env: NodeJS.ProcessEnv): string | null {
  const file = env.NIMBUS_API_KEY_FILE;
  if (!file) return raw ?? null;
  if (raw !== undefined) throw new Error(`${name} and NIMBUS_API_KEY_FILE are both set: set one`);
  let contents: string;
  try {
    contents = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`NIMBUS_API_KEY_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const key = contents.replace(/[\r\n]+$/, '');
  if (key.trim() === '') throw new Error(`NIMBUS_API_KEY_FILE: ${file} is empty`);
  return key;
}
