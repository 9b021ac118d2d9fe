/** `nimbus`: the command line. Runs the daemon headless, manages the admin key, says where things are. */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parsePort, resolveConfig, type DaemonConfig } from './config.js';
import type { RunningDaemon } from './index.js';
import { loadAdminKey, saveAdminKey } from './keys/admin-key.js';
import { newSecret } from './keys/secrets.js';
import { startDaemon } from './daemon.js';
import { LOG_FILE, LOG_LEVELS, logDirOf, parseLogLevel, type LogLevel } from './logging.js';
import { readRunFile } from './run-file.js';
import { PACKAGE_ROOT, VERSION } from './version.js';

const HELP = `Nimbus ${VERSION} — a local storage manager with the Cloud Storage Management API

Usage:
  nimbus daemon [options]   Run the daemon headless (API and web UI)
  nimbus key show           Print the admin API key
  nimbus key rotate         Replace the admin API key and print the new one
  nimbus paths [--json]     Print where the data, storage, logs and settings are
  nimbus migrate --data-dir <dir>
                            Copy an embedded installation (daemon stopped) into the configured
                            database and bucket, resumable and verified (docs/scaling.md)
  nimbus migrate --to-data-dir <dir>
                            Copy the configured database and bucket back into a new data directory
  nimbus --help | --version

Options:
  --host <addr>         Address to listen on (NIMBUS_HOST; default 127.0.0.1)
  --port <n>            Port; 0 picks a free one (NIMBUS_PORT; default 7878)
  --data-dir <dir>      Store, keys, outbox (NIMBUS_DATA_DIR; default per OS: ~/.local/share/nimbus)
  --storage-dir <dir>   User files (NIMBUS_STORAGE_DIR; default <data-dir>/storage)
  --log-level <level>   ${LOG_LEVELS.join('|')} (NIMBUS_LOG_LEVEL; default info); the log is <data-dir>/logs/nimbus.log
  --database-url <url>  postgres://user:password@host:5432/db: metadata in PostgreSQL instead of
                        <data-dir>/db.json (NIMBUS_DATABASE_URL; docs/scaling.md)
  --s3-endpoint <url>   http(s) URL of an S3-compatible store: file bytes in a bucket instead of the
                        storage folder (NIMBUS_S3_ENDPOINT; needs the NIMBUS_S3_* variables below)

Environment:
  NIMBUS_API_KEY        Use this admin key instead of the OS keychain (automation)
  NIMBUS_SMTP_URL       smtp://user:pass@host:587 to send mail (else .eml files in <data-dir>/outbox)
  NIMBUS_MAIL_FROM      Sender address of verification mail
  NIMBUS_ALLOWED_HOSTS  Extra Host names to answer to (comma-separated)
  NIMBUS_CORS_ORIGINS   Origins allowed to call the API from a browser (comma-separated)
  NIMBUS_PUBLIC_URL     Base of share and verification links (default: the daemon's URL)
  NIMBUS_KEYCHAIN=off   Keep the admin key in <data-dir>/admin.key instead of the keychain
  NIMBUS_RECONCILE_SECONDS  Full rescan interval (default 600; 0 turns it off)
  NIMBUS_BODY_IDLE_SECONDS  A request body idle this long gets 408 (default 30)
  NIMBUS_MIN_BODY_RATE      Bytes/s a request body must average after the grace period, else 408 (default 240; 0: off)
  NIMBUS_MIN_BODY_GRACE_SECONDS  Reading time before that rate applies (default 5)
  NIMBUS_HEADERS_TIMEOUT_SECONDS  Request headers must arrive within this (default 20)
  NIMBUS_EVENT_BUFFER_KB    Unread backlog after which an event stream is dropped (default 1024)
  NIMBUS_MAX_CONNECTIONS    Open connections at most (default 2000)
  NIMBUS_ADMIN_DIALECT      Response shapes of the admin key: nimbus (default) or daneecloud
  NIMBUS_DATABASE_URL       As --database-url
  NIMBUS_S3_ENDPOINT        As --s3-endpoint
  NIMBUS_S3_BUCKET          The bucket (required with an endpoint)
  NIMBUS_S3_REGION          Region to sign requests for (default us-east-1)
  NIMBUS_S3_ACCESS_KEY_ID, NIMBUS_S3_SECRET_ACCESS_KEY  The store's credentials (required with an endpoint)
  NIMBUS_S3_FORCE_PATH_STYLE  1: <endpoint>/<bucket>/<key> URLs (default with an endpoint); 0: virtual hosts
`;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      'to-data-dir': { type: 'string' },
      'storage-dir': { type: 'string' },
      'log-level': { type: 'string' },
      'database-url': { type: 'string' },
      's3-endpoint': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  if (values.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const [command, sub] = positionals;
  if (values.help || !command || command === 'help') {
    process.stdout.write(HELP);
    return values.help || command === 'help' ? 0 : 1;
  }
  const input = {
    host: values.host,
    port: parsePort(values.port),
    dataDir: values['data-dir'],
    storageDir: values['storage-dir'],
    logLevel: parseLogLevel(values['log-level'], '--log-level'),
    databaseUrl: values['database-url'],
    s3Endpoint: values['s3-endpoint'],
  };
  if (command === 'daemon') return runDaemon(input);
  // Imported for this command only: the migration pulls in pg and the AWS SDK (~430 ms of CPU
  // at load), which `nimbus daemon` would otherwise pay before listening (issue 15).
  if (command === 'migrate') return (await import('./migrate/command.js')).runMigrate({ ...input, toDataDir: values['to-data-dir'] });
  if (command === 'paths') return printPaths(input, values.json === true);
  if (command === 'key' && (sub === 'show' || sub === 'rotate')) return sub === 'show' ? showKey(input) : rotateKey(input);
  process.stderr.write(`nimbus: unknown command "${positionals.join(' ')}"\n\n${HELP}`);
  return 1;
}

