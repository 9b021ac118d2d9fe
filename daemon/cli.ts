/** `nimbus`: the command line. A dispatcher: each command's code is in daemon/cli/ (or beside it, paths and migrate). */
import { parseArgs } from 'node:util';
import { configFlags, inputFromFlags, type ConfigInput } from './config.js';
import { settingsHelp } from './config-docs.js';
import { backupCommand } from './cli/backup-command.js';
import { checkCommand } from './cli/check-command.js';
import { CommandError, configFor, type Command, type Options } from './cli/common.js';
import { runDaemon } from './cli/daemon-command.js';
import { rotateKey, showKey } from './cli/key-command.js';
import { restoreCommand } from './cli/restore-command.js';
import { roleCommand } from './cli/role-command.js';
import { userCommand } from './cli/user-command.js';
import { printPaths } from './paths-command.js';
import { VERSION } from './version.js';

const HELP = `Nimbus ${VERSION} — a local storage manager with the Cloud Storage Management API

Usage:
  nimbus daemon [options]   Run the daemon headless (API and web UI)
  nimbus key show           Print the admin API key
  nimbus key rotate         Replace the admin API key and print the new one
  nimbus paths [--json]     Print where the data, storage, logs and settings are
  nimbus user list|add|passwd|role|delete …
                            Manage users, through the running daemon or, with none, the store itself
  nimbus role list|show|add|edit|delete …
                            Manage roles and their quotas, the same way
  nimbus backup DIR         Copy the store and the files into DIR while the daemon runs (resumable)
  nimbus restore DIR        Put a backup into an empty data directory (daemon stopped)
  nimbus check [--ready]    Check the configuration, permissions, disk, inotify, database and bucket
  nimbus migrate --data-dir <dir>
                            Copy an embedded installation (daemon stopped) into the configured
                            database and bucket, resumable and verified (docs/scaling.md)
  nimbus migrate --to-data-dir <dir>
                            Copy the configured database and bucket back into a new data directory
  nimbus <command> --help   A command's own options (user, role, backup, restore, check)
  nimbus --help | --version

Passwords are never taken from the command line: \`nimbus user add|passwd\` ask on the terminal
without echo, or read standard input with --password-stdin.

${settingsHelp()}`;

/** The commands that take options of their own (and print their own --help). */
const COMMANDS: Record<string, Command> = {
  user: userCommand,
  role: roleCommand,
  backup: backupCommand,
  restore: restoreCommand,
  check: checkCommand,
};

/** Options of the commands kept here: the configuration flags and these. */
const BASE_OPTIONS: Options = {
  ...configFlags(),
  'to-data-dir': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
};

export async function main(argv: string[]): Promise<number> {
  const command = commandOf(argv);
  const own = command ? COMMANDS[command] : undefined;
  // Strict for each command: an option another command takes (`nimbus daemon --email x`) is a mistake here.
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: own ? { ...configFlags(), help: { type: 'boolean', short: 'h' }, ...own.options } : BASE_OPTIONS,
  });
  if (!own && values.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (own && values.help) {
    process.stdout.write(own.help);
    return 0;
  }
  const [, sub] = positionals;
  if (values.help || !command || command === 'help') {
    process.stdout.write(HELP);
    return values.help || command === 'help' ? 0 : 1;
  }
  const input: ConfigInput = inputFromFlags(values, process.env);
  if (own) {
    try {
      return await own.run(positionals.slice(1), values as Record<string, string | boolean | undefined>, input);
    } catch (err) {
      if (!(err instanceof CommandError)) throw err;
      process.stderr.write(`nimbus ${command}: ${err.message}\n`);
      return 1;
    }
  }
  if (command === 'daemon') return runDaemon(input);
  // Imported for this command only: the migration pulls in pg and the AWS SDK (~430 ms of CPU
  // at load), which `nimbus daemon` would otherwise pay before listening (issue 15).
  if (command === 'migrate')
    return (await import('./migrate/command.js')).runMigrate({ ...input, toDataDir: values['to-data-dir'] as string | undefined });
  if (command === 'paths') return printPaths(configFor(input), values.json === true);
  if (command === 'key' && (sub === 'show' || sub === 'rotate')) return sub === 'show' ? showKey(input) : rotateKey(input);
  process.stderr.write(`nimbus: unknown command "${positionals.join(' ')}"\n\n${HELP}`);
  return 1;
}

/**
 * The command word, found before the strict parse that depends on it: the first operand, with
 * every option any command knows read as what it is (so a value like `--data-dir user` is not
 * taken for the command). An unknown option is left to the strict parse to refuse.
 */
function commandOf(argv: string[]): string | undefined {
  const every: Options = { ...BASE_OPTIONS };
  for (const command of Object.values(COMMANDS)) Object.assign(every, command.options);
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, strict: false, options: every });
  return positionals[0];
}
