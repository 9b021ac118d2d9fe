import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Context } from 'koa';
import mime from 'mime-types';
import { isAppPath } from '../../shared/app-routes.js';
import { serveBadge } from './badges.js';
import { UI_CSP } from './security.js';

/**
 * Serves the built web UI (renderer/dist): a file when the path names one, index.html for
 * the UI's own pages (shared/app-routes.ts: /files/<user>/<path>, /trash, /search, ...) so a
 * reload or a bookmark opens the app where it was; any other path is not found. Never leaves rendererDir. Also
 * the built-in role badges (/badges/*.svg).
 */
export async function serveUi(ctx: Context, rendererDir: string): Promise<boolean> {
  if (serveBadge(ctx)) return true; // the built-in badges answer even without a built UI
  const root = path.resolve(rendererDir);
  let relative: string;
  try {
    relative = decodeURIComponent(ctx.path);
  } catch {
    return false;
  }
  const candidate = path.resolve(root, `.${path.posix.normalize(relative)}`);
  const inside = path.relative(root, candidate);
  let file = inside.startsWith('..') || path.isAbsolute(inside) || relative.includes('\0') ? null : candidate;
  let info = file ? await stat(file).catch(() => null) : null;
  if (!info?.isFile()) {
    // A missing asset is a 404, not the app; a folder named `v1.2` is a page all the same.
    if (!isAppPath(ctx.path)) return false;
    file = path.join(root, 'index.html');
    info = await stat(file).catch(() => null);
    if (!info?.isFile()) return false;
  }
  ctx.status = 200;
  ctx.type = mime.lookup(file!) || 'application/octet-stream';
  ctx.length = info.size;
  ctx.set('Content-Security-Policy', UI_CSP);
  ctx.set('Cache-Control', relative.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
  if (ctx.method === 'HEAD') {
    // Koa answers 204 to a null body and would leave a stream unread (its file open): an empty
    // body keeps the 200, and the length is set again after it, as GET's.
    ctx.body = '';
    ctx.length = info.size;
  } else ctx.body = createReadStream(file!);
  return true;
}
