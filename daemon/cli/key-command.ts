/** `nimbus key show|rotate`: prints or replaces the admin key. */
import type { ConfigInput } from '../config.js';
import { loadAdminKey, saveAdminKey } from '../keys/admin-key.js';
import { newSecret } from '../keys/secrets.js';
import { readRunFile } from '../run-file.js';
import { configFor, lockHolder, warn } from './common.js';

export async function showKey(input: ConfigInput): Promise<number> {
  // Prints the key the daemon uses and moves nothing: an admin.key it reads stays where it is.
  const { key } = await loadAdminKey(configFor(input), warn, { moveKeyFile: false });
  process.stdout.write(`${key}\n`);
  return 0;
}

/**
 * Rotates through the running daemon when there is one, so the old key dies at once (and
 * every connection that used it is closed); else replaces the stored key offline.
 */
export async function rotateKey(input: ConfigInput): Promise<number> {
  const config = configFor(input);
  const current = await loadAdminKey(config, warn, { moveKeyFile: false });
  const running = await readRunFile(config.dataDir);
  if (running) {
    let res: Response;
    try {
      res = await fetch(`${running.url}/api/keys/rotate`, { method: 'POST', headers: { 'API-Key': current.key } });
    } catch (err) {
      warn(
        `nimbus: the daemon running on this data directory (pid ${running.pid}, ${running.url}) did not answer (${(err as Error).message}); the key was not rotated.`,
      );
      return 1;
    }
    const body = (await res.json().catch(() => ({}))) as { key?: string; error?: string };
    if (!res.ok || !body.key) {
      warn(`nimbus: the running daemon refused to rotate the key: ${body.error ?? res.status}`);
      return 1;
    }
    process.stdout.write(`${body.key}\n`);
    return 0;
  }
  // A daemon that holds the lock but left no address (an older version) would keep the old
  // key in memory: rotating behind its back would leave the leaked key working.
  const holder = await lockHolder(config.dataDir);
  if (holder !== null) {
    warn(
      `nimbus: a daemon (pid ${holder}) holds ${config.dataDir} but cannot be reached; restart it, then run \`nimbus key rotate\` again.`,
    );
    return 1;
  }
  const key = newSecret();
  await saveAdminKey(config, current.source, key, warn);
  process.stdout.write(`${key}\n`);
  return 0;
}
