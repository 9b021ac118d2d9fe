/**
 * GET and HEAD: a file through the download endpoint's own code (sendFile: ranges, ETag,
 * Last-Modified, conditional requests, an inert CSP); a collection answers a plain-text list
 * of its names (folders with a trailing `/`), for a person with curl or a browser: text, so
 * nothing in it ever runs.
 */
import type { Context } from 'koa';
import type { NimbusContext } from '../../context.js';
import { openDownload } from '../../services/files.js';
import { sendFile } from '../download.js';
import { davNotFound } from './propfind.js';
import { asFolder, resourceAt, splitPath, type DavPath } from './paths.js';

export async function get(ctx: Context, nimbus: NimbusContext, at: DavPath): Promise<void> {
  const resource = resourceAt(nimbus, at);
  if (resource.kind === 'none') throw davNotFound();
  if (resource.kind === 'file') {
    const { parent, name } = splitPath(at.path);
    const opened = await openDownload(nimbus, at.username, parent, name);
    await sendFile(ctx, opened, name, nimbus.config.bodyIdleMs);
    return;
  }
  const folder = asFolder(at.path);
  const node = folder === null ? nimbus.index.user(at.username) : nimbus.index.folder(at.username, folder);
  const names = [...(node?.folders.keys() ?? [])].map((n) => `${n}/`);
  names.push(...(nimbus.index.files(at.username, folder)?.keys() ?? []));
  names.sort();
  ctx.status = 200;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = names.map((n) => `${n}\n`).join('');
}
