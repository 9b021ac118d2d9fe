/**
 * The configuration table: one row per NIMBUS_* setting, the way shared/endpoints.ts is one
 * row per route. resolveConfig (daemon/config.ts) resolves each row (its flag, else its
 * variable, else its default), `nimbus --help` and the README's configuration table are
 * printed from it (daemon/config-docs.ts), and test/daemon/config-table.test.ts fails when
 * the README's copy differs.
 */
import os from 'node:os';
import path from 'node:path';
import type { ConfigInput, DaemonConfig } from './config-types.js';
import * as parse from './config-parsers.js';
import { LOG_LEVELS, parseLogLevel } from './logging.js';
import { parseAddressList } from './util/metrics-allow.js';

/** The README's sections of the table, in order. */
export const SETTING_GROUPS = {
  daemon: 'The daemon',
  accounts: 'Accounts and mail',
  files: 'Files',
  limits: 'Limits',
  cluster: 'Beyond one machine',
} as const;

type Env = NodeJS.ProcessEnv;

/** One setting. `key` is the DaemonConfig field it fills, or null for a part another row reads (the S3 bucket). */
export interface Setting<K extends keyof DaemonConfig = keyof DaemonConfig> {
  env: `NIMBUS_${string}`;
  /** The flag that wins over the variable, with its placeholder (`--port <n>`); its ConfigInput option is its camelCased name. */
  flag?: `--${string} <${string}>`;
  key: K | null;
  /** The ConfigInput option of a row with no flag (DaemonOptions.apiKey). */
  option?: keyof ConfigInput;
  group: keyof typeof SETTING_GROUPS;
  /** A set value (the flag's, even empty, else the variable's when not empty), and the name it came by, for messages. */
  parse?: (raw: string, name: string, env: Env) => DaemonConfig[K];
  /** The value when neither is set; it may read settings of earlier rows. */
  fallback?: (env: Env, earlier: Partial<DaemonConfig>) => DaemonConfig[K];
  /** An empty variable is a value (`NIMBUS_HOST=` listens on every address), not "unset". */
  keepsEmpty?: true;
  /** The option is typed (ConfigInput.port is a number): the command line parses the flag before it builds the input. */
  typed?: true;
  /** The default as the help shows it (Markdown: `code` and plain words). */
  shown: string;
  /** What it does, one line; `more` is for the README only. */
  help: string;
  more?: string;
}

const setting = <K extends keyof DaemonConfig>(row: Setting<K> & { key: K }): Setting<K> => row;
/** A variable another row's parser reads (the S3 endpoint's reads the bucket, region, keys and path style). */
const part = (row: Omit<Setting<never>, 'key' | 'parse' | 'fallback'>): Setting<never> => ({ ...row, key: null });
const text = (raw: string) => raw;
const seconds = (read: (raw: string, name: string) => number) => (raw: string, name: string) => read(raw, name) * 1000;

export const DEFAULT_PORT = 7878;

