/**
 * What happens to a request body an answer did not read (a 507 over the quota or a 413
 * decided from the declared length, a 404 for an upload's folder): it is read and dropped,
 * and the connection stays open, as Node does by itself for a keep-alive answer.
 *
 * Closing the connection instead, with bytes of the body still unread, makes the kernel reset
 * it, and a client still sending may get the reset before the answer. nginx, passing a body
 * on unbuffered (deploy/nginx.conf), failed writing it and answered 502 in place of the 507
 * (24 of 40 uploads of 5 MiB), and counted each as a failure of the daemon: with `max_fails`
 * reached on every daemon, one user uploading over their quota left nginx with "no live
 * upstreams" for everybody for 10 s at a time (the soak test saw it, 2 runs in 3).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** How long a body is read after its answer: as nginx's own `lingering_time`. Then the connection is dropped. */
export const UNREAD_BODY_LINGER_MS = 30_000;

/** Once `res` is sent, reads what is left of `req`'s body and drops it; destroys the connection if that takes longer than `lingerMs`. */
export function dropUnreadBody(req: IncomingMessage, res: ServerResponse, lingerMs = UNREAD_BODY_LINGER_MS): void {
  if (req.complete || req.destroyed) return;
  res.once('finish', () => {
    if (req.complete || req.destroyed) return;
    // A body whose reading stopped half way (a pipe into a file that failed) is paused:
    // Node reads away only a body nothing has read yet.
    req.unpipe();
    req.resume();
    const timer = setTimeout(() => req.socket.destroy(), lingerMs);
    timer.unref();
    const done = () => clearTimeout(timer);
    req.once('end', done);
    req.once('close', done);
  });
}
