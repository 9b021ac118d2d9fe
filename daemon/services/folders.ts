import type { Folder } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { notFound } from '../errors.js';
import { fileEntryJson, requireUser, toFolder } from './records.js';
import { assertNoCaseTwin, fileLock } from './files.js';
import { revokeFolderShares } from './shares.js';

export function listFolders(ctx: NimbusContext, username: string): Folder[] {
  requireUser(ctx, username);
  const node = ctx.index.user(username);
  if (!node) return [];
  return [...node.folders.keys()].sort().map((name) => toFolder(name, node.folders.get(name)!));
}

/**
 * One page of the files at the user's root (folder null) or in a folder, sorted by name, as the
 * JSON text of `{files: [...]}`, built from cached per-file JSON.
 */
export function listFilesJson(
  ctx: NimbusContext,
  username: string,
  folder: string | null,
  offset = 0,
  limit = Infinity,
): { total: number; json: string } {
  const files = filesOf(ctx, username, folder);
  if (!files) return { total: 0, json: '{"files":[]}' };
  const names = ctx.index.sortedNames(files);
  const end = Math.min(names.length, offset + limit);
  let json = '{"files":[';
  for (let i = offset; i < end; i++) json += (i > offset ? ',' : '') + fileEntryJson(ctx, username, folder, names[i], files.get(names[i])!);
  return { total: names.length, json: `${json}]}` };
}

function filesOf(ctx: NimbusContext, username: string, folder: string | null) {
  requireUser(ctx, username);
  const files = ctx.index.files(username, folder);
  if (!files && folder !== null) throw notFound('folder_not_found', 'Folder not found');
  return files;
}

export async function createFolder(ctx: NimbusContext, username: string, folder: string): Promise<Folder> {
  requireUser(ctx, username);
  // A folder is a name in the user's root like a file there: the same lock, the same case rule.
  return ctx.locks.run(fileLock(username, null, folder), async () => {
    if (!ctx.index.user(username)?.folders.has(folder)) assertNoCaseTwin(ctx, username, null, folder);
    await ctx.storage.createFolder(username, folder);
    return toFolder(folder, ctx.index.user(username)!.folders.get(folder)!);
  });
}

export async function deleteFolder(ctx: NimbusContext, username: string, folder: string): Promise<void> {
  requireUser(ctx, username);
  await ctx.storage.deleteFolder(username, folder);
  if (revokeFolderShares(ctx, username, folder) > 0) await ctx.store.commit();
}
