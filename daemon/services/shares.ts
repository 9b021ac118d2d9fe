import type { FileEntry } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { conflict, notFound } from '../errors.js';
import { newSecret } from '../keys/secrets.js';
import { sharePathKey } from '../store/store.js';
import type { StoredShare } from '../store/schema.js';
import { requireUser, toFileEntry } from './records.js';

/** Shares a file by a 256-bit token. */
export async function shareFile(ctx: NimbusContext, username: string, folder: string | null, file: string): Promise<FileEntry> {
  requireUser(ctx, username);
  const meta = ctx.storage.requireFile(username, folder, file);
  const key = sharePathKey(username, folder, file);
  if (ctx.store.sharesByPath.has(key)) throw conflict('already_shared', 'File is already shared');
  const share: StoredShare = { token: newSecret(), username, folder, file, createdAt: new Date().toISOString() };
  ctx.store.sharesByToken.set(share.token, share);
  ctx.store.sharesByPath.set(key, share);
  await ctx.store.commit();
  return toFileEntry(ctx, username, folder, file, meta);
}

export async function unshareFile(ctx: NimbusContext, username: string, folder: string | null, file: string): Promise<FileEntry> {
  requireUser(ctx, username);
  const meta = ctx.storage.requireFile(username, folder, file);
  if (!revokeShare(ctx, username, folder, file)) throw notFound('share_not_found', 'File is not shared');
  await ctx.store.commit();
  return toFileEntry(ctx, username, folder, file, meta);
}

/** Removes a file's share from the store (the caller commits). */
export function revokeShare(ctx: NimbusContext, username: string, folder: string | null, file: string): boolean {
  const key = sharePathKey(username, folder, file);
  const share = ctx.store.sharesByPath.get(key);
  if (!share) return false;
  ctx.store.sharesByPath.delete(key);
  ctx.store.sharesByToken.delete(share.token);
  return true;
}

/** Removes the shares of every file in a folder (the caller commits). */
export function revokeFolderShares(ctx: NimbusContext, username: string, folder: string): number {
  let n = 0;
  for (const share of [...ctx.store.sharesByToken.values()]) {
    if (share.username === username && share.folder === folder && revokeShare(ctx, username, folder, share.file)) n++;
  }
  return n;
}

/** Moves a share with its file (the caller commits). */
export function moveShare(ctx: NimbusContext, username: string, folder: string | null, from: string, to: string): void {
  const share = ctx.store.sharesByPath.get(sharePathKey(username, folder, from));
  if (!share) return;
  const moved = { ...share, file: to };
  ctx.store.sharesByPath.delete(sharePathKey(username, folder, from));
  ctx.store.sharesByPath.set(sharePathKey(username, folder, to), moved);
  ctx.store.sharesByToken.set(share.token, moved);
}

/**
 * Revokes shares whose file left the disk by any route (another program, a reconcile).
 * Checked on the next turn of the event loop, so the daemon's own rename, which removes
 * and re-adds in one step and moves the share itself, is not mistaken for a delete.
 */
export function watchForVanishedShares(ctx: NimbusContext): void {
  ctx.index.on('change', (event) => {
    if (event.username === null) return;
    if (event.type !== 'file.removed' && event.type !== 'folder.removed' && event.type !== 'user.removed') return;
    const { username, folder, file } = event;
    setImmediate(() => {
      let revoked = 0;
      for (const share of [...ctx.store.sharesByToken.values()]) {
        if (share.username !== username) continue;
        if (event.type === 'folder.removed' && share.folder !== folder) continue;
        if (event.type === 'file.removed' && (share.folder !== folder || share.file !== file)) continue;
        if (ctx.index.getFile(share.username, share.folder, share.file)) continue;
        if (event.type === 'user.removed' && ctx.store.users.has(username)) continue;
        if (revokeShare(ctx, share.username, share.folder, share.file)) revoked++;
      }
      if (revoked > 0) ctx.store.commit().catch((err: Error) => ctx.log(`Nimbus: could not save revoked shares: ${err.message}`));
    });
  });
}
