/**
 * A deleted user's directory on its way out (issue 22). `user.delete` first renames
 * `<storage>/<name>` to a tombstone, `<storage>/.nimbus-deleted-<tag><random>-<name>` (one
 * rename, on the same file system; the tag, 8 hex digits, names the account by its creation
 * time, so a later account of the same name is never taken for it), then commits the record's removal, then removes the tombstone.
 * Names starting with `.nimbus` are never users (shared/validation.ts), so from the first step
 * on nothing is left under the user's name for a new account to claim, and the scan, the
 * watcher and the orphan list skip tombstones. A crash between the steps is finished at the
 * next start (`settleTombstones`): a tombstone whose account is still in the store (the delete
 * never committed) is put back, every other one is removed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdir, rename } from 'node:fs/promises';
import { isNoDir } from './fs-helpers.js';
import { withDir, type OpenDir } from './safe-dir.js';
import { lstatIn, removeTree } from './safe-ops.js';

const TOMBSTONE = /^\.nimbus-deleted-([0-9a-f]{8})[0-9a-f]{8}-(.+)$/;

/** The tag of one account: its name and creation time (`instance`), hashed short. */
const tagOf = (username: string, instance: string) => createHash('sha256').update(`${username}\0${instance}`).digest('hex').slice(0, 8);

/** Whether a top-level name in storage is a deleted user's tombstone (never a user, never an orphan). */
export const isTombstone = (name: string): boolean => TOMBSTONE.test(name);

/**
 * Renames whatever is at `<storage>/<username>` (a link is moved, never followed) to a new
 * tombstone of the account `instance` (its creation time), durably; null when nothing is
 * there, or the storage directory itself is gone.
 */
export async function entomb(storageDir: string, username: string, instance: string): Promise<string | null> {
  try {
    return await withDir(storageDir, [], async (root) => {
      if (!(await lstatIn(root, username))) return null;
      const tombstone = `.nimbus-deleted-${tagOf(username, instance)}${randomBytes(4).toString('hex')}-${username}`;
      await rename(root.at(username), root.at(tombstone));
      await root.fsync();
      return tombstone;
    });
  } catch (err) {
    if (isNoDir(err)) return null;
    throw err;
  }
}

/** Puts a tombstone back under its user's name (a delete that did not commit); false when that name is taken again. */
async function putBack(root: OpenDir, tombstone: string, username: string): Promise<boolean> {
  if (await lstatIn(root, username)) return false;
  await rename(root.at(tombstone), root.at(username));
  await root.fsync();
  return true;
}

/** Undoes `entomb` after the delete's commit failed: the user keeps their directory. */
export async function unentomb(storageDir: string, tombstone: string, username: string): Promise<void> {
  await withDir(storageDir, [], (root) => putBack(root, tombstone, username));
}

/** Removes a tombstone and everything in it (nothing there is fine). */
export async function removeTombstone(storageDir: string, tombstone: string): Promise<void> {
  try {
    await withDir(storageDir, [], (root) => removeTree(root, tombstone));
  } catch (err) {
    if (!isNoDir(err)) throw err;
  }
}

/**
 * At start, before the first scan: tombstones of accounts still in the store are put back
 * (their delete never committed; `instanceOf` answers a user's creation time), and the others
 * are removed, in the background: the returned promise settles when they are gone (a failure
 * is logged; the next start tries again).
 */
export async function settleTombstones(
  storageDir: string,
  instanceOf: (username: string) => string | undefined,
  log: (line: string) => void,
): Promise<{ restored: number; removing: Promise<void> }> {
  const names = (await readdir(storageDir).catch(() => [] as string[])).filter(isTombstone);
  const doomed: string[] = [];
  let restored = 0;
  if (names.length > 0) {
    await withDir(storageDir, [], async (root) => {
      for (const name of names) {
        const [, tag, username] = TOMBSTONE.exec(name)!;
        const instance = instanceOf(username);
        if (instance !== undefined && tagOf(username, instance) === tag && (await putBack(root, name, username))) restored++;
        else doomed.push(name);
      }
    });
  }
  if (restored > 0) log(`Nimbus: ${restored} user deletion(s) cut short before they were saved were undone; those users keep their files.`);
  const removing = (async () => {
    for (const name of doomed) await removeTombstone(storageDir, name);
  })().catch((err: Error) => log(`Nimbus: removing the files of deleted users failed (tried again at the next start): ${err.message}`));
  return { restored, removing };
}
