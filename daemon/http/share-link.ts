/**
 * `GET /s/{token}`: what a share link answers (docs/sharing.md). Only a live link answers
 * (unknown, revoked, expired and used-up links are one 404); a link with a password answers
 * the password page (or 401) until the browser has its cookie. Then a file link serves its
 * file (a preview page for a browser's picture or PDF, else the bytes); a folder link its
 * page or JSON listing, a file inside it by `path`, or a zip. A download (the bytes from
 * their start, or a zip) takes one from the link's limit.
 */
import type { Context } from 'koa';
import type { NimbusContext } from '../context.js';
import { ApiError, badRequest, explainedBy, notFound, type ErrorPage } from '../errors.js';
import { listInLink, resolveInLink } from '../services/folder-links.js';
import { catchUpOnMiss } from '../services/records.js';
import { deadLink, liveShare } from '../services/share-links.js';
import { takeDownload } from '../services/share-uses.js';
import { planZip } from '../services/zip-plan.js';
import type { StoredShare } from '../store/schema.js';
import { sendFile } from './download.js';
import { sendFolderLinkPage } from './folder-page.js';
import type { HandlerInput } from './handler-support.js';
import { sendSharePreview, sharePreviewKind } from './share-pages.js';
import { assertUnlocked, DEAD_LINK_PAGE, wantsPage } from './share-access.js';
import type { FailureThrottle } from './throttle.js';
import { serveUploadLink } from './upload-link.js';
import { sendZip } from './zip-response.js';

export async function serveShareLink({ nimbus, params, ctx, throttle }: HandlerInput<'share.download'>): Promise<void> {
  // A link made through another daemon a moment ago is no unknown link: looked for caught up.
  await catchUpOnMiss(nimbus, () => nimbus.store.sharesByToken.has(params.token));
  throttleUnknownLinks(ctx, throttle, nimbus.store.sharesByToken.has(params.token));
  const share = await liveShare(nimbus, params.token).catch(explainedBy(DEAD_LINK_PAGE));
  assertUnlocked(ctx, share, params.token);
  const file = { inline: params.inline === true, download: params.download === true };
  if (share.kind === 'folder') return serveFolderLink(ctx, share, params.path ?? null, params.zip === true, file, nimbus);
  if (params.path !== undefined || params.zip) throw badRequest('`path` and `zip` are for folder links');
  // An upload link reads nothing: its page, whatever else was asked.
  if (share.kind === 'upload') return serveUploadLink(ctx, params.token);
  await serveFile(ctx, share, { folder: share.folder, name: share.file }, file, nimbus);
}

async function serveFolderLink(
  ctx: Context,
  share: StoredShare,
  path: string | null,
  zip: boolean,
  file: { inline: boolean; download: boolean },
  nimbus: NimbusContext,
): Promise<void> {
  const found = resolveInLink(nimbus, share, path);
  if (!found) throw explainedBy(NOTHING_HERE_PAGE)(notFound('file_not_found', 'Nothing by that name in the shared folder'));
  if (found.kind === 'file') {
    if (zip) throw badRequest('`zip` is for a folder');
    return serveFile(ctx, share, { folder: found.folder, name: found.name, path: found.path }, file, nimbus);
  }
  if (zip) {
    const plan = planZip(nimbus, share.username, found.folder, null);
    if (ctx.method === 'GET' && !(await takeDownload(nimbus, share))) explainedBy(DEAD_LINK_PAGE)(deadLink());
    return sendZip(ctx, nimbus, plan);
  }
  const listing = listInLink(nimbus, share, found);
  if (wantsPage(ctx)) return sendFolderLinkPage(ctx, share.token, listing);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = listing;
}

const NOTHING_HERE_PAGE: ErrorPage = {
  title: 'Not in this folder',
  message: 'There is nothing by that name in the shared folder (any more). Go back to the folder’s page.',
  browsersOnly: true,
  words: 'nothingHere',
};

/** A file of a link: its preview page for a browser's picture or PDF, else its bytes (a download from byte 0 counts). */
async function serveFile(
  ctx: Context,
  share: StoredShare,
  at: { folder: string | null; name: string; path?: string },
  file: { inline: boolean; download: boolean },
  nimbus: NimbusContext,
): Promise<void> {
  const opened = await nimbus.storage.openFile(share.username, at.folder, at.name).catch(explainedBy(DEAD_LINK_PAGE));
  // A person's browser gets the preview page of a picture or a PDF; `inline` and `download` are its links.
  const preview = file.inline || file.download ? null : sharePreviewKind(ctx, at.name);
  if (preview) {
    await opened.close();
    return sendSharePreview(ctx, share.token, at.name, preview, opened.size, at.path);
  }
  // A download is a GET of the bytes from their start: a player's seeks and a HEAD take none.
  if (ctx.method === 'GET' && /^(|bytes=0-.*)$/.test(ctx.get('Range').trim())) {
    const taken = await takeDownload(nimbus, share).catch(async (err: unknown) => {
      await opened.close();
      throw err;
    });
    if (!taken) {
      await opened.close();
      explainedBy(DEAD_LINK_PAGE)(deadLink());
    }
  }
  await sendFile(ctx, opened, at.name, nimbus.config.bodyIdleMs, { inline: file.inline && !file.download });
}

/**
 * Counts a share token that names no share towards the client's 429 (the same count as
 * wrong keys), and refuses a client already blocked, before anything is looked up.
 */
function throttleUnknownLinks(ctx: Context, throttle: FailureThrottle, known: boolean): void {
  if (known) return;
  const client = ctx.socket.remoteAddress ?? 'unknown';
  const wait = throttle.retryAfter(client);
  if (wait > 0) throw new ApiError('too_many_requests', 'Too many unknown links; try again later', { 'Retry-After': String(wait) });
  throttle.fail(client, 'share links');
}
