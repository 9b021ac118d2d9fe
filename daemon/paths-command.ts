/** `nimbus paths`: where a data directory keeps everything, and where the desktop app keeps its settings. */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { DaemonConfig } from './config.js';
import { LOG_FILE, logDirOf } from './logging.js';
import { readRunFile } from './run-file.js';

/**
 * `nimbus paths`: where this data directory keeps everything (the same --data-dir,
 * --storage-dir and NIMBUS_* variables as the daemon), and where the desktop app keeps its
 * settings. Creates nothing.
 */
export async function printPaths(config: DaemonConfig, json: boolean): Promise<number> {
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
