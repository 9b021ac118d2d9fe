import type { Context } from 'koa';
import { ApiError } from '../errors.js';
import type { PendingThumbnail } from '../services/thumbnails.js';
import { isNotModified, preconditionFails } from './conditional.js';

/**
 * Answers files.thumbnail under the same conditional rules as a download (conditional.ts):
 * If-Match or If-Unmodified-Since that name another picture are a 412; a current If-None-Match
 * (weak comparison, lists, `*`) or, only without one, If-Modified-Since is a 304 without a
 * body. Both are decided before the picture is read or rendered. `private, no-cache`: a
 * browser keeps the picture but asks each time (cheap: no work for a 304), and no shared cache
 * keeps a user's files. The validators go out with the picture only: a 415 carries none.
 */
export async function sendThumbnail(ctx: Context, pending: PendingThumbnail): Promise<void> {
  try {
    const { validators } = pending;
    if (preconditionFails(ctx, validators))
      throw new ApiError('precondition_failed', 'The picture is not the one If-Match or If-Unmodified-Since names: its file changed');
    const notModified = isNotModified(ctx, validators);
    const bytes = notModified ? null : await pending.bytes();
    ctx.set('Cache-Control', 'private, no-cache');
    ctx.set('ETag', validators.etag);
    ctx.set('Last-Modified', validators.lastModified);
    if (!bytes) {
      // Koa sends a 304 without a body, Content-Type or Content-Length.
      ctx.status = 304;
      return;
    }
    ctx.status = 200;
    ctx.type = 'image/webp';
    ctx.body = bytes;
  } finally {
    await pending.close();
  }
}
