import type { ErrorCode } from '../../shared/errors.js';
import { fromFsError, notFound } from '../errors.js';
import type { FileIndex } from './file-index.js';
import type { FileMeta } from './index-tree.js';
import { isNoDir } from './fs-helpers.js';
import { folderComponents } from './paths.js';
import { OpenDir } from './safe-dir.js';
import type { SharedExclusiveLock } from './safe-lock.js';
import type { UploadTickets } from './upload-tickets.js';

/** What the storage operations (user-dirs.ts, entries.ts, uploads.ts, open-file.ts) share: the Storage's checks, its lock and its upload tickets. */
export interface StorageParts {
  readonly storageDir: string;
  readonly tmpDir: string;
  readonly index: FileIndex;
  /** Held shared for work inside a user or folder, exclusively to delete or rename it. */
  readonly live: SharedExclusiveLock;
  readonly tickets: UploadTickets;
  assertWritable(): void;
  path(username: string, folder?: string | null, file?: string | null): string;
  requireFolder(username: string, folder: string | null): void;
  requireFile(username: string, folder: string | null, file: string): FileMeta;
}

export const userKey = (username: string) => username;
export const folderKey = (username: string, folder: string) => `${username}\0${folder}`;
/**
 * The lock keys of work inside a folder: the user's and each folder on its path (`a`, `a/b`…),
 * so deleting or renaming any ancestor (exclusive on its key) waits for it. A one-level
 * folder's keys are what they always were.
 */
export function keysOf(username: string, folder: string | null): string[] {
  const keys = [userKey(username)];
  if (folder === null) return keys;
  for (let cut = folder.indexOf('/'); cut >= 0; cut = folder.indexOf('/', cut + 1)) keys.push(folderKey(username, folder.slice(0, cut)));
  keys.push(folderKey(username, folder));
  return keys;
}

/**
 * Runs `fn` inside the user's directory (or folder), opened without following links;
 * `missing` is the 404 for a directory that is not there or not a real one.
 */
export async function within<T>(
  storageDir: string,
  username: string,
  folder: string | null,
  missing: ErrorCode,
  fn: (dir: OpenDir) => Promise<T>,
): Promise<T> {
  let dir: OpenDir;
  try {
    dir = await OpenDir.open(storageDir, [username, ...folderComponents(folder)]);
  } catch (err) {
    if (!isNoDir(err)) throw fromFsError(err) ?? err;
    throw notFound(
      missing,
      missing === 'folder_not_found'
        ? 'Folder not found'
        : missing === 'user_not_found'
          ? 'The user’s directory is missing from storage, or is not a real directory (a rescan puts a missing one back)'
          : 'File not found',
    );
  }
  try {
    return await fn(dir);
  } finally {
    await dir.close();
  }
}
