/**
 * A request body piped into a sink, the way both upload paths (disk and object store) need
 * it. `pipe`, not `pipeline`: a refused upload must not destroy the request's socket, or the
 * client would never read the 507 (Node drains the rest of the body after the answer). And a
 * client that goes away mid-body must fail the sink, which `pipe` alone would leave waiting
 * for ever.
 */
import type { Readable, Writable } from 'node:stream';
import { ApiError } from '../errors.js';
import { bodyBytesReceived } from '../util/body-memory.js';

const countBody = (chunk: Buffer) => bodyBytesReceived(chunk.length);

/**
 * Pipes `source` (a request) into `sink`; the sink is destroyed with an error if the source
 * closes or fails before its end. Returns the function that lets go of the source: call it
 * once whatever consumes the sink has settled.
 */
export function pipeFromClient(source: Readable, sink: Writable): () => void {
  const onSourceGone = () => {
    if (source.readableEnded) return;
    // A source that refused its own bytes (a malformed form: daemon/http/form-file.ts) says why.
    const refusal = source.errored instanceof ApiError ? source.errored : null;
    sink.destroy(refusal ?? new Error('The client went away before the upload finished'));
  };
  source.on('close', onSourceGone);
  source.on('error', onSourceGone);
  source.pipe(sink);
  // After pipe, which has made the source flow: counting only (util/body-memory.ts).
  source.on('data', countBody);
  // The client may have gone while the caller was getting ready: its events have fired already.
  if (source.destroyed) onSourceGone();
  return () => {
    source.unpipe(sink);
    source.off('data', countBody);
    source.off('close', onSourceGone);
    source.off('error', onSourceGone);
  };
}
