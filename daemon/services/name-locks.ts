/**
 * The rules every service that puts a name in a user's directory shares (files.ts, folders.ts,
 * transfers.ts, trash-restore.ts): the name's lock and the case-twin check. Their own module,
 * so that files.ts and the trash need not import each other.
 */
import type { NimbusContext } from '../context.js';
import { conflict } from '../errors.js';
import { foldName } from '../storage/file-index.js';

/**
 * The lock of a name in a directory (a file, or a folder at the root), by its folded name:
 * `Report.pdf` and `report.pdf` are one file on a case-insensitive disk, so an upload,
 * rename or folder creation of one must not run at once with one of the other.
 */
export const fileLock = (username: string, folder: string | null, file: string) =>
  `file:${username}/${folder === null ? '' : foldName(folder)}/${foldName(file)}`;

/** The `fileLock` of the file or folder at a user-relative path ('' is the user's root), as WebDAV names resources. */
export function pathLock(username: string, path: string): string {
  const cut = path.lastIndexOf('/');
  return cut < 0 ? fileLock(username, null, path) : fileLock(username, path.slice(0, cut), path.slice(cut + 1));
}

/**
 * Refuses to create `name` when another entry of the directory differs from it only in
 * case (one file on a case-insensitive disk); `except` is the file being renamed to `name`,
 * which may change its own case. Call under the name's `fileLock`.
 */
export function assertNoCaseTwin(nimbus: NimbusContext, username: string, folder: string | null, name: string, except?: string): void {
  const twin = nimbus.index.caseTwin(username, folder, name, except);
  if (twin === undefined) return;
  const dir = folder === null ? nimbus.index.user(username) : nimbus.index.folder(username, folder);
  const kind = dir?.folders.has(twin) ? 'folder' : 'file';
  throw conflict('name_case_conflict', `A ${kind} named '${twin}' already exists; names may not differ only in case`);
}