/** The data directory the OS conventions give (XDG on Linux). */
export function defaultDataDir(env: Env = process.env): string {
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Nimbus');
  if (process.platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Nimbus');
  return path.join(env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'nimbus');
}

/** Every setting, in the order they are resolved (a fallback may read an earlier row's value). One row, one call. */
// prettier-ignore
export const SETTINGS = [
  setting({ env: 'NIMBUS_HOST', flag: '--host <addr>', key: 'host', group: 'daemon', keepsEmpty: true,
    parse: text, fallback: () => '127.0.0.1',
    shown: '`127.0.0.1`', help: 'Address to listen on' }),
  setting({ env: 'NIMBUS_PORT', flag: '--port <n>', key: 'port', group: 'daemon', typed: true,
    parse: (raw) => parse.parsePort(raw)!, fallback: () => DEFAULT_PORT,
    shown: `\`${DEFAULT_PORT}\``, help: 'Port to listen on; `0` picks a free one' }),
  setting({ env: 'NIMBUS_DATA_DIR', flag: '--data-dir <dir>', key: 'dataDir', group: 'daemon', keepsEmpty: true,
    parse: (raw) => path.resolve(raw), fallback: (env) => path.resolve(defaultDataDir(env)),
    shown: '`$XDG_DATA_HOME/nimbus` (`~/.local/share/nimbus`); `~/Library/Application Support/Nimbus` on macOS; '
      + '`%APPDATA%\\Nimbus` on Windows',
    help: 'Store, keys, logs, outbox' }),
  setting({ env: 'NIMBUS_STORAGE_DIR', flag: '--storage-dir <dir>', key: 'storageDir', group: 'daemon', keepsEmpty: true,
    parse: (raw) => path.resolve(raw), fallback: (_env, { dataDir }) => path.resolve(dataDir!, 'storage'),
    shown: '`<data-dir>/storage`', help: 'User files' }),
  setting({ env: 'NIMBUS_LOG_LEVEL', flag: '--log-level <level>', key: 'logLevel', group: 'daemon', typed: true,
    parse: (raw, name) => parseLogLevel(raw, name)!, fallback: () => 'info',
    shown: '`info`', help: `Lowest level logged: ${LOG_LEVELS.map((level) => `\`${level}\``).join(', ')}`,
    more: 'the log is `<data-dir>/logs/nimbus.log` (see "Logs")' }),
  setting({ env: 'NIMBUS_API_KEY', key: 'apiKey', option: 'apiKey', group: 'daemon',
    parse: (raw, name, env) => parse.parseApiKey(raw, name, env), fallback: (env) => parse.parseApiKey(undefined, 'NIMBUS_API_KEY', env),
    shown: 'from the OS keychain, generated on first start', help: 'The admin key, instead of the keychain’s (automation)' }),
  part({ env: 'NIMBUS_API_KEY_FILE', group: 'daemon', shown: 'none',
    help: 'A file holding the admin key (a container secret, systemd’s `LoadCredential=`): read at start, its trailing newline dropped; not with NIMBUS_API_KEY' }),
  setting({ env: 'NIMBUS_KEYCHAIN', key: 'keychain', group: 'daemon',
    parse: (raw) => (raw === 'off' ? 'off' : 'auto'), fallback: () => 'auto',
    shown: 'the keychain', help: '`off` keeps the admin key in `<data-dir>/admin.key` instead of the OS keychain' }),
  setting({ env: 'NIMBUS_PUBLIC_URL', key: 'publicUrl', group: 'daemon',
    parse: (raw) => raw.replace(/\/+$/, ''), fallback: () => null,
    shown: 'the daemon’s own URL', help: 'Base of share and verification links' }),
  setting({ env: 'NIMBUS_ALLOWED_HOSTS', key: 'allowedHosts', group: 'daemon',
    parse: parse.list, fallback: () => [],
    shown: 'none', help: 'Extra `Host` names to answer to, comma-separated (DNS rebinding is refused)' }),
  setting({ env: 'NIMBUS_CORS_ORIGINS', key: 'corsOrigins', group: 'daemon',
    parse: parse.list, fallback: () => [],
    shown: 'none', help: 'Origins allowed to call the API from a browser, comma-separated' }),
  setting({ env: 'NIMBUS_METRICS_ALLOW', key: 'metricsAllow', group: 'daemon',
    parse: parseAddressList, fallback: () => [],
    shown: 'none (a key is needed)',
    help: 'Addresses and CIDR ranges that may read `/metrics` without a key, comma-separated (docs/metrics.md)' }),
  setting({ env: 'NIMBUS_ADMIN_DIALECT', key: 'adminDialect', group: 'daemon',
    parse: parse.parseDialect, fallback: () => 'nimbus',
    shown: '`nimbus`', help: 'The admin key’s response shapes: `nimbus` or `daneecloud` (see "Dialects")' }),
  setting({ env: 'NIMBUS_REGISTRATION', key: 'registration', group: 'accounts',
    parse: parse.parseRegistration, fallback: () => 'closed',
    shown: '`closed`', help: '`open` lets anyone create an account (`POST /api/auth/register`; see "Accounts")' }),
  setting({ env: 'NIMBUS_REQUIRE_VERIFIED', key: 'requireVerified', group: 'accounts',
    parse: parse.parseFlag, fallback: () => false,
    shown: '`0`', help: '`1`: a user whose e-mail is not verified may sign in and read, but not upload or share' }),
  setting({ env: 'NIMBUS_SMTP_URL', key: 'smtpUrl', group: 'accounts',
    parse: text, fallback: () => null,
    shown: 'none: mail is written to `<data-dir>/outbox/*.eml`', help: '`smtp://user:pass@host:587` to send mail' }),
  setting({ env: 'NIMBUS_MAIL_FROM', key: 'mailFrom', group: 'accounts',
    parse: text, fallback: () => 'Nimbus <nimbus@localhost>',
    shown: '`Nimbus <nimbus@localhost>`', help: 'Sender of verification and reset mail' }),
  setting({ env: 'NIMBUS_RECONCILE_SECONDS', key: 'reconcileIntervalMs', group: 'files',
    parse: seconds(parse.parseInterval), fallback: () => 600_000,
    shown: '`600`', help: 'Full rescan of the storage folder every this many seconds; `0` turns it off' }),
  setting({ env: 'NIMBUS_TRASH_DAYS', key: 'trashDays', group: 'files',
    parse: parse.parseTrashDays, fallback: () => 30,
    shown: '`30`', help: 'Trash items older than this many days are deleted for good (a whole number from 1)',
    more: 'looked for at start and every hour' }),
  setting({ env: 'NIMBUS_UPLOAD_EXPIRY_HOURS', key: 'uploadExpiryMs', group: 'files',
    parse: (raw, name) => parse.positive(raw, name) * 3_600_000, fallback: () => 24 * 3_600_000,
    shown: '`24`', help: 'An unfinished resumable upload (tus, `/api/uploads/`) is dropped this many hours after its last byte',
    more: 'its quota freed; fractions allowed; see docs/uploads.md' }),
  setting({ env: 'NIMBUS_VERSIONS_KEEP', key: 'versionsKeep', group: 'files',
    parse: parse.nonNegativeInt, fallback: () => 10,
    shown: '`10`', help: 'How many earlier versions of a file an overwrite keeps (0: none)',
    more: 'see docs/versions.md' }),
  setting({ env: 'NIMBUS_VERSIONS_DAYS', key: 'versionsDays', group: 'files',
    parse: parse.positive, fallback: () => 30,
    shown: '`30`', help: 'Versions older than this many days are dropped (fractions allowed)',
    more: 'looked for at start and every hour; the oldest go first when the quota is short' }),
  setting({ env: 'NIMBUS_BODY_IDLE_SECONDS', key: 'bodyIdleMs', group: 'limits',
    parse: seconds(parse.positive), fallback: () => 30_000,
    shown: '`30`', help: 'A request body that sends no byte this long gets 408',
    more: 'its connection is closed too; a download gets 10× this' }),
  setting({ env: 'NIMBUS_MIN_BODY_RATE', key: 'minBodyRate', group: 'limits',
    parse: parse.nonNegative, fallback: () => 240,
    shown: '`240`', help: 'Bytes/s a request body must average after the grace period, else 408; `0` turns it off',
    more: 'the daemon’s own pauses don’t count (Kestrel’s minimum request body data rate)' }),
  setting({ env: 'NIMBUS_MIN_BODY_GRACE_SECONDS', key: 'minBodyGraceMs', group: 'limits',
    parse: seconds(parse.nonNegative), fallback: () => 5000,
    shown: '`5`', help: 'Seconds of reading before `NIMBUS_MIN_BODY_RATE` applies' }),
  setting({ env: 'NIMBUS_HEADERS_TIMEOUT_SECONDS', key: 'headersTimeoutMs', group: 'limits',
    parse: seconds(parse.positive), fallback: () => 20_000,
    shown: '`20`', help: 'Request headers must be complete within this' }),
  setting({ env: 'NIMBUS_EVENT_BUFFER_KB', key: 'eventBufferBytes', group: 'limits',
    parse: (raw, name) => Math.round(parse.positive(raw, name) * 1024), fallback: () => 1024 * 1024,
    shown: '`1024`', help: 'An event stream whose client lets more than this sit unread for 5 seconds (or 32× this at once) is dropped' }),
  setting({ env: 'NIMBUS_MAX_CONNECTIONS', key: 'maxConnections', group: 'limits',
    parse: (raw, name) => Math.round(parse.positive(raw, name)), fallback: () => 2000,
    shown: '`2000`', help: 'Open connections at most; more are refused at once, with one log line' }),
  setting({ env: 'NIMBUS_DATABASE_URL', flag: '--database-url <url>', key: 'databaseUrl', group: 'cluster',
    parse: parse.parseDatabaseUrl, fallback: () => null,
    shown: 'none: metadata in `<data-dir>/db.json`', help: '`postgres://user:password@host:5432/db` puts metadata in PostgreSQL',
    more: 'see "Beyond one machine"' }),
  setting({ env: 'NIMBUS_S3_ENDPOINT', flag: '--s3-endpoint <url>', key: 's3', group: 'cluster',
    parse: parse.parseS3, fallback: (env) => parse.parseS3(undefined, 'NIMBUS_S3_ENDPOINT', env),
    shown: 'none: bytes in the storage folder',
    help: 'An `http(s)://` S3 endpoint puts file bytes in a bucket; needs the `NIMBUS_S3_*` variables below' }),
  part({ env: 'NIMBUS_S3_BUCKET', group: 'cluster', shown: 'none (required with an endpoint)', help: 'The bucket' }),
  part({ env: 'NIMBUS_S3_REGION', group: 'cluster', shown: '`us-east-1`', help: 'Region to sign requests for' }),
  part({ env: 'NIMBUS_S3_ACCESS_KEY_ID', group: 'cluster', shown: 'none (required with an endpoint)', help: 'The store’s access key' }),
  part({ env: 'NIMBUS_S3_SECRET_ACCESS_KEY', group: 'cluster', shown: 'none (required with an endpoint)',
    help: 'The store’s secret key' }),
  part({ env: 'NIMBUS_S3_FORCE_PATH_STYLE', group: 'cluster', shown: '`1` with an endpoint',
    help: '`1`: `<endpoint>/<bucket>/<key>` URLs; `0`: virtual-host buckets' }),
  setting({ env: 'NIMBUS_ORPHAN_MIN_AGE_SECONDS', key: 'orphanMinAgeMs', group: 'cluster',
    parse: seconds(parse.positive), fallback: () => 3_600_000,
    shown: '`3600`', help: 'With S3: an object no file names is deleted once it is this old',
    more: 'an upload in flight is never taken for one' }),
];

/** `--data-dir <dir>` → `--data-dir`. */
export const flagName = (flag: string) => flag.slice(0, flag.indexOf(' '));

/** The ConfigInput option a flag sets: `--data-dir <dir>` → dataDir. */
export function optionOf(flag: string): keyof ConfigInput {
  return flagName(flag)
    .slice(2)
    .replace(/-([a-z0-9])/g, (_, letter: string) => letter.toUpperCase()) as keyof ConfigInput;
}
