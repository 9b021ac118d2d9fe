/**
 * files.move, files.copy and folders.rename (docs/explorer.md, "Move, copy, rename a folder").
 * A move and a folder rename are renames on disk whose shares follow (same tokens); a copy
 * is a new, unshared file that goes through the upload's path: its bytes reserved against
 * the quota first, then a temp file, fsynced, linked into place without replacing anything.
 */
import { Readable } from 'node:stream';
import type { FileEntry, Folder } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { conflict } from '../errors.js';
import type { OpenedFile } from '../storage/file-storage.js';
import { assertNoCaseTwin, fileLock, uploadFile } from './files.js';
import { requireUser, toFileEntry, toFolder } from './records.js';
import { moveFolderShares, moveShareToFolder, sharesBelow } from './shares.js';
import { joinFolder } from '../storage/index-tree.js';
import { splitFolder } from '../storage/paths.js';
import { followMove } from './dav-follow.js';
import { requireUnlocked } from './lock-tokens.js';

/**
 * What refuses `file` of `from` arriving in `to`, from the index, before any disk access:
 * 404 for a missing source folder, file or target folder; 409 `file_exists` for a name
 * taken there (the file itself, when `to` is where it already is), `folder_exists` for a
 * folder of that name at the root, `name_case_conflict` for a name differing only in case.
 * Call under the `fileLock`s of both names; the storage layer checks the disk again.
 */
function assertArrivable(nimbus: NimbusContext, username: string, from: string | null, file: string, to: string | null): void {
  nimbus.storage.requireFile(username, from, file);
  nimbus.storage.requireFolder(username, to);
  if (from === to || nimbus.index.getFile(username, to, file))
    throw conflict('file_exists', 'A file with that name already exists in the target folder');
  if (to === null && nimbus.index.user(username)?.folders.has(file))
    throw conflict('folder_exists', 'A folder with that name already exists at the root');
  assertNoCaseTwin(nimbus, username, to, file);
}

/** Moves a file to another folder or the root; its share link follows (same token). */
export async function moveFile(
  nimbus: NimbusContext,
  username: string,
  from: string | null,
  file: string,
  to: string | null,
): Promise<FileEntry> {
  requireUser(nimbus, username);
  // The source's lock is the one a delete, rename or upload of it takes: a move racing any of them runs before or after, never between.
  return nimbus.locks.run([fileLock(username, from, file), fileLock(username, to, file)], async () => {
    assertArrivable(nimbus, username, from, file, to);
    const [source, target] = [joinFolder(from, file), joinFolder(to, file)];
    // Both folders' members change, the file moves away, and its new name may be locked already.
    requireUnlocked(nimbus, username, [from ?? '', source, to ?? '', target]);
    let changed = false;
    const meta = await nimbus.storage.moveFile(username, from, file, to, () => {
      const shareMoved = moveShareToFolder(nimbus, username, from, file, to);
      changed = followMove(nimbus, username, source, target) || shareMoved;
    });
    if (changed) await nimbus.store.commit();
    return toFileEntry(nimbus, username, to, file, meta);
  });
}

/**
 * Copies a file to another folder or the root as a new, unshared file: an upload whose body
 * is the source, read through the same symlink-refusing open as a download, so its size is
 * reserved against the quota before a byte is copied (copies and uploads at once never pass
 * it together: 507 `quota_exceeded`) and it lands only whole.
 */
export async function copyFile(
  nimbus: NimbusContext,
  username: string,
  from: string | null,
  file: string,
  to: string | null,
): Promise<FileEntry> {
  requireUser(nimbus, username);
  // Checked again where the copy lands (uploadFile, under the target's lock); here so a refusal reads nothing.
  assertArrivable(nimbus, username, from, file, to);
  const opened = await nimbus.storage.openFile(username, from, file);
  return withSourceBytes(opened, (body) =>
    uploadFile(nimbus, { username, folder: to, file, overwrite: false, declaredLength: opened.size, body }),
  );
}

