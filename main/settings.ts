import { join } from 'node:path';
import { isRecord, readJsonFile } from './jsonFile.js';

/** What the desktop app lets a user configure in `<userData>/settings.json`. */
export interface ShellSettings {
  /** The daemon's port; absent means the daemon's default (7878, or NIMBUS_PORT). */
  port?: number;
  dataDir?: string;
  storageDir?: string;
}

export const SETTINGS_FILE = 'settings.json';

/**
 * Reads the settings, keeping only well-formed values. A settings file that cannot be
 * parsed is reported and ignored (never rewritten), so a typo does not stop the app.
 */
export function loadSettings(userDataDir: string, warn: (line: string) => void = console.warn): ShellSettings {
  const file = join(userDataDir, SETTINGS_FILE);
  let raw: unknown;
  try {
    raw = readJsonFile(file);
  } catch (err) {
    warn(`Ignoring ${file}: ${(err as Error).message}`);
    return {};
  }
  if (!isRecord(raw)) return {};
  const settings: ShellSettings = {};
  if (Number.isInteger(raw.port) && (raw.port as number) >= 0 && (raw.port as number) <= 65535) {
    settings.port = raw.port as number;
  }
  if (typeof raw.dataDir === 'string' && raw.dataDir !== '') settings.dataDir = raw.dataDir;
  if (typeof raw.storageDir === 'string' && raw.storageDir !== '') settings.storageDir = raw.storageDir;
  return settings;
}
