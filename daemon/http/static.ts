import { createReadStream, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import etag from 'etag';
import type { Context } from 'koa';
import mime from 'mime-types';
import { isAppPath } from '../../shared/app-routes.js';
import { ApiError } from '../errors.js';
import { serveBadge } from './badges.js';
import { isNotModified, preconditionFails, rangeToSend, type Validators } from './conditional.js';
import { UI_CSP } from './security.js';
import { acceptedCodings, chooseVariant, isByProduct, type Variant } from './static-variants.js';

/**
 * A file of Vite's output under /assets/: its name carries a hash of its content (`index-
 * B5qeLN0n.js`), so a new build names new files and a copy may be kept for a year without asking.
 */
const HASHED_ASSET = /^\/assets\/[^/]+-[\w-]{8}\.\w+$/;

/**
 * Serves the built web UI (renderer/dist; docs/explorer.md, "How the UI is served"): a file when
 * the path names one, index.html for the UI's own pages (shared/app-routes.ts: /files/<user>/
 * <path>, /trash, /search, ...) so a reload or a bookmark opens the app where it was; any other
 * path is not found (false: the caller's 404), `/metrics` and every unknown path included. Never
 * leaves rendererDir. Also the built-in role badges (/badges/*.svg).
 */
export async function serveUi(ctx: Context, rendererDir: string): Promise<boolean> {
  if (serveBadge(ctx)) return true; // the built-in badges answer even without a built UI
  const found = await findFile(ctx.path, path.resolve(rendererDir));
  if (!found) return false;
  const { file, info, asset } = found;
  const variant = await chooseVariant(file, info, acceptedCodings(ctx.get('Accept-Encoding')));
  sendVariant(ctx, variant, mime.lookup(file) || 'application/octet-stream', asset);
  return true;
}

/** The file a UI path names, with its stat, or null: an asset, else index.html for a page of the UI. */
async function findFile(urlPath: string, root: string): Promise<{ file: string; info: Stats; asset: boolean } | null> {
  let relative: string;
  try {
    relative = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  const candidate = path.resolve(root, `.${path.posix.normalize(relative)}`);
  const inside = path.relative(root, candidate);
  const file = inside.startsWith('..') || path.isAbsolute(inside) || relative.includes('\0') ? null : candidate;
  // Compressed copies and source maps are no files of the UI: a client gets a copy by
  // Accept-Encoding, and maps are not served at all (the build moves them out; an older build's
  // stay unread). The path may still be a page (a folder named `backup.tar.gz`).
  const info = file && !isByProduct(relative) ? await stat(file).catch(() => null) : null;
  if (file && info?.isFile()) return { file, info, asset: HASHED_ASSET.test(relative) };
  // A missing asset is a 404, not the app; a folder named `v1.2` is a page all the same.
  if (!isAppPath(urlPath)) return null;
  const index = path.join(root, 'index.html');
  const indexInfo = await stat(index).catch(() => null);
  return indexInfo?.isFile() ? { file: index, info: indexInfo, asset: false } : null;
}

/**
 * Sends one stored copy with what a cache and a browser need: its own length and ETag (each
 * copy is other bytes), `Vary: Accept-Encoding` (the same URL answers differently by that
 * header), a year's `immutable` caching for hashed assets and `no-cache` (ask each time; a 304
 * when unchanged) for the rest, index.html first. Conditional requests and one byte range, of
 * the copy sent, as for downloads (daemon/http/conditional.ts).
 */
function sendVariant(ctx: Context, variant: Variant, type: string, asset: boolean): void {
  const { file, info, coding } = variant;
  ctx.set('Content-Security-Policy', UI_CSP);
  ctx.vary('Accept-Encoding'); // appended to any Vary already set (CORS's Origin)
  // Strong: a build writes a file once, so its size, time and inode name its bytes; hashed
  // (etag()), so no inode shows. The coding is in it too, should two copies ever agree on the rest.
  const validators: Validators = {
    etag: etag(`${coding ?? 'identity'}:${info.size}:${info.mtimeMs}:${info.ino}`),
    lastModified: info.mtime.toUTCString(),
  };
  // In RFC 9110 §13.2.2's order: If-Match, If-None-Match, then Range. A refusal carries no
  // caching header: a 412 or a 416 is no answer to keep for a year.
  if (preconditionFails(ctx, validators))
    throw new ApiError('precondition_failed', 'The file is not the one If-Match or If-Unmodified-Since names');
  ctx.set('Cache-Control', asset ? 'public, max-age=31536000, immutable' : 'no-cache');
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('ETag', validators.etag);
  ctx.set('Last-Modified', validators.lastModified);
  if (isNotModified(ctx, validators)) {
    ctx.status = 304; // Koa sends it without a body, Content-Type or Content-Length
    return;
  }
  const range = rangeToSend(ctx, info.size, validators);
  if (range === 'unsatisfiable') {
    ctx.set('Cache-Control', 'no-store'); // as every answer has until one says otherwise (security.ts)
    throw new ApiError('range_not_satisfiable', 'Range not satisfiable', { 'Content-Range': `bytes */${info.size}` });
  }
  ctx.status = range ? 206 : 200;
  if (range) ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${info.size}`);
  ctx.type = type;
  if (coding) ctx.set('Content-Encoding', coding);
  const { start, end } = range ?? { start: 0, end: info.size - 1 };
  const length = Math.max(0, end - start + 1);
  if (ctx.method === 'HEAD' || length === 0) {
    // Koa answers 204 to a null body and would leave a stream unread (its file open): an empty
    // body keeps the status, and the length is set again after it, as GET's.
    ctx.body = '';
  } else ctx.body = createReadStream(file, { start, end });
  ctx.length = length;
}
