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
import { pageWords, type PageWords } from './page-words.js';
import { htmlDocument, PASSWORD_PAGE_CSP, sendHtml, STYLE } from './pages.js';
import { assertUnlocked, DEAD_LINK_PAGE, wantsPage } from './share-access.js';
import { withUploadBody } from './upload-body.js';

const UPLOAD_STYLE = `form{display:grid;gap:.75rem;margin-top:1.25rem}
input[type=file]{font:inherit;padding:.75rem;border-radius:6px;border:1px dashed var(--border);background:var(--bg);color:var(--text);max-width:100%}
p.done{font-weight:600;color:var(--text);margin-bottom:1rem}`;

/** One of the upload link's pages, in the reader's language. */
function sendUploadPage(ctx: Context, status: number, body: (w: PageWords) => { title: string; html: string }): void {
  const { w, lang } = pageWords(ctx);
  const { title, html } = body(w);
  sendHtml(ctx, status, PASSWORD_PAGE_CSP, htmlDocument(title, `${STYLE}\n${UPLOAD_STYLE}`, `<main>${html}</main>`, lang));
}

/** `GET /s/{token}` of an upload link: its page for a browser, `{upload: true}` for anything else. */
export function serveUploadLink(ctx: Context, token: string): void {
  if (!wantsPage(ctx)) {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { upload: true };
    return;
  }
  sendUploadPage(ctx, 200, (w) => ({
    title: w.sendTitle,
    html: `<h1>${escapeHtml(w.sendTitle)}</h1><p>${escapeHtml(w.sendLead)}</p>
<form method="post" action="/s/${encodeURIComponent(token)}/upload" enctype="multipart/form-data">
<label for="file" hidden>${escapeHtml(w.file)}</label><input id="file" name="file" type="file" required>
<button type="submit">${escapeHtml(w.upload)}</button></form>`,
  }));
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
  assertUnlocked(ctx, share, params.token);
  const name = await withUploadBody(ctx, async (upload) => {
    // Once the body's type is known to be a file's (a 415 takes no use), before a byte of it is read.
    if (!(await takeDownload(nimbus, share))) explainedBy(DEAD_LINK_PAGE)(deadLink());
    return dropFile(nimbus, share, await nameOf(upload.body, params.file), upload);
  });
  if (!wantsPage(ctx)) return { msg: 'File uploaded', name };
  sendUploadPage(ctx, 201, (w) => ({
    title: w.sentTitle,
    html: `<h1>${escapeHtml(w.sentTitle)}</h1><p class="done">${escapeHtml(w.sent(name))}</p><a class="button" href="/s/${encodeURIComponent(params.token)}">${escapeHtml(w.sendAnother)}</a>`,
  }));
}

/** The name the client gave: the `file` parameter, else a form's file part's own name. */
async function nameOf(body: unknown, given: string | undefined): Promise<string> {
  if (given !== undefined) return given;
  return body instanceof FormFilePart ? body.fileName() : '';
}
