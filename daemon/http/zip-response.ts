import { Readable } from 'node:stream';
import type { Context } from 'koa';
import type { NimbusContext } from '../context.js';
import { streamZip, type ZipPlan } from '../services/zip.js';
import { attachment } from './download.js';
import { INERT_CSP } from './security.js';

/** A zip may stall as long as a download (ten body-idle periods, daemon/http/download.ts): readers on poor links are slow. */
const ZIP_IDLE_FACTOR = 10;

/**
 * Answers `folders.download` with a planned zip, streamed: no Content-Length (the size of
 * deflated entries is known only once they are written), so the answer is chunked. A HEAD
 * gets the headers and opens no file.
 */
export function sendZip(ctx: Context, nimbus: NimbusContext, plan: ZipPlan): void {
  ctx.status = 200;
  ctx.type = 'application/zip';
  ctx.set('Content-Disposition', attachment(plan.downloadName));
  ctx.set('Content-Security-Policy', INERT_CSP);
  // The content changes with the storage: never a cached copy.
  ctx.set('Cache-Control', 'no-store');
  if (ctx.method === 'HEAD') {
    ctx.body = Readable.from([]);
    return;
  }
  // Koa destroys the body when the response closes (a client that went away): streamZip
  // then closes the file it holds and opens no other.
  ctx.body = streamZip(nimbus, plan, {
    failed: (err) => nimbus.log(`Nimbus: a zip of ${plan.username}'s files stopped: ${err.message}`),
  });
  // Node's server destroys a socket idle this long: a client that stops reading does not hold the open file for ever.
  ctx.req.socket.setTimeout(nimbus.config.bodyIdleMs * ZIP_IDLE_FACTOR);
}
