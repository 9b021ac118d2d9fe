/**
 * The OS keychain through @napi-rs/keyring (Secret Service, macOS Keychain, Windows
 * Credential Manager), and the one test of whether it really keeps a value: another process
 * reads the same value back.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { hashSecret } from './secrets.js';

/** The calls Nimbus makes of the OS keychain, for entries of the service "Nimbus". */
export interface Keychain {
  get(account: string): Promise<string | null>;
  set(account: string, value: string): Promise<void>;
  delete(account: string): Promise<void>;
  /** The sha256 hex of what a separate process reads for this account (null: nothing). */
  hashReadElsewhere(account: string): Promise<string | null>;
}

const SERVICE = 'Nimbus';
const KEYCHAIN_TIMEOUT_MS = 5000;
/** A fresh Node process that loads the binding: 0.15-0.35 s measured on a 2-core machine at load 22. */
const READ_BACK_TIMEOUT_MS = 15_000;

/**
 * On Linux the Secret Service only. Left to choose, the binding falls back to the kernel's
 * keyring, which lives in memory for one session: a headless process wrote its key there,
 * the next process could not see it, and every start made a new key (issue 22).
 */
const ENTRY_OPTIONS = { linux: { store: 'secret-service' as const } };

/**
 * Run by `node -e` in the read-back process: argv is the binding's path, the account, the
 * entry options. Prints the hash of the value, never the value (no key crosses the pipe).
 */
const READ_BACK_SCRIPT = `
const [binding, service, account, options] = process.argv.slice(1);
const { Entry } = require(binding);
const value = new Entry(service, account, JSON.parse(options)).getPassword();
process.stdout.write(value === null ? '' : require('node:crypto').createHash('sha256').update(value).digest('hex'));
`;

/**
 * The keychain, or why it cannot be used (null when NIMBUS_KEYCHAIN=off asked for none).
 * The binding is loaded lazily: its prebuilt binary exists for the common platforms only,
 * and a platform without one keeps the key in the file instead of failing to start.
 */
export async function openKeychain(mode: 'auto' | 'off'): Promise<Keychain | { unavailable: string | null }> {
  if (mode === 'off') return { unavailable: null };
  let binding: typeof import('@napi-rs/keyring');
  try {
    binding = await import('@napi-rs/keyring');
  } catch (err) {
    return { unavailable: `keychain support (@napi-rs/keyring) cannot load here: ${(err as Error).message.split('\n')[0]}` };
  }
  const entry = (account: string) => new binding.AsyncEntry(SERVICE, account, ENTRY_OPTIONS);
  const get = (account: string) => withTimeout(entry(account).getPassword());
  return {
    get,
    set: (account, value) => withTimeout(entry(account).setPassword(value)),
    delete: async (account) => void (await withTimeout(entry(account).deletePassword())),
    // Electron's binary is no Node to run a script with (the packaged app turns ELECTRON_RUN_AS_NODE
    // off), so the desktop app reads back in its own process; the Secret Service pin above is what
    // keeps the kernel's keyring out there.
    hashReadElsewhere: process.versions.electron
      ? async (account) => ((value) => (value === null ? null : hashSecret(value)))(await get(account))
      : readInAnotherProcess,
  };
}

function readInAnotherProcess(account: string): Promise<string | null> {
  const binding = createRequire(import.meta.url).resolve('@napi-rs/keyring');
  const args = ['-e', READ_BACK_SCRIPT, binding, SERVICE, account, JSON.stringify(ENTRY_OPTIONS)];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { timeout: READ_BACK_TIMEOUT_MS, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) reject(new Error(`another process could not read it back: ${stderr.trim().split('\n').pop() || err.message}`));
      else resolve(stdout.trim() || null);
    });
  });
}

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the keychain did not answer in time')), KEYCHAIN_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
