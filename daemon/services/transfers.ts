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
import { splitFolder } from '../storage/paths.js';

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
    let shareMoved = false;
    const meta = await nimbus.storage.moveFile(username, from, file, to, () => {
      shareMoved = moveShareToFolder(nimbus, username, from, file, to);
    });
    if (shareMoved) await nimbus.store.commit();
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
export async function renameFolder(nimbus: NimbusContext, username: string, folder: string, newName: string): Promise<Folder> {
  requireUser(nimbus, username);
  nimbus.storage.requireFolder(username, folder);
  const { parent, name } = splitFolder(folder);
  const renamed = parent === null ? newName : `${parent}/${newName}`;
  // The locks of the subtree's shared files too: a rename or delete of one of them moves or
  // revokes its share after its disk work, which must not land on the folder's old path.
  const sharedFiles = sharesBelow(nimbus, username, folder).map((s) => fileLock(username, s.folder, s.file));
  return nimbus.locks.run([fileLock(username, parent, name), fileLock(username, parent, newName), ...sharedFiles], async () => {
    nimbus.storage.requireFolder(username, folder);
    if (newName !== name) {
      if (nimbus.index.folder(username, renamed) || nimbus.index.getFile(username, parent, newName))
        throw conflict(
          'folder_exists',
          `A folder or file with that name already exists ${parent === null ? 'at the root' : 'in the folder'}`,
        );
      assertNoCaseTwin(nimbus, username, parent, newName, name);
    }
    let sharesMoved = 0;
    await nimbus.storage.renameFolder(username, folder, newName, () => {
      sharesMoved = moveFolderShares(nimbus, username, folder, renamed);
    });
    if (sharesMoved > 0) await nimbus.store.commit();
    return toFolder(renamed, nimbus.index.folder(username, renamed)!);
  });
}