type Input = {
  host?: string;
  port?: number;
  dataDir?: string;
  storageDir?: string;
  logLevel?: LogLevel;
  databaseUrl?: string;
  s3Endpoint?: string;
};

async function runDaemon(input: Input): Promise<number> {
  // Handlers go in before the listening line is printed: a supervisor that signals as soon
  // as it reads the line would otherwise kill the process before it could shut down cleanly.
  let stopRequested = false;
  let wake: () => void = () => undefined;
  let daemon: RunningDaemon | null = null;
  const stop = (signal: string) => {
    const line = `Nimbus: ${signal} received, shutting down…`;
    if (daemon) daemon.logger.info(line);
    else process.stderr.write(`${line}\n`);
    stopRequested = true;
    wake();
  };
  const onSigint = () => stop('SIGINT');
  const onSigterm = () => stop('SIGTERM');
  process.once('SIGINT', onSigint);
  process.once('SIGTERM', onSigterm);
  try {
    daemon = await startDaemon(input);
    process.stdout.write(`Nimbus daemon listening on ${daemon.url}\n`);
    if (!stopRequested) await new Promise<void>((resolve) => (wake = resolve));
    await daemon.close();
    return 0;
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
  }
}

function configFor(input: Input) {
  return resolveConfig(input, process.env, path.join(PACKAGE_ROOT, 'renderer', 'dist'));
}

async function showKey(input: Input): Promise<number> {
  // Prints the key the daemon uses and moves nothing: an admin.key it reads stays where it is.
  const { key } = await loadAdminKey(configFor(input), (line) => process.stderr.write(`${line}\n`), { moveKeyFile: false });
  process.stdout.write(`${key}\n`);
  return 0;
}

/**
 * Rotates through the running daemon when there is one, so the old key dies at once (and
 * every connection that used it is closed); else replaces the stored key offline.
 */
async function rotateKey(input: Input): Promise<number> {
  const config = configFor(input);
  const warn = (line: string) => process.stderr.write(`${line}\n`);
  const current = await loadAdminKey(config, warn, { moveKeyFile: false });
  const running = await readRunFile(config.dataDir);
  if (running) {
    let res: Response;
    try {
      res = await fetch(`${running.url}/api/keys/rotate`, { method: 'POST', headers: { 'API-Key': current.key } });
    } catch (err) {
      process.stderr.write(
        `nimbus: the daemon running on this data directory (pid ${running.pid}, ${running.url}) did not answer (${(err as Error).message}); the key was not rotated.\n`,
      );
      return 1;
    }
    const body = (await res.json().catch(() => ({}))) as { key?: string; error?: string };
    if (!res.ok || !body.key) {
      process.stderr.write(`nimbus: the running daemon refused to rotate the key: ${body.error ?? res.status}\n`);
      return 1;
    }
    process.stdout.write(`${body.key}\n`);
    return 0;
  }
  // A daemon that holds the lock but left no address (an older version) would keep the old
  // key in memory: rotating behind its back would leave the leaked key working.
  const holder = await lockHolder(config.dataDir);
  if (holder !== null) {
    process.stderr.write(
      `nimbus: a daemon (pid ${holder}) holds ${config.dataDir} but cannot be reached; restart it, then run \`nimbus key rotate\` again.\n`,
    );
    return 1;
  }
  const key = newSecret();
  await saveAdminKey(config, current.source, key, warn);
  process.stdout.write(`${key}\n`);
  return 0;
}

