/**
 * Share links as their owner manages them (docs/sharing.md): the list with each link's
 * options, downloads and state, and an edit of the options; and the link as the public
 * opens it, which answers only while it is active.
 */
import type { ShareInfo } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { badRequest, notFound } from '../errors.js';
import { folderLinkOf } from './folder-links.js';
import { sharePathKey } from '../store/store.js';
import type { StoredShare } from '../store/schema.js';
import { requireUser } from './records.js';
import { shareInfo, shareState, withOptions, type ShareOptionParams } from './share-options.js';
import { downloadCounts } from './share-uses.js';

const deadLink = () => notFound('share_not_found', 'This link does not exist or was revoked');

/** Every link of the user's, newest first. */
export async function listShares(nimbus: NimbusContext, username: string): Promise<ShareInfo[]> {
  requireUser(nimbus, username);
  const shares = [...nimbus.store.sharesByToken.values()].filter((s) => s.username === username);
  const counts = await downloadCounts(nimbus, shares);
  const now = Date.now();
  return shares
    .map((s) => shareInfo(nimbus, s, counts.get(s.token) ?? 0, now))
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.url.localeCompare(b.url));
}

/** Which link an edit names: a file's, or (no file) the folder's own link or upload link. */
export interface LinkTarget {
  folder: string | null;
  file?: string;
  upload?: boolean;
}

/** The link `target` names; 404 `share_not_found` when there is none (and 400 for a folder link of the root). */
function linkOf(nimbus: NimbusContext, username: string, target: LinkTarget): StoredShare {
  requireUser(nimbus, username);
  if (target.file !== undefined && target.upload) throw badRequest('A file has no upload link: give `file` or `upload`, not both');
  if (target.file === undefined) {
    if (target.folder === null) throw badRequest('Name the shared `file`, or the `folder` whose link it is');
    return folderLinkOf(nimbus, username, target.folder, target.upload === true);
  }
  nimbus.storage.requireFile(username, target.folder, target.file);
  const share = nimbus.store.sharesByPath.get(sharePathKey(username, target.folder, target.file));
  if (!share) throw notFound('share_not_found', 'File is not shared');
  return share;
}

/** Changes a link's options; what is left out stays. */
export async function editShare(
  nimbus: NimbusContext,
  username: string,
  target: LinkTarget,
  options: ShareOptionParams,
): Promise<ShareInfo> {
  const before = linkOf(nimbus, username, target);
  const edited = await withOptions(before, options);
  // The hash took a moment: the link may have been revoked or moved meanwhile.
  const current = nimbus.store.sharesByToken.get(before.token);
  if (!current) throw notFound('share_not_found', 'The link was revoked meanwhile');
  const next = { ...edited, folder: current.folder, file: current.file, downloads: current.downloads };
  if (next.downloads === undefined) delete next.downloads;
  nimbus.store.putShare(next, current);
  await nimbus.store.commit();
  const counts = await downloadCounts(nimbus, [next]);
  return shareInfo(nimbus, next, counts.get(next.token) ?? 0);
}

/** The share a public link names while it answers: unknown, revoked, expired and used-up links are all 404 `share_not_found`. */
export async function liveShare(nimbus: NimbusContext, token: string): Promise<StoredShare> {
  const share = nimbus.store.sharesByToken.get(token);
  if (!share) throw deadLink();
  // Only a limited link needs its count (on PostgreSQL a query): the others cannot be used up.
  const downloads = share.maxDownloads === undefined ? 0 : ((await downloadCounts(nimbus, [share])).get(token) ?? 0);
  if (shareState(share, downloads) !== 'active') throw deadLink();
  return share;
}

export { deadLink };
