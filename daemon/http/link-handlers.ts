/** The handlers of the links people open in a browser: a share link (and its password) and an e-mail verification link. */
import type { Context } from 'koa';
import { ApiError, explainedBy, invalidToken } from '../errors.js';
import { catchUpOnMiss } from '../services/records.js';
import { deadLink, liveShare } from '../services/share-links.js';
import { UNLOCK_COOKIE, unlocks } from '../services/share-options.js';
import { takeDownload } from '../services/share-uses.js';
import { openSharedFile } from '../services/shares.js';
import { confirmVerification, isVerificationValid } from '../services/verification.js';
import { sendFile } from './download.js';
import type { HandlerTable } from './handler-support.js';
import { page, PAGE_CSP, sendSharePassword, sendSharePreview, sharePreviewKind } from './pages.js';
import { unlockShare } from './share-unlock.js';
import type { FailureThrottle } from './throttle.js';

const DEAD_LINK_PAGE = {
  title: 'Link not found',
  message: 'This link does not exist or is no longer shared. Ask the person who sent it for a new one.',
  // A person who opens a dead link in a browser gets a page; API clients keep the JSON error.
  browsersOnly: true,
};
const USED_LINK_PAGE = { title: 'Link expired or already used', message: 'Ask for a new verification e-mail.', browsersOnly: false };

export const LINK_HANDLERS: HandlerTable<'share.download' | 'share.unlock' | 'verify'> = {
  'share.download': async ({ nimbus, params, ctx, throttle }) => {
    // A link made through another daemon a moment ago is no unknown link: looked for caught up.
    await catchUpOnMiss(nimbus, () => nimbus.store.sharesByToken.has(params.token));
    throttleUnknownLinks(ctx, throttle, nimbus.store.sharesByToken.has(params.token));
    const share = await liveShare(nimbus, params.token).catch(explainedBy(DEAD_LINK_PAGE));
    if (share.passwordHash !== undefined && !unlocks(share, ctx.cookies.get(UNLOCK_COOKIE))) {
      if (ctx.accepts('json', 'html') === 'html') return sendSharePassword(ctx, params.token, false);
      throw new ApiError('share_password_required', 'This link asks for a password: POST it to the link as `password`');
    }
    const name = share.file;
    const opened = await openSharedFile(nimbus, share).catch(explainedBy(DEAD_LINK_PAGE));
    // A person's browser gets the preview page of a picture or a PDF; `inline` and `download` are its links.
    const preview = params.inline || params.download ? null : sharePreviewKind(ctx, name);
    if (preview) {
      await opened.close();
      sendSharePreview(ctx, params.token, name, preview, opened.size);
      return;
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
    await sendFile(ctx, opened, name, nimbus.config.bodyIdleMs, { inline: params.inline === true && params.download !== true });
  },
  'share.unlock': async (input) => unlockShare(input),
  verify: async ({ nimbus, params, ctx }) => {
    ctx.set('Content-Security-Policy', PAGE_CSP);
    ctx.type = 'text/html';
    // A HEAD (a link checker, a mail scanner) must not use up the one-time link.
    if (ctx.method === 'HEAD') {
      if (!(await isVerificationValid(nimbus, params.token)))
        throw explainedBy(USED_LINK_PAGE)(invalidToken('This link has expired or was already used', 404));
      ctx.body = '';
      return;
    }
    const username = await confirmVerification(nimbus, params.token).catch(explainedBy(USED_LINK_PAGE));
    ctx.body = page('E-mail address confirmed', `Thank you, ${username}. Your e-mail address is verified; you can close this page.`);
    // Whose address it was: the row's `user.changed` names them, so an open UI shows "Verified" without a reload.
    return { username };
  },
};

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
