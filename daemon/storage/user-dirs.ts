/** The users' directories at the top of the storage directory: made, put back, renamed, removed. */
import { lstat, readdir, rename, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { conflict, fromFsError, nameUnavailable } from '../errors.js';
import { failpoint } from '../util/failpoints.js';
import { foldName } from './case-folds.js';
import type { DeleteUserSteps } from './file-storage.js';
import { ignoreExists, isNoDir } from './fs-helpers.js';
import { withDir } from './safe-dir.js';
import { lstatIn, mkdirIn } from './safe-ops.js';
import { userKey, type StorageParts } from './storage-parts.js';
import { entomb, removeTombstone, unentomb } from './tombstones.js';

/**
 * Makes a new user's directory, or adopts a real directory already there (an orphan).
 * Anything else of that name (a symlink, a file) is refused: adopting a link would
 * hand the user whatever it points to.
 */
export async function ensureUserDir(s: StorageParts, username: string): Promise<void> {
  s.assertWritable();
  s.path(username);
  await withDir(s.storageDir, [], async (root) => {
    const stat = await lstatIn(root, username);
    if (!stat) await mkdirIn(root, username).catch(ignoreExists);
    const dir = await root.child(username).catch((err: unknown) => {
      if (isNoDir(err))
        throw conflict('user_exists', 'The storage directory holds a symlink or file of that name; move it away before creating the user');
      throw fromFsError(err) ?? err;
    });
    await dir.close();
  });
  s.index.ensureUser(username);
}

/**
 * Makes a self-registered user's directory, empty: refused (409 name_unavailable) when
 * anything of that name, in any case, is in storage already (an orphan's files are never
 * handed to a stranger), or a trash directory of that name is (a deletion cut short: the next
 * start would hand its items to this account). The mkdir is exclusive, so a directory a sync
 * tool makes between the check and the mkdir is refused too, never adopted.
 */
export async function claimUserDir(s: StorageParts, trashDir: string, username: string): Promise<void> {
  s.assertWritable();
  s.path(username);
  if (await lstat(path.join(trashDir, username)).catch(() => null)) throw nameUnavailable();
  const folded = foldName(username);
  await withDir(s.storageDir, [], async (root) => {
    if ((await readdir(root.at())).some((name) => foldName(name) === folded)) throw nameUnavailable();
    await mkdirIn(root, username).catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw nameUnavailable();
      throw fromFsError(err) ?? err;
    });
    await root.fsync();
  });
  s.index.ensureUser(username);
}

/**
 * Takes back the directory `claimUserDir` made for a registration that failed before its
 * record was kept: removed while still empty (anything put in it meanwhile stays, an orphan),
 * and the name out of the index, so the name can be registered again.
 */
export async function unclaimUserDir(s: StorageParts, username: string): Promise<void> {
  s.path(username);
  await withDir(s.storageDir, [], (root) => rmdir(root.at(username)).catch(() => undefined));
  s.index.removeUser(username);
}

/** Puts back the directory of a user whose directory went missing; a link or file there is left alone (and never followed). */
export async function restoreUserDir(s: StorageParts, username: string): Promise<void> {
  s.path(username);
  await withDir(s.storageDir, [], async (root) => {
    if (!(await lstatIn(root, username))) await mkdirIn(root, username).catch(ignoreExists);
  });
}

export async function renameUser(s: StorageParts, from: string, to: string): Promise<void> {
  s.assertWritable();
  s.path(from);
  s.path(to);
  await s.live.run([userKey(from), userKey(to)], true, () =>
    withDir(s.storageDir, [], async (root) => {
      const target = await lstatIn(root, to);
      const source = await lstatIn(root, from);
      // On a case-insensitive disk `Ana` finds `ana` itself: a case-only rename, not a clash.
      const sameEntry = target !== null && source !== null && target.ino === source.ino && target.dev === source.dev;
      if (target && !sameEntry) throw conflict('user_exists', 'A directory with that user name already exists in storage');
      s.tickets.voidAll(from);
      // rename() moves a link itself, never its target; a link where the user's directory
      // should be is left behind (it was never followed) and the user starts afresh.
      if (source?.isDirectory()) await rename(root.at(from), root.at(to));
      else await mkdirIn(root, to);
      s.index.renameUser(from, to);
    }),
  );
}

/**
 * Deletes a user's directory so that no crash leaves it under the user's name
 * (tombstones.ts): renamed to a tombstone, then `steps.commit` (the record's removal; a
 * failure puts the directory back), then the tombstone removed.
 */
export async function deleteUser(s: StorageParts, username: string, steps: DeleteUserSteps): Promise<void> {
  s.path(username);
  let tombstone: string | null = null;
  await s.live.run([userKey(username)], true, async () => {
    s.tickets.voidAll(username);
    tombstone = await entomb(s.storageDir, username, steps.instance);
    failpoint('user.delete.entombed');
    try {
      await steps.commit();
    } catch (err) {
      // Should putting it back fail too, the tombstone stays, and the next start puts it back.
      if (tombstone) await unentomb(s.storageDir, tombstone, username).catch(() => undefined);
      throw err;
    }
    s.index.removeUser(username);
  });
  failpoint('user.delete.committed');
  if (tombstone) await removeTombstone(s.storageDir, tombstone);
}
