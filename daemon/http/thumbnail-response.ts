import type { Context } from 'koa';
import type { Thumbnail } from '../services/thumbnails.js';

/**
 * Answers files.thumbnail: the WebP picture with its ETag, or a 304 when the client's copy
 * is current. `private, no-cache`: a browser keeps the picture but asks each time (cheap:
 * the ETag is checked before any work), and no shared cache keeps a user's files.
 */
export function sendThumbnail(ctx: Context, { etag, bytes }: Thumbnail): void {
  ctx.set('Cache-Control', 'private, no-cache');
  ctx.set('ETag', etag);
  if (!bytes) {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  ctx.type = 'image/webp';
  ctx.body = bytes;
}
