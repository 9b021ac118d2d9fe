/**
 * folders.copy (docs/tree.md): a folder with its whole subtree copied into another folder or
 * the root as new, unshared files. Its bytes are held against the quota before a byte is
 * written, through the same reservations as uploads and file copies, so copies and uploads at
 * once never pass it together; storage makes the copy appear only whole (on disk a hidden
 * directory renamed into place, in object mode its new rows in one commit).
 */
import type { Folder } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { conflict, quotaExceeded } from '../errors.js';
import { joinFolder } from '../storage/index-tree.js';
import { splitFolder } from '../storage/paths.js';
import { requireUnlocked } from './lock-tokens.js';
import { assertNoCaseTwin, fileLock } from './name-locks.js';
import { QuotaHold } from './quota.js';
import { maxBytesOf, requireUser, toFolder, usedBytesOf } from './records.js';

/**
 * Copies `folder` with its subtree into `to` (null: the root), keeping its name. 404 for a
 * missing folder or target; 409 `conflict` into itself or a folder inside it, `folder_exists`
 * or `name_case_conflict` for a name taken at the target (in its own parent, too); 507
 * `quota_exceeded` when its bytes do not fit, nothing written.
 */
export async function copyFolder(nimbus: NimbusContext, username: string, folder: string, to: string | null): Promise<Folder> {
  const user = requireUser(nimbus, username);
  nimbus.storage.requireFolder(username, folder);
  nimbus.storage.requireFolder(username, to);
  if (to !== null && (to === folder || to.startsWith(`${folder}/`)))
    throw conflict('conflict', 'A folder cannot be copied into itself or a folder inside it');
  const { name } = splitFolder(folder);
  const arrived = joinFolder(to, name);
  const maxBytes = maxBytesOf(nimbus, user);
  const quota = new QuotaHold(nimbus.quota, username, () => ({ maxBytes, usedBytes: usedBytesOf(nimbus, username), freedBytes: 0 }));
  return nimbus.locks.run(fileLock(username, to, name), async () => {
    nimbus.storage.requireFolder(username, folder);
    nimbus.storage.requireFolder(username, to);
    if (nimbus.index.folder(username, arrived) || nimbus.index.getFile(username, to, name))
      throw conflict('folder_exists', `A folder or file with that name already exists ${to === null ? 'at the root' : 'in the folder'}`);
    assertNoCaseTwin(nimbus, username, to, name);
    requireUnlocked(nimbus, username, [to ?? '', arrived]);
    // As for an upload: a user over their quota copies nothing, not even an empty folder.
    if (maxBytes >= 0 && usedBytesOf(nimbus, username) > maxBytes)
      throw quotaExceeded('The user is over their storage quota; delete files (and empty the trash) before copying', { available: 0 });
    try {
      await nimbus.storage.copyFolder(username, folder, to, { reserve: (total) => quota.cover(total, true) });
    } finally {
      // Once the copy is counted (or failed): briefly counted twice, never zero times.
      await quota.release();
    }
    return toFolder(arrived, nimbus.index.folder(username, arrived)!);
  });
}
