import type { Context } from 'koa';
import { ApiError } from '../errors.js';
import type { OpenedFile } from '../storage/storage.js';
import { mimeTypeOf } from '../services/records.js';
import { INERT_CSP } from './security.js';

/**
 * Streams an opened file as an attachment, with single-range support. The bytes never
 * run on the daemon's origin: attachment, nosniff, and a sandboxing CSP.
 */
export function sendFile(ctx: Context, opened: OpenedFile, name: string, idleMs: number): void {
  const { size } = opened;
  const range = parseRange(ctx.get('Range'), size);
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('Content-Disposition', attachment(name));
  ctx.set('Content-Security-Policy', INERT_CSP);
  ctx.set('Last-Modified', new Date(opened.mtimeMs).toUTCString());
  ctx.type = mimeTypeOf(name);
  if (range === 'unsatisfiable') {
    void opened.handle.close();
    throw new ApiError('range_not_satisfiable', 'Range not satisfiable', { 'Content-Range': `bytes */${size}` });
  }
  const [start, end] = range ?? [0, size - 1];
  if (range) {
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${start}-${end}/${size}`);
  } else {
    ctx.status = 200;
  }
  if (ctx.method === 'HEAD' || size === 0) {
    void opened.handle.close();
    // An empty body, not null: Koa turns a null body into 204, and a browser does not
    // download an empty file from a 204. HEAD keeps the length of what GET would send.
    ctx.body = Buffer.alloc(0);
    ctx.length = size === 0 ? 0 : end - start + 1;
    return;
  }
  ctx.length = end - start + 1;
  // 1 MiB reads (256 KiB ran ~30 % slower in the bench). The socket's idle timer moves only
  // when a write starts or completes, so a chunk must reach a slow reader within the idle
  // limit below: at 5 minutes, that is any reader above ~3.5 KiB/s.
  ctx.body = opened.handle.createReadStream({ start, end, autoClose: true, highWaterMark: 1 << 20 });
  closeWhenStalled(ctx, idleMs * DOWNLOAD_IDLE_FACTOR);
}

/** [start, end] of a single `bytes=` range, null for none (or one we ignore), or 'unsatisfiable'. */
export function parseRange(header: string, size: number): [number, number] | null | 'unsatisfiable' {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null; // multi-range or another unit: send the whole file (RFC 9110 allows it)
  const [, from, to] = match;
  if (from === '' && to === '') return null;
  let start: number;
  let end: number;
  if (from === '') {
    const suffix = Number(to);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(from);
    end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return [start, end];
}

/** A Content-Disposition that keeps any file name intact and safe to put in a header. */
export function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

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
