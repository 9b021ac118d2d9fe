/** `nimbus`: the command line. A dispatcher: each command's code is in daemon/cli/ (or beside it, paths and migrate). */
import { parseArgs } from 'node:util';
import { configFlags, inputFromFlags, type ConfigInput } from './config.js';
import { settingsHelp } from './config-docs.js';
import { backupCommand } from './cli/backup-command.js';
import { checkCommand } from './cli/check-command.js';
import { CommandError, configFor, warn, type Command, type Options } from './cli/common.js';
import { runDaemon } from './cli/daemon-command.js';
import { rotateKey, showKey } from './cli/key-command.js';
import { restoreCommand } from './cli/restore-command.js';
import { roleCommand } from './cli/role-command.js';
import { didYouMean, unknownOption } from './cli/suggest.js';
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
  nimbus <command> --help   A command's own options (key, user, role, backup, restore, check)
  nimbus --help | --version

Passwords are never taken from the command line: \`nimbus user add|passwd\` ask on the terminal
without echo, or read standard input with --password-stdin.

${settingsHelp()}`;

const KEY_HELP = `Usage:
  nimbus key show      Print the admin API key (one is made if there is none yet)
  nimbus key rotate    Replace the admin API key and print the new one; a daemon running on
                       the data directory refuses the old key at once

Both act on one data directory's key: --data-dir or NIMBUS_DATA_DIR, else the default one,
which \`npm start\` uses too (\`nimbus paths\` prints it, and says when the desktop app's
settings name another). The key is looked for in NIMBUS_API_KEY, then <data-dir>/admin.key,
then the OS keychain.
`;

// The subcommand was checked against the help's list before run is called (subcommandsOf).
const keyCommand: Command = {
  help: KEY_HELP,
  options: {},
  run: ([sub], _values, input) => (sub === 'show' ? showKey(input) : rotateKey(input)),
};

/** The commands that take options of their own (and print their own --help). */
const COMMANDS: Record<string, Command> = {
  key: keyCommand,
  user: userCommand,
  role: roleCommand,
  backup: backupCommand,
  restore: restoreCommand,
  check: checkCommand,
};

/** Options of the commands kept here, besides the configuration flags, --help and --version. */
const KEPT: Record<string, Options> = {
  daemon: {},
  paths: { json: { type: 'boolean' } },
  migrate: { 'to-data-dir': { type: 'string' } },
  help: {},
};

const KNOWN = [...Object.keys(KEPT), ...Object.keys(COMMANDS)];

/** What one command takes (no command: the bare `nimbus`): a misspelt option is matched against these only. */
function optionsFor(command: string | undefined): Options {
  const common: Options = { ...configFlags(), help: { type: 'boolean', short: 'h' } };
  const own = command === undefined ? undefined : COMMANDS[command];
  if (own) return { ...common, ...own.options };
  return { ...common, version: { type: 'boolean', short: 'v' }, ...(command === undefined ? {} : KEPT[command]) };
}

/**
 * A command's subcommands, read from its help's usage lines (`  nimbus user add …`), so the list
 * the dispatcher checks is the one the operator is shown. Empty for a command without any.
 */
function subcommandsOf(command: string, help: string): string[] {
  return [...new Set([...help.matchAll(new RegExp(`^ {2}nimbus ${command} ([a-z]+)`, 'gm'))].map((m) => m[1]))];
}

export async function main(argv: string[]): Promise<number> {
  const command = commandOf(argv);
  // One line, never the whole usage: the operator mistyped one word and should see which (issue 29).
  if (command !== undefined && !KNOWN.includes(command)) {
    warn(`nimbus: unknown command "${command}"${didYouMean(command, KNOWN, ' (`nimbus --help` lists the commands)')}`);
    return 1;
  }
  const own = command ? COMMANDS[command] : undefined;
  const options = optionsFor(command);
  const where = command ? `nimbus ${command}` : 'nimbus';
  const unknown = unknownOption(argv, options, ` (\`${where} --help\` lists the options)`);
  if (unknown) {
    warn(`${where}: ${unknown}`);
    return 1;
  }
  // Strict for each command: an option another command takes (`nimbus daemon --email x`) is a mistake here.
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options });
  if (!own && values.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const [, sub] = positionals;
  if (own && values.help) {
    process.stdout.write(own.help);
    return 0;
  }
  if (command === 'help' && Object.hasOwn(COMMANDS, sub ?? '')) {
    process.stdout.write(COMMANDS[sub].help);
    return 0;
  }
  if (values.help || !command || command === 'help') {
    process.stdout.write(HELP);
    return values.help || command === 'help' ? 0 : 1;
  }
  const subs = own && command ? subcommandsOf(command, own.help) : [];
  // `nimbus key` alone shows what it can do, and exits 1 as a bare `nimbus` does: nothing was done.
  if (own && subs.length > 0 && sub === undefined) {
    process.stdout.write(own.help);
    return 1;
  }
  if (subs.length > 0 && !subs.includes(sub)) {
    warn(`${where}: unknown subcommand "${sub}"${didYouMean(sub, subs, ` (one of ${subs.join(', ')})`)}`);
    return 1;
  }
  const input: ConfigInput = inputFromFlags(values, process.env);
  if (own) {
    try {
      return await own.run(positionals.slice(1), values as Record<string, string | boolean | undefined>, input);
    } catch (err) {
      if (!(err instanceof CommandError)) throw err;
      process.stderr.write(`${where}: ${err.message}\n`);
      return 1;
    }
  }
  if (command === 'daemon') return runDaemon(input);
  // Imported for this command only: the migration pulls in pg and the AWS SDK (~430 ms of CPU
  // at load), which `nimbus daemon` would otherwise pay before listening (issue 15).
  if (command === 'migrate')
    return (await import('./migrate/command.js')).runMigrate({ ...input, toDataDir: values['to-data-dir'] as string | undefined });
  return printPaths(configFor(input), values.json === true); // the one command left: every other word was refused above
}

/**
 * The command word, found before the strict parse that depends on it: the first operand, with
 * every option any command knows read as what it is (so a value like `--data-dir user` is not
 * taken for the command). An unknown option is refused afterwards, among that command's options.
 */
function commandOf(argv: string[]): string | undefined {
  const every: Options = Object.assign(optionsFor(undefined), ...KNOWN.map(optionsFor));
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, strict: false, options: every });
  return positionals[0];
}
