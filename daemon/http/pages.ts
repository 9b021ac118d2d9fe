/**
 * The small pages the daemon shows a person (a dead link, a confirmed address, a share link's
 * pages): self-contained HTML, no script, the explorer's colours (its light and dark palettes,
 * renderer/styles/global.css) and its fonts, in the reader's language (page-words.ts).
 */
import type { Context } from 'koa';
import { escapeHtml } from '../services/verification.js';
import { inBinaryUnits } from '../util/binary-units.js';
import type { PageLang } from './page-words.js';
import { pageWords } from './page-words.js';

/** The explorer's palette (the subset these pages use), light and dark, and one card. */
export const STYLE = `:root{color-scheme:light dark;--bg:#f5f6f8;--surface:#fff;--border:#e0e3e8;--text:#1d2330;--muted:#555e6d;--accent:#2563eb;--accent-text:#fff;--danger:#d92d20;--shadow:0 12px 32px rgba(16,24,40,.16),0 2px 6px rgba(16,24,40,.08);--focus:0 0 0 3px rgba(37,99,235,.35)}
@media (prefers-color-scheme:dark){:root{--bg:#15181e;--surface:#1b1f26;--border:#2b313c;--text:#e6e9ef;--muted:#a7afbd;--accent:#5b93f7;--accent-text:#0d1420;--danger:#f2685e;--shadow:0 16px 40px rgba(0,0,0,.5),0 2px 6px rgba(0,0,0,.3);--focus:0 0 0 3px rgba(91,147,247,.45)}}
*{box-sizing:border-box}
body{display:grid;place-items:center;min-height:100vh;margin:0;background:var(--bg);color:var(--text);font:15px/1.5 ui-sans-serif,system-ui,-apple-system,"Segoe UI","Inter","Cantarell","Noto Sans",sans-serif;-webkit-font-smoothing:antialiased}
main{max-width:28rem;width:calc(100vw - 2rem);margin:1rem;padding:2rem;border-radius:10px;background:var(--surface);border:1px solid var(--border);box-shadow:var(--shadow);text-align:center}
h1{font-size:1.35rem;margin:0 0 .5rem;overflow-wrap:anywhere}p{margin:0;color:var(--muted)}
a{color:var(--accent)}
a.button,button{display:inline-block;font:inherit;padding:.55rem 1.3rem;border-radius:6px;border:0;background:var(--accent);color:var(--accent-text);text-decoration:none;font-weight:600;cursor:pointer}
a:focus-visible,button:focus-visible,input:focus-visible{outline:none;box-shadow:var(--focus)}`;

export function htmlDocument(title: string, style: string, body: string, lang: PageLang = 'en'): string {
  return `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} — Nimbus</title>
<style>
${style}
</style></head>
<body>${body}</body></html>
`;
}

/** A small self-contained page (no scripts) for the public routes a person opens from a mail. */
export function page(title: string, message: string, lang: PageLang = 'en'): string {
  return htmlDocument(title, STYLE, `<main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></main>`, lang);
}

export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The CSP of a page with a form (a link's password, an upload link): the page CSP, but its form may post to the daemon itself. */
export const PASSWORD_PAGE_CSP = PAGE_CSP.replace("form-action 'none'", "form-action 'self'");

/** Answers with one of these pages, under the page CSP (styles only, nothing runs). */
export function sendPage(ctx: Context, status: number, title: string, message: string): void {
  ctx.status = status;
  ctx.set('Content-Security-Policy', PAGE_CSP);
  ctx.type = 'text/html';
  ctx.body = page(title, message, pageWords(ctx).lang);
}

/** Answers with a page under `csp`, never cached (what a link shows may change at any moment). */
export function sendHtml(ctx: Context, status: number, csp: string, html: string): void {
  ctx.status = status;
  ctx.set('Content-Security-Policy', csp);
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'text/html';
  ctx.body = html;
}

/** A size in the API's binary units (B, KiB, MiB, GiB, TiB), as the UI shows them. */
export function binarySize(bytes: number): string {
  const scaled = inBinaryUnits(bytes);
  return scaled ? `${scaled.value.toFixed(scaled.value < 10 ? 1 : 0)} ${scaled.unit}` : `${bytes} B`;
}
