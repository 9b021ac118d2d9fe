/**
 * A real Secret Service for keychain tests: gnome-keyring in a D-Bus session of its own
 * (dbus-run-session), unlocked, kept open while a test runs children against it.
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { vi } from 'vitest';

const TOOLS = ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool'];

/**
 * Why keychain tests cannot run here (the missing tools), or null when they can. With
 * NIMBUS_REQUIRE_E2E=1 (CI) a missing tool throws: those tests must fail there, never skip.
 */
export function secretServiceSkipReason(): string | null {
  const missing = TOOLS.filter((cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status !== 0);
  if (missing.length === 0) return null;
  const reason = `needs ${missing.join(', ')} (apt-get install -y dbus-x11 gnome-keyring libsecret-tools)`;
  if (process.env.NIMBUS_REQUIRE_E2E === '1') throw new Error(`NIMBUS_REQUIRE_E2E=1 but the keychain tests cannot run: ${reason}`);
  return reason;
}

export interface SecretService {
  /** The session bus to give a child (DBUS_SESSION_BUS_ADDRESS). */
  bus: string;
  /** The value stored under service "Nimbus" for this account, or null. */
  lookup(account: string): Promise<string | null>;
  stop(): void;
}

/** Starts a session bus with gnome-keyring unlocked (password "pw"), its keyrings under `home`. */
export async function startSecretService(home: string): Promise<SecretService> {
  // The session lives as long as its shell waits on stdin; closing stdin ends it.
  const script = 'echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; echo "BUS=$DBUS_SESSION_BUS_ADDRESS"; read _';
  const session = spawn('dbus-run-session', ['--', 'sh', '-c', script], {
    env: { PATH: process.env.PATH, HOME: home },
    stdio: ['pipe', 'pipe', 'ignore'],
    detached: true,
  });
  let out = '';
  session.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const bus = await vi.waitFor(
    () => {
      const match = /^BUS=(.+)$/m.exec(out);
      if (!match) throw new Error(`no session bus yet (${out})`);
      return match[1];
    },
    { timeout: 20_000, interval: 50 },
  );
  const env = { PATH: process.env.PATH, HOME: home, DBUS_SESSION_BUS_ADDRESS: bus };
  const secretTool = promisify(execFile);
  return {
    bus,
    lookup: async (account) => {
      const result = await secretTool('secret-tool', ['lookup', 'service', 'Nimbus', 'username', account], { env }).catch(() => null);
      return result ? result.stdout : null;
    },
    stop: () => {
      session.stdin.end();
      try {
        process.kill(-session.pid!, 'SIGTERM');
      } catch {
        // Already gone with its session.
      }
    },
  };
}