/**
 * Runs `fn` with a stream of exactly the bytes the opened file had when it was opened (a file
 * still growing is copied as it was then), and closes the file however `fn` ends.
 */
async function withSourceBytes<T>(opened: OpenedFile, fn: (body: Readable) => Promise<T>): Promise<T> {
  try {
    if (opened.size === 0) return await fn(Readable.from([]));
    const body = await opened.stream();
    // The upload listens while it reads; an error after it gave up (a read still in flight) must not go unheard.
    body.on('error', () => undefined);
    return await fn(body);
  } finally {
    // Destroys the stream if the upload stopped early, and waits until the file is closed.
    await opened.close();
  }
}

/**
 * Renames a folder at any depth within its parent; every share of a file anywhere below
 * follows (same tokens). 409 `folder_exists` for a folder or file of the new name beside it,
 * `name_case_conflict` for a case twin; the same name is no change (as a file rename).
 */
export function renameFolder(nimbus: NimbusContext, username: string, folder: string, newName: string): Promise<Folder> {
  return relocateFolder(nimbus, username, folder, splitFolder(folder).parent, newName, false);
}

/**
 * Moves a folder with its subtree into `to` (null: the root), keeping its name; the shares
 * below follow. 409 `conflict` into itself or a folder inside it, `folder_exists` or
 * `name_case_conflict` for a name taken at the target (where it already is, too, as a file move).
 */
export function moveFolder(nimbus: NimbusContext, username: string, folder: string, to: string | null): Promise<Folder> {
  return relocateFolder(nimbus, username, folder, to, splitFolder(folder).name, true);
}

/** Puts `folder` into `to` as `newName` (`move`: into another folder, else a rename in its own), checked from the index first. */
async function relocateFolder(
  nimbus: NimbusContext,
  username: string,
  folder: string,
  to: string | null,
  newName: string,
  move: boolean,
): Promise<Folder> {
  requireUser(nimbus, username);
  nimbus.storage.requireFolder(username, folder);
  nimbus.storage.requireFolder(username, to);
  const { parent, name } = splitFolder(folder);
  const arrived = to === null ? newName : `${to}/${newName}`;
  if (to !== null && (to === folder || to.startsWith(`${folder}/`)))
    throw conflict('conflict', 'A folder cannot be moved into itself or a folder inside it');
  // The locks of the subtree's shared files too: a rename or delete of one of them moves or
  // revokes its share after its disk work, which must not land on the folder's old path.
  const sharedFiles = sharesBelow(nimbus, username, folder).map((s) => fileLock(username, s.folder, s.file));
  return nimbus.locks.run([fileLock(username, parent, name), fileLock(username, to, newName), ...sharedFiles], async () => {
    nimbus.storage.requireFolder(username, folder);
    nimbus.storage.requireFolder(username, to);
    if (move || newName !== name) {
      if (nimbus.index.folder(username, arrived) || nimbus.index.getFile(username, to, newName))
        throw conflict('folder_exists', `A folder or file with that name already exists ${to === null ? 'at the root' : 'in the folder'}`);
      assertNoCaseTwin(nimbus, username, to, newName, move ? undefined : name);
    }
    // Both parents' members change, and every lock anywhere in the subtree goes with it.
    requireUnlocked(nimbus, username, [parent ?? '', to ?? '', arrived], [folder]);
    let changed = false;
    // Its shares and WebDAV state follow in the step that makes the move real (object mode: the same commit).
    const follow = () => {
      const sharesMoved = moveFolderShares(nimbus, username, folder, arrived) > 0;
      changed = followMove(nimbus, username, folder, arrived) || sharesMoved;
    };
    await (move ? nimbus.storage.moveFolder(username, folder, to, follow) : nimbus.storage.renameFolder(username, folder, newName, follow));
    if (changed) await nimbus.store.commit();
    return toFolder(arrived, nimbus.index.folder(username, arrived)!);
  });
}
