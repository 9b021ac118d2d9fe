import type { Context } from 'koa';
import { ApiError } from '../errors.js';
import type { OpenedFile } from '../storage/file-storage.js';
import { mimeTypeOf } from '../services/records.js';
import { isNotModified, preconditionFails, rangeToSend, validatorsOf } from './conditional.js';
import { INERT_CSP } from './security.js';

/**
 * The CSP of bytes shown inline. Checked in real Chromium (test/e2e/previews.test.ts), the
 * strictest that still works, as a top-level tab and framed by the UI or the share page:
 * - images, text and PDF keep the full `sandbox` (no scripts, no plugins but Chromium's own
 *   PDF viewer, which still runs: it is an extension outside the page) and load nothing;
 * - audio and video need `media-src 'self'` and `sandbox allow-same-origin`: Chromium's
 *   media document loads the same URL again through a <video> element, which an opaque
 *   (sandboxed) origin may not fetch. Scripts, forms and popups stay blocked.
 * `frame-ancestors 'self'` lets only the daemon's own pages (the UI's viewer, the share
 * page) frame them.
 */
export const INLINE_CSP = "default-src 'none'; frame-ancestors 'self'; sandbox";
export const INLINE_MEDIA_CSP = "default-src 'none'; media-src 'self'; frame-ancestors 'self'; sandbox allow-same-origin";

/** How bytes are served inline: their Content-Type and CSP. */
interface InlineType {
  contentType: string;
  csp: string;
}

/**
 * Whether a file of this name may be shown inline, and how; null keeps it an attachment.
 * Markup never is: SVG, HTML and XML can run scripts or load other documents on the
 * daemon's origin, so they are downloaded even when `inline` asks otherwise.
 */
export function inlineTypeOf(name: string): InlineType | null {
  const mime = mimeTypeOf(name);
  if (/svg|xml|html/.test(mime)) return null;
  if (mime.startsWith('image/') || mime === 'application/pdf') return { contentType: mime, csp: INLINE_CSP };
  if (mime.startsWith('audio/') || mime.startsWith('video/')) return { contentType: mime, csp: INLINE_MEDIA_CSP };
  // Plain text whatever its kind (CSS, JavaScript, CSV…): shown, never interpreted.
  if (mime.startsWith('text/')) return { contentType: 'text/plain; charset=utf-8', csp: INLINE_CSP };
  return null;
}

export interface SendOptions {
  /** Serve for viewing (previewable types only; anything else stays an attachment). */
  inline?: boolean;
}

/**
 * Streams an opened file, with single-range support and conditional requests (ETag,
 * Last-Modified; If-Match and If-Unmodified-Since for a 412, If-None-Match and
 * If-Modified-Since for a 304, If-Range: conditional.ts). The
 * bytes never run on the daemon's origin: nosniff (set for every answer), an attachment with a
 * CSP that runs nothing, or, for a previewable type asked `inline`, an inline disposition
 * under `INLINE_CSP`.
 */
export async function sendFile(ctx: Context, opened: OpenedFile, name: string, idleMs: number, options: SendOptions = {}): Promise<void> {
  const { size } = opened;
  // From the opened file's own stat (no other syscall): the validators name the bytes streamed.
  const validators = validatorsOf(opened);
  if (preconditionFails(ctx, validators)) {
    void opened.close();
    throw new ApiError('precondition_failed', 'The file is not the one If-Match or If-Unmodified-Since names: it changed');
  }
  const inline = options.inline ? inlineTypeOf(name) : null;
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('Content-Disposition', disposition(inline ? 'inline' : 'attachment', name));
  ctx.set('Content-Security-Policy', inline ? inline.csp : INERT_CSP);
  // The UI's viewer and the share page frame a PDF; nothing else may (CSP frame-ancestors says the same).
  if (inline) ctx.set('X-Frame-Options', 'SAMEORIGIN');
  ctx.set('ETag', validators.etag);
  ctx.set('Last-Modified', validators.lastModified);
  if (isNotModified(ctx, validators)) {
    void opened.close();
    // Koa sends a 304 without a body, Content-Type or Content-Length.
    ctx.status = 304;
    return;
  }
  ctx.type = inline ? inline.contentType : mimeTypeOf(name);
  const range = rangeToSend(ctx, size, validators);
  if (range === 'unsatisfiable') {
    void opened.close();
    throw new ApiError('range_not_satisfiable', 'Range not satisfiable', { 'Content-Range': `bytes */${size}` });
  }
  const { start, end } = range ?? { start: 0, end: size - 1 };
  if (range) {
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${start}-${end}/${size}`);
  } else {
    ctx.status = 200;
  }
  if (ctx.method === 'HEAD' || size === 0) {
    void opened.close();
    // An empty body, not null: Koa turns a null body into 204, and a browser does not
    // download an empty file from a 204. HEAD keeps the length of what GET would send.
    ctx.body = Buffer.alloc(0);
    ctx.length = size === 0 ? 0 : end - start + 1;
    return;
  }
  ctx.length = end - start + 1;
  if (!range && size <= ONE_READ_BYTES) {
    // A small file whole: one read, and the file released before a byte is sent. A stream cost
    // two more trips through the thread pool (a read that finds the end, the close), most of a
    // small download's time (issue 30: 4 KiB downloads went from 0.59× to 1.17–1.40× a bare server).
    try {
      ctx.body = await opened.read();
    } finally {
      await opened.close();
    }
    return;
  }
  // 1 MiB reads (OpenedFile.stream). The socket's idle timer moves only when a write starts
  // or completes, so a chunk must reach a slow reader within the idle limit below: at 5
  // minutes, that is any reader above ~3.5 KiB/s. The stream releases the file at its end,
  // or when Koa destroys it (the client went away). Awaited before any header is sent: a
  // bucket that cannot be read is answered 503, not with a reply that ends before its first
  // byte; a failure after that destroys the connection (Koa's pipeline), a truncated transfer.
  ctx.body = await opened.stream({ start, end }).catch(async (err: unknown) => {
    await opened.close();
    throw err;
  });
  closeWhenStalled(ctx, idleMs * DOWNLOAD_IDLE_FACTOR);
}

/** A Content-Disposition that keeps any file name intact and safe to put in a header. */
export function attachment(name: string): string {
  return disposition('attachment', name);
}

function disposition(type: 'attachment' | 'inline', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `${type}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

/** A whole file up to this size is sent from one buffer (issue 30). */
const ONE_READ_BYTES = 256 << 10;

/** A download may stall ten times as long as a request body (5 minutes by default): readers on poor links are slow. */
const DOWNLOAD_IDLE_FACTOR = 10;

/**
 * A client that stops reading a download would hold its connection and the open file for
 * ever. The socket's idle timer moves whenever a write starts or completes, so a reader,
 * however slow, keeps it alive; after `idleMs` without one, Node's server destroys the
 * socket (no 'timeout' listener is installed) and the file stream is closed with it. Once
 * the answer is complete, Node puts its own keep-alive timeout on the socket instead.
 */
function closeWhenStalled(ctx: Context, idleMs: number): void {
  ctx.req.socket.setTimeout(idleMs);
}
