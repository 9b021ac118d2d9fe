/** What every public route of a share link checks first: the dead link's page, and the password's cookie (docs/sharing.md). */
import type { Context } from 'koa';
import { ApiError, type ErrorPage } from '../errors.js';
import { UNLOCK_COOKIE, unlocks } from '../services/share-options.js';
import type { StoredShare } from '../store/schema.js';
import { sendSharePassword } from './share-pages.js';

export const DEAD_LINK_PAGE: ErrorPage = {
  title: 'Link not found',
  message: 'This link does not exist or is no longer shared. Ask the person who sent it for a new one.',
  // A person who opens a dead link in a browser gets a page; API clients keep the JSON error.
  browsersOnly: true,
  words: 'deadLink',
};

export const wantsPage = (ctx: Context) => ctx.accepts('json', 'html') === 'html';

/**
 * Whether the request may use a link that asks for a password: true without one or with this
 * browser's unlock cookie; else the password page is answered (false) or 401 thrown.
 */
export function requireUnlocked(ctx: Context, share: StoredShare, token: string): boolean {
  if (share.passwordHash === undefined || unlocks(share, ctx.cookies.get(UNLOCK_COOKIE))) return true;
  if (!wantsPage(ctx)) throw new ApiError('share_password_required', 'This link asks for a password: POST it to the link as `password`');
  sendSharePassword(ctx, token, false);
  return false;
}
