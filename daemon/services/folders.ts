import type { FileEntry, Folder } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { notFound } from '../errors.js';
import { joinFolder } from '../storage/index-tree.js';
import { splitFolder } from '../storage/paths.js';
import { fileEntryBytes, requireUser, toFolder } from './records.js';
import { type JsonBytes, jsonListBytes } from '../util/json-bytes.js';
import { assertNoCaseTwin, fileLock } from './files.js';
import { keepPage, keptPage } from './folder-pages.js';
import { forgetResource } from './dav-follow.js';
import { requireUnlocked } from './lock-tokens.js';
import { revokeFolderShares } from './shares.js';
import { trashFolder } from './trash.js';

/** The folders at the user's root, or directly inside `folder` (404 when it is not there), sorted by name. */
export function listFolders(nimbus: NimbusContext, username: string, folder: string | null = null): Folder[] {
  requireUser(nimbus, username);
  const node = nimbus.index.user(username);
  const dir = folder === null ? node : nimbus.index.folder(username, folder);
  if (!dir && folder !== null) throw notFound('folder_not_found', 'Folder not found');
  if (!dir) return [];
  return [...dir.folders.keys()].sort().map((name) => toFolder(joinFolder(folder, name), dir.folders.get(name)!));
}

/**
 * One page of the files at the user's root (folder null) or in a folder, sorted by name, as the
 * UTF-8 JSON of `{files: [...]}`, copied from cached per-file bytes.
 */
export function listFilesJson(
  nimbus: NimbusContext,
  username: string,
  folder: string | null,
  offset = 0,
  limit = Infinity,
): { total: number; json: JsonBytes<{ files: FileEntry[] }> } {
  const files = filesOf(nimbus, username, folder);
  if (!files) return { total: 0, json: jsonListBytes('files', []) };
  const anyShared = nimbus.store.sharesByPath.anyIn(username, folder);
  const kept = anyShared ? undefined : keptPage(files, folder, offset, limit);
  if (kept) return kept;
  const names = nimbus.index.sortedNames(files);
  const end = Math.min(names.length, offset + limit);
  const entries: Buffer[] = [];
  for (let i = offset; i < end; i++) entries.push(fileEntryBytes(nimbus, username, folder, names[i], files.get(names[i])!, anyShared));
  // Each entry is the JSON of a FileEntry (fileEntryBytes), so this is {files: FileEntry[]}.
  const page = { total: names.length, json: jsonListBytes<{ files: FileEntry[] }>('files', entries) };
  if (!anyShared) keepPage(files, folder, offset, limit, page);
  return page;
}

function filesOf(nimbus: NimbusContext, username: string, folder: string | null) {
  requireUser(nimbus, username);
  const files = nimbus.index.files(username, folder);
  if (!files && folder !== null) throw notFound('folder_not_found', 'Folder not found');
  return files;
}

/**
 * Creates the folder at `folder` (a path). Its parent must exist (404), unless `parents`:
 * then the missing ones above it are made first, as `mkdir -p` (an existing last folder is
 * still a 409, as without it).
 */
export async function createFolder(nimbus: NimbusContext, username: string, folder: string, parents = false): Promise<Folder> {
  requireUser(nimbus, username);
  if (parents) {
    for (let cut = folder.indexOf('/'); cut >= 0; cut = folder.indexOf('/', cut + 1)) {
      const above = folder.slice(0, cut);
      if (!nimbus.index.folder(username, above)) await createOne(nimbus, username, above, true);
    }
  }
  return createOne(nimbus, username, folder, false);
}

/** One folder in its parent: a name in a directory like a file there, under the same lock and the same case rule. */
function createOne(nimbus: NimbusContext, username: string, folder: string, mayExist: boolean): Promise<Folder> {
  const { parent, name } = splitFolder(folder);
  return nimbus.locks.run(fileLock(username, parent, name), async () => {
    const existing = nimbus.index.folder(username, folder);
    if (!(mayExist && existing)) {
      // A new member of its parent (and a name a WebDAV client may have locked before it existed).
      requireUnlocked(nimbus, username, [parent ?? '', folder]);
      if (!existing) assertNoCaseTwin(nimbus, username, parent, name);
      await nimbus.storage.createFolder(username, folder);
    }
    return toFolder(folder, nimbus.index.folder(username, folder)!);
  });
}

/**
 * Deletes a folder with its files: into the user's trash (answering the trash item's id), or
 * with `permanent` for good (answering null). The shares of its files are revoked at once.
 */
export async function deleteFolder(nimbus: NimbusContext, username: string, folder: string, permanent = false): Promise<string | null> {
  requireUser(nimbus, username);
  if (!permanent) return trashFolder(nimbus, username, folder);
  const { parent, name } = splitFolder(folder);
  await nimbus.locks.run(fileLock(username, parent, name), async () => {
    requireUnlocked(nimbus, username, [parent ?? ''], [folder]);
    await nimbus.storage.deleteFolder(username, folder);
  });
  const revoked = revokeFolderShares(nimbus, username, folder) > 0;
  if (forgetResource(nimbus, username, folder) || revoked) await nimbus.store.commit();
  return null;
}
