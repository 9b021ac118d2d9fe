/**
 * Folder and upload links (docs/sharing.md, "Folder links"): one link to a folder's whole tree,
 * read-only, or one drop box into it. A link names its folder by path, so it follows the
 * folder when the folder (or a folder above it) is renamed or moved, as file links do, and is
 * revoked with the folder. What a folder link's visitor asks for is resolved inside the shared
 * folder only: `path` is checked as a folder path (no `..`, no empty or dot name) and joined
 * below the link's folder, so nothing above it can be named.
 */
import type { ShareInfo } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { conflict, notFound } from '../errors.js';
import { newSecret } from '../keys/secrets.js';
import type { FileMeta } from '../storage/index-tree.js';
import { folderLinkKey } from '../store/store.js';
import type { StoredShare } from '../store/schema.js';
import { mimeTypeOf, requireUser } from './records.js';
import { shareInfo, withOptions, type ShareOptionParams } from './share-options.js';

const kindOf = (upload: boolean) => (upload ? 'upload' : 'folder');

function requireFolder(nimbus: NimbusContext, username: string, folder: string): void {
  if (!nimbus.index.folder(username, folder)) throw notFound('folder_not_found', 'Folder not found');
}

/** Makes a folder's link (or upload link); 409 `already_shared` when it has one. */
export async function shareFolder(
  nimbus: NimbusContext,
  username: string,
  folder: string,
  upload: boolean,
  options: ShareOptionParams,
): Promise<ShareInfo> {
  requireUser(nimbus, username);
  requireFolder(nimbus, username, folder);
  const key = folderLinkKey(username, folder, kindOf(upload));
  const taken = () => {
    if (nimbus.store.sharesByPath.has(key))
      throw conflict('already_shared', upload ? 'The folder already has an upload link' : 'Folder is already shared');
  };
  taken();
  const base: StoredShare = { token: newSecret(), kind: kindOf(upload), username, folder, file: '', createdAt: new Date().toISOString() };
  const share = await withOptions(base, options);
  // A password's hash took a moment: the folder may have been shared, moved or deleted meanwhile.
  requireFolder(nimbus, username, folder);
  taken();
  nimbus.store.putShare(share);
  await nimbus.store.commit();
  return shareInfo(nimbus, share, 0);
}

/** The folder's link of that kind; 404 `share_not_found` when it has none. */
export function folderLinkOf(nimbus: NimbusContext, username: string, folder: string, upload: boolean): StoredShare {
  requireUser(nimbus, username);
  requireFolder(nimbus, username, folder);
  const share = nimbus.store.sharesByPath.get(folderLinkKey(username, folder, kindOf(upload)));
  if (!share) throw notFound('share_not_found', upload ? 'The folder has no upload link' : 'Folder is not shared');
  return share;
}

export async function unshareFolder(nimbus: NimbusContext, username: string, folder: string, upload: boolean): Promise<void> {
  nimbus.store.deleteShare(folderLinkOf(nimbus, username, folder, upload));
  await nimbus.store.commit();
}

/** What a folder link's `path` names: a folder or a file inside the shared folder, or null (nothing there). */
export type InLink =
  { kind: 'folder'; folder: string; path: string } | { kind: 'file'; folder: string; name: string; path: string; meta: FileMeta };

export function resolveInLink(nimbus: NimbusContext, share: StoredShare, path: string | null): InLink | null {
  const base = share.folder!;
  if (path === null || path === '') return nimbus.index.folder(share.username, base) ? { kind: 'folder', folder: base, path: '' } : null;
  const joined = `${base}/${path}`;
  if (nimbus.index.folder(share.username, joined)) return { kind: 'folder', folder: joined, path };
  const slash = joined.lastIndexOf('/');
  const [parent, name] = [joined.slice(0, slash), joined.slice(slash + 1)];
  const meta = nimbus.index.getFile(share.username, parent, name);
  return meta ? { kind: 'file', folder: parent, name, path, meta } : null;
}

/** One level of a shared folder, as its page and its JSON show it. */
export interface LinkListing {
  /** The shared folder's own name. */
  name: string;
  /** Where in it ('' its top). */
  path: string;
  folders: { name: string }[];
  files: { name: string; size: number; modifiedAt: string; mimeType: string }[];
}

export function listInLink(nimbus: NimbusContext, share: StoredShare, at: { folder: string; path: string }): LinkListing {
  const node = nimbus.index.folder(share.username, at.folder);
  const files = nimbus.index.files(share.username, at.folder) ?? new Map<string, FileMeta>();
  return {
    name: share.folder!.slice(share.folder!.lastIndexOf('/') + 1),
    path: at.path,
    folders: [...(node?.folders.keys() ?? [])].sort().map((name) => ({ name })),
    files: nimbus.index.sortedNames(files).map((name) => {
      const meta = files.get(name)!;
      return { name, size: meta.size, modifiedAt: new Date(meta.mtimeMs).toISOString(), mimeType: mimeTypeOf(name) };
    }),
  };
}
