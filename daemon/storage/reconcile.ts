import { mkdir, readdir } from 'node:fs/promises';
import { sharePathKey } from '../store/store.js';
import type { NimbusContext } from '../context.js';
import { scanUserDir } from './scan.js';

/**
 * Makes the index equal to the disk: every user's directory is read afresh and the
 * differences applied (each emits its change event). Top-level directories that are not
 * users are orphans: reported, never touched. A storage directory that has vanished (an
 * unmounted disk) changes nothing: the index turns `unavailable` and every record stays.
 */
export async function reconcileAll(n: NimbusContext): Promise<void> {
  let entries;
  try {
    entries = await readdir(n.config.storageDir, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES' || code === 'EIO') {
      if (n.index.state !== 'unavailable') n.log(`Nimbus: the storage directory ${n.config.storageDir} is not available (${code}); keeping every record and share until it is back.`);
      n.index.setState('unavailable');
      return;
    }
    throw err;
  }
  const orphans = new Set<string>();
  const onDisk = new Set<string>();
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    if (n.store.users.has(entry.name)) onDisk.add(entry.name);
    else orphans.add(entry.name);
  }
  n.orphans.clear();
  for (const o of orphans) n.orphans.add(o);
  for (const username of n.store.users.keys()) {
    if (!onDisk.has(username)) {
      await mkdir(n.storage.path(username), { recursive: true });
    }
    const fresh = await scanUserDir(n.storage.path(username));
    // The user may have been deleted or renamed while we read the disk.
    if (n.store.users.has(username)) n.index.replaceUser(username, fresh);
  }
  for (const username of [...n.index.users.keys()]) if (!n.store.users.has(username)) n.index.users.delete(username);
  revokeVanishedShares(n);
  n.index.setState('ready');
}

/** Shares whose file is not on disk (deleted while the daemon was down) are revoked. */
function revokeVanishedShares(n: NimbusContext): void {
  let revoked = 0;
  for (const [token, share] of n.store.sharesByToken) {
    if (n.index.getFile(share.username, share.folder, share.file)) continue;
    n.store.sharesByToken.delete(token);
    n.store.sharesByPath.delete(sharePathKey(share.username, share.folder, share.file));
    revoked++;
  }
  if (revoked > 0) n.store.commit().catch((err: Error) => n.log(`Nimbus: could not save revoked shares: ${err.message}`));
}
