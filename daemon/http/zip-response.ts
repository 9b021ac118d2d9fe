import { Readable } from 'node:stream';
import type { Context } from 'koa';
import type { NimbusContext } from '../context.js';
import { streamZip } from '../services/zip.js';
import type { ZipPlan } from '../services/zip-plan.js';
import { attachment } from './download.js';
import { INERT_CSP } from './security.js';

/** A zip may stall as long as a download (ten body-idle periods, daemon/http/download.ts): readers on poor links are slow. */
const ZIP_IDLE_FACTOR = 10;

/**
 * Answers `folders.download` with a planned zip, streamed: no Content-Length (the size of
 * deflated entries is known only once they are written), so the answer is chunked. A HEAD
 * gets the headers and opens no file.
 */
export async function sendZip(ctx: Context, nimbus: NimbusContext, plan: ZipPlan): Promise<void> {
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
  // then closes the file it holds and opens no other. Awaited before any header is sent: a
  // first file that cannot be read is a 503; a failure once bytes went out destroys the
  // connection (Koa's pipeline), so the client sees a cut-off zip, never a clean end.
  ctx.body = await streamZip(nimbus, plan, {
    failed: (err) => nimbus.log(`Nimbus: a zip of ${plan.username}'s files stopped: ${err.message}`),
  });
  // Node's server destroys a socket idle this long: a client that stops reading does not hold the open file for ever.
  ctx.req.socket.setTimeout(nimbus.config.bodyIdleMs * ZIP_IDLE_FACTOR);
}