/** The pid in the data directory's lock file when that process is alive, else null. */
async function lockHolder(dataDir: string): Promise<number | null> {
  let pid: number;
  try {
    pid = Number((JSON.parse(await readFile(path.join(dataDir, 'nimbus.lock'), 'utf8')) as { pid: unknown }).pid);
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}

/**
 * `nimbus paths`: where this data directory keeps everything (the same --data-dir,
 * --storage-dir and NIMBUS_* variables as the daemon), and where the desktop app keeps its
 * settings. Creates nothing.
 */
async function printPaths(input: Input, json: boolean): Promise<number> {
  const config = configFor(input);
  const running = await readRunFile(config.dataDir);
  const paths = pathsOf(config);
  if (json) {
    process.stdout.write(`${JSON.stringify({ ...paths, running }, null, 2)}\n`);
    return 0;
  }
  const mark = (file: string) => (existsSync(file) ? '' : '  (not created yet)');
  const rows: [string, string][] = [
    ['Data directory', paths.dataDir + mark(paths.dataDir)],
    ['Storage', paths.storageDir + mark(paths.storageDir)],
    ['Logs', paths.logDir + mark(paths.logDir)],
    ['Current log', paths.logFile + mark(paths.logFile)],
    ['Store', paths.store + mark(paths.store)],
    ['Run file', `${paths.runFile}${running ? `  (daemon pid ${running.pid} at ${running.url})` : '  (no daemon running)'}`],
    ['Admin key file', `${paths.adminKeyFile}  (used when no keychain answers, or NIMBUS_KEYCHAIN=off)`],
    ['Mail outbox', paths.outbox + mark(paths.outbox)],
    ['Desktop settings', paths.desktopSettings + mark(paths.desktopSettings)],
  ];
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  for (const [label, value] of rows) process.stdout.write(`${label.padEnd(width)}${value}\n`);
  process.stdout.write(
    'Configuration: flags and NIMBUS_* variables (`nimbus --help`), no file; the desktop app also reads its settings.\n',
  );
  const desktop = await desktopDataDir(paths.desktopSettings);
  if (desktop && path.resolve(desktop) !== config.dataDir)
    process.stdout.write(`The desktop app's settings name another data directory: ${desktop} (pass --data-dir to see its paths).\n`);
  return 0;
}

function pathsOf(config: DaemonConfig) {
  const logDir = logDirOf(config.dataDir);
  return {
    dataDir: config.dataDir,
    storageDir: config.storageDir,
    logDir,
    logFile: path.join(logDir, LOG_FILE),
    store: path.join(config.dataDir, 'db.json'),
    runFile: path.join(config.dataDir, 'daemon.json'),
    lockFile: path.join(config.dataDir, 'nimbus.lock'),
    adminKeyFile: path.join(config.dataDir, 'admin.key'),
    outbox: path.join(config.dataDir, 'outbox'),
    desktopSettings: desktopSettingsFile(),
  };
}

/**
 * The desktop app's settings.json: Electron's appData (XDG config on Linux, Application
 * Support on macOS, %APPDATA% on Windows) + Nimbus/Desktop, as main/main.ts sets its userData.
 */
function desktopSettingsFile(env: NodeJS.ProcessEnv = process.env): string {
  const home = os.homedir();
  const appData =
    process.platform === 'darwin'
      ? path.join(home, 'Library', 'Application Support')
      : process.platform === 'win32'
        ? (env.APPDATA ?? path.join(home, 'AppData', 'Roaming'))
        : env.XDG_CONFIG_HOME || path.join(home, '.config');
  return path.join(appData, 'Nimbus', 'Desktop', 'settings.json');
}

/** The data directory the desktop app's settings name, if any. */
async function desktopDataDir(file: string): Promise<string | null> {
  try {
    const settings = JSON.parse(await readFile(file, 'utf8')) as { dataDir?: unknown };
    return typeof settings.dataDir === 'string' && settings.dataDir !== '' ? settings.dataDir : null;
  } catch {
    return null;
  }
}
