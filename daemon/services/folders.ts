import type { FileEntry, Folder, JsonText } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { notFound } from '../errors.js';
import { fileEntryJson, requireUser, toFolder } from './records.js';
import { assertNoCaseTwin, fileLock } from './files.js';
import { revokeFolderShares } from './shares.js';
import { trashFolder } from './trash.js';

export function listFolders(nimbus: NimbusContext, username: string): Folder[] {
  requireUser(nimbus, username);
  const node = nimbus.index.user(username);
  if (!node) return [];
  return [...node.folders.keys()].sort().map((name) => toFolder(name, node.folders.get(name)!));
}

/**
 * One page of the files at the user's root (folder null) or in a folder, sorted by name, as the
 * JSON text of `{files: [...]}`, built from cached per-file JSON.
 */
export function listFilesJson(
  nimbus: NimbusContext,
  username: string,
  folder: string | null,
  offset = 0,
  limit = Infinity,
): { total: number; json: JsonText<{ files: FileEntry[] }> } {
  const files = filesOf(nimbus, username, folder);
  if (!files) return { total: 0, json: '{"files":[]}' as JsonText<{ files: FileEntry[] }> };
  const names = nimbus.index.sortedNames(files);
  const end = Math.min(names.length, offset + limit);
  let json = '{"files":[';
  for (let i = offset; i < end; i++)
    json += (i > offset ? ',' : '') + fileEntryJson(nimbus, username, folder, names[i], files.get(names[i])!);
  // Each entry is JSON.stringify of a FileEntry (fileEntryJson), so this is the text of {files: FileEntry[]}.
  return { total: names.length, json: `${json}]}` as JsonText<{ files: FileEntry[] }> };
}

function filesOf(nimbus: NimbusContext, username: string, folder: string | null) {
  requireUser(nimbus, username);
  const files = nimbus.index.files(username, folder);
  if (!files && folder !== null) throw notFound('folder_not_found', 'Folder not found');
  return files;
}

export async function createFolder(nimbus: NimbusContext, username: string, folder: string): Promise<Folder> {
  requireUser(nimbus, username);
  // A folder is a name in the user's root like a file there: the same lock, the same case rule.
  return nimbus.locks.run(fileLock(username, null, folder), async () => {
    if (!nimbus.index.user(username)?.folders.has(folder)) assertNoCaseTwin(nimbus, username, null, folder);
    await nimbus.storage.createFolder(username, folder);
    return toFolder(folder, nimbus.index.user(username)!.folders.get(folder)!);
  });
}

/**
 * Deletes a folder with its files: into the user's trash (answering the trash item's id), or
 * with `permanent` for good (answering null). The shares of its files are revoked at once.
 */
export async function deleteFolder(nimbus: NimbusContext, username: string, folder: string, permanent = false): Promise<string | null> {
  requireUser(nimbus, username);
  if (!permanent) return trashFolder(nimbus, username, folder);
  await nimbus.locks.run(fileLock(username, null, folder), () => nimbus.storage.deleteFolder(username, folder));
  if (revokeFolderShares(nimbus, username, folder) > 0) await nimbus.store.commit();
  return null;
}
