/**
 * An upload link's public side (docs/sharing.md, "Upload links"): its page, a form with one
 * file field and no script, and `POST /s/{token}/upload`, which places the file in the owner's
 * folder under a free name. Nothing of the folder is shown: not its files, not even its path.
 * Each upload takes one use of the link's limit (`maxDownloads`), before a byte is read.
 */
import type { Context } from 'koa';
import { explainedBy } from '../errors.js';
import { catchUpOnMiss } from '../services/records.js';
import { deadLink, liveShare } from '../services/share-links.js';
import { takeDownload } from '../services/share-uses.js';
import { dropFile } from '../services/upload-links.js';
import { escapeHtml } from '../services/verification.js';
import { FormFilePart } from './form-file.js';
import type { HandlerInput } from './handler-support.js';
import { htmlDocument, PASSWORD_PAGE_CSP, STYLE } from './pages.js';
import { DEAD_LINK_PAGE, requireUnlocked, wantsPage } from './share-access.js';
import { withUploadBody } from './upload-body.js';

const UPLOAD_STYLE = `form{display:grid;gap:.75rem;margin-top:1.25rem}
input[type=file]{font:inherit;padding:.6rem;border-radius:8px;border:1px dashed color-mix(in srgb,CanvasText 40%,transparent)}
button,a.button{font:inherit;padding:.6rem 1.4rem;border-radius:8px;border:0;background:LinkText;color:Canvas;font-weight:600;cursor:pointer;text-decoration:none;display:inline-block}
input:focus-visible,button:focus-visible,a:focus-visible{outline:3px solid LinkText;outline-offset:2px}
p.done{font-weight:600;opacity:1;margin-bottom:1rem}`;

function sendHtml(ctx: Context, status: number, title: string, body: string): void {
  ctx.status = status;
  ctx.set('Content-Security-Policy', PASSWORD_PAGE_CSP);
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'text/html';
  ctx.body = htmlDocument(title, `${STYLE}\n${UPLOAD_STYLE}`, `<main>${body}</main>`);
}

/** `GET /s/{token}` of an upload link: its page for a browser, `{upload: true}` for anything else. */
export function serveUploadLink(ctx: Context, token: string): void {
  if (!wantsPage(ctx)) {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { upload: true };
    return;
  }
  sendHtml(
    ctx,
    200,
    'Send files',
    `<h1>Send a file</h1><p>The file goes to the person who sent you this link. You cannot see what others have sent.</p>
<form method="post" action="/s/${encodeURIComponent(token)}/upload" enctype="multipart/form-data">
<label for="file" hidden>File</label><input id="file" name="file" type="file" required>
<button type="submit">Upload</button></form>`,
  );
}

/** `POST /s/{token}/upload`. */
export async function uploadThroughLink({
  nimbus,
  params,
  ctx,
}: HandlerInput<'share.upload'>): Promise<{ msg: string; name: string } | void> {
  await catchUpOnMiss(nimbus, () => nimbus.store.sharesByToken.has(params.token));
  const share = await liveShare(nimbus, params.token).catch(explainedBy(DEAD_LINK_PAGE));
  if (share.kind !== 'upload') explainedBy(DEAD_LINK_PAGE)(deadLink());
  if (!requireUnlocked(ctx, share, params.token)) return;
  if (!(await takeDownload(nimbus, share))) explainedBy(DEAD_LINK_PAGE)(deadLink());
  const name = await withUploadBody(ctx, async (upload) => dropFile(nimbus, share, await nameOf(upload.body, params.file), upload));
  if (!wantsPage(ctx)) return { msg: 'File uploaded', name };
  sendHtml(
    ctx,
    201,
    'File sent',
    `<h1>Thank you</h1><p class="done">“${escapeHtml(name)}” was sent.</p><a class="button" href="/s/${encodeURIComponent(params.token)}">Send another file</a>`,
  );
}

/** The name the client gave: the `file` parameter, else a form's file part's own name. */
async function nameOf(body: unknown, given: string | undefined): Promise<string> {
  if (given !== undefined) return given;
  return body instanceof FormFilePart ? body.fileName() : '';
}
