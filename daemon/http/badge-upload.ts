/**
 * The rows of uploaded badge pictures (issue 29, shared/badges.ts): an admin's upload, read up
 * to the limit and typed by its bytes, and the picture served back under /badges/uploaded/.
 */
import type { Readable } from 'node:stream';
import type { Context } from 'koa';
import { BADGE_MEDIA_TYPES, BADGE_UPLOAD_MAX_BYTES } from '../../shared/badges.js';
import { ApiError } from '../errors.js';
import { findBadge, saveBadge, tooLarge } from '../services/badges.js';
import { isNotModified } from './conditional.js';
import type { HandlerTable } from './handler-support.js';
import { withUploadBody } from './upload-body.js';

export const BADGE_HANDLERS: HandlerTable<'role.badge.upload' | 'role.badge.get'> = {
  'role.badge.upload': async ({ nimbus, ctx }) => {
    const bytes = await withUploadBody(ctx, ({ body, declaredLength }) => {
      // Refused before a byte is read when the client says it is too long.
      if (declaredLength !== null && declaredLength > BADGE_UPLOAD_MAX_BYTES) throw tooLarge();
      return readAtMost(body, BADGE_UPLOAD_MAX_BYTES);
    });
    const badge = await saveBadge(nimbus, bytes);
    return { msg: 'Badge uploaded', badge, url: `${nimbus.baseUrl}${badge}` };
  },
  'role.badge.get': ({ nimbus, params, ctx }) => {
    const found = findBadge(nimbus, params.file);
    // file_not_found: a daemon of a cluster that has not heard of the upload yet catches up and looks again.
    if (!found) throw new ApiError('file_not_found', 'No such badge');
    sendBadge(ctx, found.id, BADGE_MEDIA_TYPES[found.type], found.bytes);
  },
};

/**
 * The picture, kept for a year: its name is its content's hash, so a new picture is a new URL.
 * The answer keeps the inert CSP (`sandbox`, `default-src 'none'`) and `nosniff` every answer
 * that is not the UI has (security.ts): opened on its own, nothing in it may run.
 */
function sendBadge(ctx: Context, id: string, type: string, bytes: Buffer): void {
  const etag = `"${id}"`;
  ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
  ctx.set('ETag', etag);
  if (isNotModified(ctx, { etag, lastModified: '' })) {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  ctx.type = type;
  ctx.body = bytes; // Koa sends no body for a HEAD
}

/**
 * The whole body, or 413 once it passes `limit` bytes. Read by events, not `for await`: leaving
 * that loop destroys the request, and with it the connection the 413 is to be sent on; the rest
 * of the body is read and dropped by the error handler (unread-body.ts).
 */
function readAtMost(body: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const onData = (chunk: Buffer) => {
      length += chunk.length;
      if (length <= limit) return void chunks.push(chunk);
      body.off('data', onData);
      body.pause();
      reject(tooLarge());
    };
    body.on('data', onData);
    body.once('end', () => resolve(Buffer.concat(chunks, length)));
    body.once('error', reject);
  });
}
