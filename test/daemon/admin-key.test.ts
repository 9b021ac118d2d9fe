/**
 * What Nimbus does with a keychain that takes a key but does not keep it for anyone else,
 * as the kernel's per-session keyring did on headless Linux. No real store behaves so on
 * demand, so these keychains are small stand-ins; the file is on a real disk.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storeAdminKey } from '../../daemon/keys/admin-key.js';
import type { Keychain } from '../../daemon/keys/keychain.js';
import { hashSecret } from '../../daemon/keys/secrets.js';

const KEY = 'k'.repeat(43);
let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-admin-key-'));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

/** A keychain whose entries this process sees; `elsewhere` says whether another process does too. */
function keychain(elsewhere: boolean): Keychain & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    entries,
    get: async (account) => entries.get(account) ?? null,
    set: async (account, value) => void entries.set(account, value),
    delete: async (account) => void entries.delete(account),
    hashReadElsewhere: async (account) => (elsewhere && entries.has(account) ? hashSecret(entries.get(account)!) : null),
  };
}

const config = () => ({ dataDir, apiKey: null, keychain: 'auto' as const });

describe('storing the admin key', () => {
  it('keeps a key that no other process reads back in admin.key (0600), says so in one line, and drops the entry', async () => {
    const store = keychain(false);
    const warnings: string[] = [];
    const stored = await storeAdminKey(config(), store, KEY, (line) => warnings.push(line));
    const keyFile = path.join(dataDir, 'admin.key');
    expect(stored).toEqual({ key: KEY, source: 'file' });
    expect((await readFile(keyFile, 'utf8')).trim()).toBe(KEY);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(keyFile);
    expect(warnings[0]).toMatch(/another process did not read the key back/);
    expect(warnings[0]).not.toContain(KEY);
    // A later read in this process must not find a key that disagrees with the file.
    expect(store.entries.size).toBe(0);
  });

  it('keeps admin.key when the keychain takes the key but another process does not read it back', async () => {
    await writeFile(path.join(dataDir, 'admin.key'), `${KEY}\n`, { mode: 0o600 });
    const stored = await storeAdminKey(config(), keychain(false), KEY, () => undefined);
    expect(stored.source).toBe('file');
    expect((await readFile(path.join(dataDir, 'admin.key'), 'utf8')).trim()).toBe(KEY);
  });

  it('removes admin.key only once another process reads the same key back from the keychain', async () => {
    await writeFile(path.join(dataDir, 'admin.key'), `${KEY}\n`, { mode: 0o600 });
    const store = keychain(true);
    const warnings: string[] = [];
    const stored = await storeAdminKey(config(), store, KEY, (line) => warnings.push(line));
    expect(stored).toEqual({ key: KEY, source: 'keychain' });
    expect(store.entries.get(`admin-key:${dataDir}`)).toBe(KEY);
    expect(existsSync(path.join(dataDir, 'admin.key'))).toBe(false);
    expect(warnings).toEqual([]);
  });
});
