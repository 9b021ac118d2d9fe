import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { DaemonConfig } from '../config.js';
import { newSecret } from './secrets.js';

export type AdminKeySource = 'env' | 'keychain' | 'file';

export interface AdminKey {
  key: string;
  source: AdminKeySource;
}

/** The two calls Nimbus makes of the OS keychain. */
interface Keychain {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
}

const SERVICE = 'Nimbus';
const KEYCHAIN_TIMEOUT_MS = 5000;

/** The keychain entry is per data directory, so two Nimbus instances keep two keys. */
const accountFor = (config: Pick<DaemonConfig, 'dataDir'>): string => `admin-key:${config.dataDir}`;
export const keyFilePath = (config: Pick<DaemonConfig, 'dataDir'>): string => path.join(config.dataDir, 'admin.key');

type KeyConfig = Pick<DaemonConfig, 'dataDir' | 'apiKey' | 'keychain'>;

/**
 * The admin key: NIMBUS_API_KEY if set; else the OS keychain (generated and stored on
 * first start); else, when no keychain answers, a 0600 file in the data directory, with
 * one warning line.
 */
export async function loadAdminKey(config: KeyConfig, warn: (line: string) => void): Promise<AdminKey> {
  if (config.apiKey) return { key: config.apiKey, source: 'env' };
  const keychain = await openKeychain(config, warn);
  if (keychain) {
    try {
      const stored = await withTimeout(keychain.getPassword(SERVICE, accountFor(config)));
      if (stored) return { key: stored, source: 'keychain' };
      const key = (await readKeyFile(config)) ?? newSecret();
      await withTimeout(keychain.setPassword(SERVICE, accountFor(config), key));
      // A keyring unlocked with the wrong password accepts the write and returns null on read.
      if ((await withTimeout(keychain.getPassword(SERVICE, accountFor(config)))) !== key) {
        throw new Error('the keychain did not keep the key (locked or wrong password?)');
      }
      await rm(keyFilePath(config), { force: true });
      return { key, source: 'keychain' };
    } catch (err) {
      warn(`Nimbus: the OS keychain failed (${(err as Error).message}); keeping the admin key in ${keyFilePath(config)} (mode 0600).`);
    }
  }
  const existing = await readKeyFile(config);
  if (existing) return { key: existing, source: 'file' };
  const key = newSecret();
  await writeKeyFile(config, key);
  return { key, source: 'file' };
}

/** Stores a new admin key where the current one lives. */
export async function saveAdminKey(config: KeyConfig, source: AdminKeySource, key: string): Promise<void> {
  if (source === 'env') throw new Error('The admin key is set by NIMBUS_API_KEY; change it there.');
  if (source === 'keychain') {
    const keychain = await openKeychain(config, () => undefined);
    if (!keychain) throw new Error('The OS keychain is no longer available.');
    await withTimeout(keychain.setPassword(SERVICE, accountFor(config), key));
    return;
  }
  await writeKeyFile(config, key);
}

/**
 * The OS keychain through @napi-rs/keyring (Secret Service, macOS Keychain, Windows
 * Credential Manager). Loaded lazily: its prebuilt binary exists for the common platforms
 * only, and a platform without one keeps the key in the file instead of failing to start.
 */
async function openKeychain(config: KeyConfig, warn: (line: string) => void): Promise<Keychain | null> {
  if (config.keychain === 'off') return null;
  try {
    const { AsyncEntry } = await import('@napi-rs/keyring');
    return {
      getPassword: (service, account) => new AsyncEntry(service, account).getPassword(),
      setPassword: (service, account, password) => new AsyncEntry(service, account).setPassword(password),
    };
  } catch (err) {
    warn(
      `Nimbus: keychain support (@napi-rs/keyring) cannot load here (${(err as Error).message.split('\n')[0]}); keeping the admin key in ${keyFilePath(config)} (mode 0600).`,
    );
    return null;
  }
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

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the keychain did not answer in time')), KEYCHAIN_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
