/** The users' directories at the top of the storage directory: made, put back, renamed, removed. */
import { rename } from 'node:fs/promises';
import { conflict, fromFsError } from '../errors.js';
import { ignoreExists, isNoDir } from './fs-helpers.js';
import { withDir } from './safe-dir.js';
import { lstatIn, mkdirIn, removeTree } from './safe-ops.js';
import { userKey, type StorageParts } from './storage-parts.js';

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

export async function deleteUser(s: StorageParts, username: string): Promise<void> {
  s.path(username);
  await s.live.run([userKey(username)], true, async () => {
    s.tickets.voidAll(username);
    try {
      await withDir(s.storageDir, [], (root) => removeTree(root, username));
    } catch (err) {
      // The storage directory itself is gone (an unmounted disk): nothing to remove.
      if (!isNoDir(err)) throw err;
    }
    s.index.removeUser(username);
  });
}
