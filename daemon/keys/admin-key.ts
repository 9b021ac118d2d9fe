import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { DaemonConfig } from '../config.js';
import { openKeychain, type Keychain } from './keychain.js';
import { hashSecret, newSecret } from './secrets.js';

export type AdminKeySource = 'env' | 'keychain' | 'file';

export interface AdminKey {
  key: string;
  source: AdminKeySource;
}

/** The keychain entry is per data directory, so two Nimbus instances keep two keys. */
const accountFor = (config: Pick<DaemonConfig, 'dataDir'>): string => `admin-key:${config.dataDir}`;
export const keyFilePath = (config: Pick<DaemonConfig, 'dataDir'>): string => path.join(config.dataDir, 'admin.key');

type KeyConfig = Pick<DaemonConfig, 'dataDir' | 'apiKey' | 'keychain'>;

/**
 * The admin key, looked up in one order by the daemon, `key show` and `key rotate`:
 * NIMBUS_API_KEY; else admin.key when it exists (it is written only when the keychain could
 * not keep a key, so it is the newer of the two); else the OS keychain; else a new key, kept
 * in the keychain when another process reads it back from there, in a 0600 admin.key with
 * one warning line otherwise. With `moveKeyFile` (the daemon's start) an admin.key moves into
 * the keychain, and is removed only once another process reads it back from there.
 */
export async function loadAdminKey(
  config: KeyConfig,
  warn: (line: string) => void,
  { moveKeyFile = true }: { moveKeyFile?: boolean } = {},
): Promise<AdminKey> {
  if (config.apiKey) return { key: config.apiKey, source: 'env' };
  const inFile = await readKeyFile(config);
  if (inFile !== null && !moveKeyFile) return { key: inFile, source: 'file' };
  const keychain = await openKeychain(config.keychain);
  if (inFile !== null || 'unavailable' in keychain) return storeAdminKey(config, keychain, inFile ?? newSecret(), warn);
  let stored: string | null;
  try {
    stored = await keychain.get(accountFor(config));
  } catch (err) {
    return storeAdminKey(config, { unavailable: (err as Error).message }, newSecret(), warn);
  }
  if (stored) return { key: stored, source: 'keychain' };
  return storeAdminKey(config, keychain, newSecret(), warn);
}

/** Stores a new admin key where the current one lives (a rotation); says where it went. */
export async function saveAdminKey(
  config: KeyConfig,
  source: AdminKeySource,
  key: string,
  warn: (line: string) => void = () => undefined,
): Promise<AdminKeySource> {
  if (source === 'env') throw new Error('The admin key is set by NIMBUS_API_KEY; change it there.');
  const keychain = source === 'keychain' ? await openKeychain(config.keychain) : { unavailable: null };
  return (await storeAdminKey(config, keychain, key, warn)).source;
}

/**
 * Keeps the key in the keychain when another process reads it back from there, and only then
 * removes admin.key; else writes admin.key (0600) and, when a keychain was tried, says why in
 * one line. Exported for the test of a keychain that keeps a value for one process only.
 */
export async function storeAdminKey(
  config: KeyConfig,
  keychain: Keychain | { unavailable: string | null },
  key: string,
  warn: (line: string) => void,
): Promise<AdminKey> {
  const notKept = 'unavailable' in keychain ? keychain.unavailable : await keepInKeychain(keychain, accountFor(config), key);
  if (notKept === undefined) {
    await rm(keyFilePath(config), { force: true });
    return { key, source: 'keychain' };
  }
  if (notKept !== null) warn(`Nimbus: the OS keychain failed (${notKept}); keeping the admin key in ${keyFilePath(config)} (mode 0600).`);
  if ((await readKeyFile(config)) !== key) await writeKeyFile(config, key);
  return { key, source: 'file' };
}

/** Undefined once another process reads the key back from the keychain; else why not. */
async function keepInKeychain(keychain: Keychain, account: string, key: string): Promise<string | undefined> {
  let reason: string;
  try {
    await keychain.set(account, key);
    // A store may take the write and show it to this process alone, as the kernel's keyring did.
    if ((await keychain.hashReadElsewhere(account)) === hashSecret(key)) return undefined;
    reason = 'another process did not read the key back from it';
  } catch (err) {
    reason = (err as Error).message;
  }
  // An entry no other process sees must not answer a later read in this one instead of admin.key.
  await keychain.delete(account).catch(() => undefined);
  return reason;
}

async function readKeyFile(config: KeyConfig): Promise<string | null> {
  try {
    const key = (await readFile(keyFilePath(config), 'utf8')).trim();
    return key || null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

async function writeKeyFile(config: KeyConfig, key: string): Promise<void> {
  await mkdir(config.dataDir, { recursive: true });
  const file = keyFilePath(config);
  await writeFile(`${file}.tmp`, `${key}\n`, { mode: 0o600 });
  await chmod(`${file}.tmp`, 0o600);
  await rename(`${file}.tmp`, file);
}
