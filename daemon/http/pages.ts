import type { Context } from 'koa';
import { escapeHtml } from '../services/verification.js';

/** A small self-contained page (no scripts) for the public routes a person opens from a mail. */
export function page(title: string, message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} — Nimbus</title>
<style>
:root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",sans-serif}
body{display:grid;place-items:center;min-height:100vh;margin:0;background:Canvas;color:CanvasText}
main{max-width:28rem;margin:1rem;padding:2rem;border-radius:12px;border:1px solid color-mix(in srgb,CanvasText 15%,transparent);text-align:center}
h1{font-size:1.4rem;margin:0 0 .5rem}p{margin:0;opacity:.8;line-height:1.5}
</style></head>
<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></main></body></html>
`;
}

export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Answers with one of these pages, under the page CSP (styles only, nothing runs). */
export function sendPage(ctx: Context, status: number, title: string, message: string): void {
  ctx.status = status;
  ctx.set('Content-Security-Policy', PAGE_CSP);
  ctx.type = 'text/html';
  ctx.body = page(title, message);
}
