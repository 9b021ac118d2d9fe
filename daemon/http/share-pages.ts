/**
 * A share link's own pages (docs/sharing.md): the preview of a shared file (a picture, a PDF,
 * text, audio or video, from the link's own bytes with `inline=true`, and a download button),
 * and the password page, which names nothing of what the link shares.
 */
import type { Context } from 'koa';
import { mimeTypeOf } from '../services/records.js';
import { escapeHtml } from '../services/verification.js';
import { inlineTypeOf } from './download.js';
import { pageWords, type PageLang, type PageWords } from './page-words.js';
import { binarySize, htmlDocument, PASSWORD_PAGE_CSP, sendHtml, STYLE } from './pages.js';

/** What a share link's preview page shows: a picture in an <img>, a PDF or text in a frame, audio and video in their players. */
export type PreviewKind = 'image' | 'pdf' | 'text' | 'audio' | 'video';

/** Pictures every browser shows in an <img> (not SVG: it is never served inline). */
const WEB_IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp', 'image/apng']);

/**
 * The preview page a share link opened by a person shows, or null for the bytes: only a
 * client that prefers HTML to JSON (a browser's navigation; not DaneeCloud's bot, curl, or
 * an <img> on another page), and only for what a browser shows itself.
 */
export function sharePreviewKind(ctx: Context, name: string): PreviewKind | null {
  if (ctx.accepts('json', 'html') !== 'html') return null;
  const mime = mimeTypeOf(name);
  if (WEB_IMAGES.has(mime)) return 'image';
  if (mime === 'application/pdf') return 'pdf';
  if (inlineTypeOf(name) === null) return null;
  if (mime.startsWith('audio/')) return 'audio';
  if (mime.startsWith('video/')) return 'video';
  return mime.startsWith('text/') ? 'text' : null;
}

/**
 * The share page's CSP: the page's own styles, and the shared bytes from its own link
 * (`img-src` for a picture, `frame-src` for a PDF or text, `media-src` for the players);
 * nothing runs, nothing else loads, and no other site may frame it.
 */
export const SHARE_PAGE_CSP =
  "default-src 'none'; img-src 'self'; media-src 'self'; frame-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** What the share page adds: a wider card, the preview, and a download button. */
const PREVIEW_STYLE = `main.preview{max-width:min(64rem,calc(100vw - 2rem))}
.view{margin:1rem 0;display:grid;place-items:center}
.view img,.view video{max-width:100%;max-height:70vh;height:auto;border-radius:6px}
.view audio{width:min(36rem,100%)}
.view iframe{width:min(60rem,calc(100vw - 5rem));height:70vh;border:1px solid var(--border);border-radius:6px;background:#fff}`;

function viewOf(kind: PreviewKind, src: string, title: string): string {
  if (kind === 'image') return `<img src="${src}" alt="${title}">`;
  if (kind === 'audio') return `<audio controls preload="metadata" src="${src}" title="${title}"></audio>`;
  if (kind === 'video') return `<video controls preload="metadata" src="${src}" title="${title}"></video>`;
  return `<iframe src="${src}" title="${title}"></iframe>`;
}

/**
 * The public page of a shared file: its name, the preview (the link's own bytes with
 * `?inline=true`) and a download button (`?download=true`). Links are relative to the
 * page, `/s/<token>`, so they hold whatever base URL the link was opened through.
 */
export function sharePreviewPage(
  token: string,
  name: string,
  kind: PreviewKind,
  sizeBytes: number,
  path: string | undefined,
  words: { lang: PageLang; w: PageWords },
): string {
  // A file in a folder link is named by its `path` in the link.
  const base = `/s/${encodeURIComponent(token)}?${path === undefined ? '' : `path=${encodeURIComponent(path)}&amp;`}`;
  const title = escapeHtml(name);
  const { w, lang } = words;
  return htmlDocument(
    name,
    `${STYLE}\n${PREVIEW_STYLE}`,
    `<main class="preview"><h1>${title}</h1><p>${binarySize(sizeBytes)} · ${escapeHtml(w.sharedWith)}</p>
<div class="view">${viewOf(kind, `${base}inline=true`, title)}</div>
<a class="button" href="${base}download=true" download>${escapeHtml(w.download)}</a></main>`,
    lang,
  );
}

/** Answers with a share link's preview page. */
export function sendSharePreview(ctx: Context, token: string, name: string, kind: PreviewKind, sizeBytes: number, path?: string): void {
  sendHtml(ctx, 200, SHARE_PAGE_CSP, sharePreviewPage(token, name, kind, sizeBytes, path, pageWords(ctx)));
}

/** The password page's form: one field and a button, in the card. */
const PASSWORD_STYLE = `form{display:grid;gap:.75rem;margin-top:1.25rem}
input{font:inherit;padding:.55rem .8rem;border-radius:6px;border:1px solid var(--border);background:var(--bg);color:var(--text)}
p.wrong{color:var(--danger);font-weight:600;margin-top:.75rem}`;

/**
 * The page a link with a password shows until it is given: nothing about the file (not its
 * name, its size or its owner), only the field. `wrong`: the last try was wrong.
 */
export function sharePasswordPage(token: string, wrong: boolean, words: { lang: PageLang; w: PageWords }): string {
  const { w, lang } = words;
  const action = `/s/${encodeURIComponent(token)}`;
  return htmlDocument(
    w.passwordTitle,
    `${STYLE}\n${PASSWORD_STYLE}`,
    `<main><h1>${escapeHtml(w.passwordHeading)}</h1><p>${escapeHtml(w.passwordLead)}</p>
${wrong ? `<p class="wrong" role="alert">${escapeHtml(w.passwordWrong)}</p>` : ''}
<form method="post" action="${action}"><label for="password" hidden>${escapeHtml(w.password)}</label>
<input id="password" name="password" type="password" autocomplete="current-password" placeholder="${escapeHtml(w.password)}" required autofocus>
<button type="submit">${escapeHtml(w.open)}</button></form></main>`,
    lang,
  );
}

/** Answers with the password page (401). */
export function sendSharePassword(ctx: Context, token: string, wrong: boolean): void {
  sendHtml(ctx, 401, PASSWORD_PAGE_CSP, sharePasswordPage(token, wrong, pageWords(ctx)));
}
