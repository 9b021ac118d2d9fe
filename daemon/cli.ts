/** `nimbus`: the command line. Runs the daemon headless, manages the admin key, says where things are. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { configFlags, inputFromFlags, resolveConfig, type ConfigInput } from './config.js';
import { settingsHelp } from './config-docs.js';
import type { RunningDaemon } from './index.js';
import { loadAdminKey, saveAdminKey } from './keys/admin-key.js';
import { newSecret } from './keys/secrets.js';
import { startDaemon } from './daemon.js';
import { printPaths } from './paths-command.js';
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

${settingsHelp()}`;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...configFlags(),
      'to-data-dir': { type: 'string' },
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
  const input = inputFromFlags(values, process.env);
  if (command === 'daemon') return runDaemon(input);
  // Imported for this command only: the migration pulls in pg and the AWS SDK (~430 ms of CPU
  // at load), which `nimbus daemon` would otherwise pay before listening (issue 15).
  if (command === 'migrate') return (await import('./migrate/command.js')).runMigrate({ ...input, toDataDir: values['to-data-dir'] });
  if (command === 'paths') return printPaths(configFor(input), values.json === true);
  if (command === 'key' && (sub === 'show' || sub === 'rotate')) return sub === 'show' ? showKey(input) : rotateKey(input);
  process.stderr.write(`nimbus: unknown command "${positionals.join(' ')}"\n\n${HELP}`);
  return 1;
}

type Input = ConfigInput;

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
