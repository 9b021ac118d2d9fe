import type { Context } from 'koa';
import { mimeTypeOf } from '../services/records.js';
import { escapeHtml } from '../services/verification.js';
import { inBinaryUnits } from '../util/binary-units.js';

/** The look of every page the daemon shows a person: system colours (light and dark), one card. */
export const STYLE = `:root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",sans-serif}
body{display:grid;place-items:center;min-height:100vh;margin:0;background:Canvas;color:CanvasText}
main{max-width:28rem;margin:1rem;padding:2rem;border-radius:12px;border:1px solid color-mix(in srgb,CanvasText 15%,transparent);text-align:center}
h1{font-size:1.4rem;margin:0 0 .5rem}p{margin:0;opacity:.8;line-height:1.5}`;

/** What the share page adds: a wider card, the picture or the PDF, and a download button. */
const PREVIEW_STYLE = `main.preview{max-width:min(64rem,calc(100vw - 2rem));box-sizing:border-box;padding:1.5rem}
h1{overflow-wrap:anywhere}
.view{margin:1rem 0;display:grid;place-items:center}
.view img{max-width:100%;max-height:70vh;height:auto;border-radius:6px}
.view iframe{width:min(60rem,calc(100vw - 5rem));height:70vh;border:0;border-radius:6px}
a.button{display:inline-block;padding:.6rem 1.4rem;border-radius:8px;background:LinkText;color:Canvas;text-decoration:none;font-weight:600}
a.button:focus-visible{outline:3px solid CanvasText;outline-offset:2px}`;

export function htmlDocument(title: string, style: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} — Nimbus</title>
<style>
${style}
</style></head>
<body>${body}</body></html>
`;
}

/** A small self-contained page (no scripts) for the public routes a person opens from a mail. */
export function page(title: string, message: string): string {
  return htmlDocument(title, STYLE, `<main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></main>`);
}

export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Answers with one of these pages, under the page CSP (styles only, nothing runs). */
export function sendPage(ctx: Context, status: number, title: string, message: string): void {
  ctx.status = status;
  ctx.set('Content-Security-Policy', PAGE_CSP);
  ctx.type = 'text/html';
  ctx.body = page(title, message);
}

/** What a share link's preview page shows: a picture in an <img>, a PDF in the browser's viewer. */
export type PreviewKind = 'image' | 'pdf';

/** Pictures every browser shows in an <img> (not SVG: it is never served inline). */
const WEB_IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp', 'image/apng']);

/**
 * The preview page a share link opened by a person shows, or null for the bytes: only a
 * client that prefers HTML to JSON (a browser's navigation; not DaneeCloud's bot, curl, or
 * an <img> on another page) and only for a picture or a PDF.
 */
export function sharePreviewKind(ctx: Context, name: string): PreviewKind | null {
  if (ctx.accepts('json', 'html') !== 'html') return null;
  const mime = mimeTypeOf(name);
  if (WEB_IMAGES.has(mime)) return 'image';
  return mime === 'application/pdf' ? 'pdf' : null;
}

/**
 * The share page's CSP: the page's own styles, and the shared bytes from its own link
 * (`img-src` for a picture, `frame-src` for the PDF viewer); nothing runs, nothing else
 * loads, and no other site may frame it.
 */
export const SHARE_PAGE_CSP =
  "default-src 'none'; img-src 'self'; frame-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The public page of a shared image or PDF: its name, the preview (the link's own bytes
 * with `?inline=true`) and a download button (`?download=true`). Links are relative to the
 * page, `/s/<token>`, so they hold whatever base URL the link was opened through.
 */
export function sharePreviewPage(token: string, name: string, kind: PreviewKind, sizeBytes: number, path?: string): string {
  // A file in a folder link is named by its `path` in the link.
  const base = `/s/${encodeURIComponent(token)}?${path === undefined ? '' : `path=${encodeURIComponent(path)}&amp;`}`;
  const title = escapeHtml(name);
  const view =
    kind === 'image' ? `<img src="${base}inline=true" alt="${title}">` : `<iframe src="${base}inline=true" title="${title}"></iframe>`;
  return htmlDocument(
    name,
    `${STYLE}\n${PREVIEW_STYLE}`,
    `<main class="preview"><h1>${title}</h1><p>${binarySize(sizeBytes)} · shared with Nimbus</p>
<div class="view">${view}</div>
<a class="button" href="${base}download=true" download>Download</a></main>`,
  );
}

/** Answers with a share link's preview page. */
export function sendSharePreview(ctx: Context, token: string, name: string, kind: PreviewKind, sizeBytes: number, path?: string): void {
  ctx.status = 200;
  ctx.set('Content-Security-Policy', SHARE_PAGE_CSP);
  ctx.type = 'text/html';
  ctx.body = sharePreviewPage(token, name, kind, sizeBytes, path);
}

/** The password page's form: one field and a button, in the card. */
const PASSWORD_STYLE = `form{display:grid;gap:.75rem;margin-top:1.25rem}
input{font:inherit;padding:.6rem .8rem;border-radius:8px;border:1px solid color-mix(in srgb,CanvasText 30%,transparent);background:Canvas;color:CanvasText}
button{font:inherit;padding:.6rem 1.4rem;border-radius:8px;border:0;background:LinkText;color:Canvas;font-weight:600;cursor:pointer}
input:focus-visible,button:focus-visible{outline:3px solid LinkText;outline-offset:2px}
p.wrong{color:#d22;opacity:1;font-weight:600}`;

/** The password page's CSP: the page CSP, but its one form may post to the daemon itself. */
export const PASSWORD_PAGE_CSP = PAGE_CSP.replace("form-action 'none'", "form-action 'self'");

/**
 * The page a link with a password shows until it is given: nothing about the file (not its
 * name, its size or its owner), only the field. `wrong`: the last try was wrong.
 */
export function sharePasswordPage(token: string, wrong: boolean): string {
  const action = `/s/${encodeURIComponent(token)}`;
  return htmlDocument(
    'Password needed',
    `${STYLE}\n${PASSWORD_STYLE}`,
    `<main><h1>This link asks for a password</h1><p>Type the password the person who shared it gave you.</p>
${wrong ? '<p class="wrong" role="alert">That password is not right.</p>' : ''}
<form method="post" action="${action}"><label for="password" hidden>Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" placeholder="Password" required autofocus>
<button type="submit">Open</button></form></main>`,
  );
}

/** Answers with the password page. */
export function sendSharePassword(ctx: Context, token: string, wrong: boolean): void {
  ctx.status = 401;
  ctx.set('Content-Security-Policy', PASSWORD_PAGE_CSP);
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'text/html';
  ctx.body = sharePasswordPage(token, wrong);
}

/** A size in the API's binary units (B, KiB, MiB, GiB, TiB), as the UI shows them. */
export function binarySize(bytes: number): string {
  const scaled = inBinaryUnits(bytes);
  return scaled ? `${scaled.value.toFixed(scaled.value < 10 ? 1 : 0)} ${scaled.unit}` : `${bytes} B`;
}
