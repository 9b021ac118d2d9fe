/** What every public route of a share link checks first: the dead link's page, and the password's cookie (docs/sharing.md). */
import type { Context } from 'koa';
import { ApiError, type ErrorPage } from '../errors.js';
import { UNLOCK_COOKIE, unlocks } from '../services/share-options.js';
import type { StoredShare } from '../store/schema.js';

export const DEAD_LINK_PAGE: ErrorPage = {
  title: 'Link not found',
  message: 'This link does not exist or is no longer shared. Ask the person who sent it for a new one.',
  // A person who opens a dead link in a browser gets a page; API clients keep the JSON error.
  browsersOnly: true,
  words: 'deadLink',
};

export const wantsPage = (ctx: Context) => ctx.accepts('json', 'html') === 'html';

/**
 * Refuses a request for a link that asks for a password, unless this browser gave it (its
 * unlock cookie): 401 `share_password_required`, answered to a browser with the password page.
 */
export function assertUnlocked(ctx: Context, share: StoredShare, token: string): void {
  if (share.passwordHash === undefined || unlocks(share, ctx.cookies.get(UNLOCK_COOKIE))) return;
  throw passwordRequired(token, false);
}

/** The 401 of a link's password: `wrong`, a password was given and was not it. */
export function passwordRequired(token: string, wrong: boolean): ApiError {
  const page = { title: 'Password needed', message: 'This link asks for a password.', browsersOnly: true, passwordFor: { token, wrong } };
  return wrong
    ? new ApiError('invalid_credentials', 'Wrong password for this link', {}, page)
    : new ApiError('share_password_required', 'This link asks for a password: POST it to the link as `password`', {}, page);
}
