/**
 * The public page of a folder link (docs/sharing.md, "Folder links"): the breadcrumbs from the
 * shared folder down (never above it), its folders and files, each file's preview or
 * download, and the folder as a zip. Server-rendered, no script: the same CSP as the other
 * share pages.
 */
import type { Context } from 'koa';
import type { LinkListing } from '../services/folder-links.js';
import { escapeHtml } from '../services/verification.js';
import { binarySize, htmlDocument, SHARE_PAGE_CSP, STYLE } from './pages.js';

const FOLDER_STYLE = `main.folder{max-width:min(56rem,calc(100vw - 2rem));box-sizing:border-box;text-align:left;padding:1.5rem}
nav ol{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem;padding:0;margin:0 0 1rem;font-size:.95rem}
nav li+li::before{content:"/";margin-right:.25rem;opacity:.5}
h1{overflow-wrap:anywhere}
table{width:100%;border-collapse:collapse;margin:1rem 0}
td,th{padding:.5rem .4rem;border-bottom:1px solid color-mix(in srgb,CanvasText 12%,transparent);text-align:left;overflow-wrap:anywhere}
td.num,th.num{text-align:right;white-space:nowrap}
a{color:LinkText}
a.button{display:inline-block;padding:.6rem 1.4rem;border-radius:8px;background:LinkText;color:Canvas;text-decoration:none;font-weight:600}
a:focus-visible{outline:3px solid CanvasText;outline-offset:2px}
.empty{opacity:.7;margin:1rem 0}
@media (max-width:40rem){.modified{display:none}}`;

const join = (path: string, name: string) => (path === '' ? name : `${path}/${name}`);

/** The page of one level of a folder link. */
export function folderLinkPage(token: string, listing: LinkListing): string {
  const base = `/s/${encodeURIComponent(token)}`;
  const at = (path: string, extra = '') =>
    path === '' && extra === ''
      ? base
      : `${base}?${path === '' ? '' : `path=${encodeURIComponent(path)}`}${path !== '' && extra ? '&amp;' : ''}${extra}`;
  const names = listing.path === '' ? [] : listing.path.split('/');
  const crumbs = [`<li><a href="${base}">${escapeHtml(listing.name)}</a></li>`];
  names.forEach((name, i) => {
    const path = names.slice(0, i + 1).join('/');
    crumbs.push(
      i === names.length - 1
        ? `<li aria-current="page">${escapeHtml(name)}</li>`
        : `<li><a href="${at(path)}">${escapeHtml(name)}</a></li>`,
    );
  });
  const rows = [
    ...listing.folders.map(
      (f) =>
        `<tr><td>📁 <a href="${at(join(listing.path, f.name))}">${escapeHtml(f.name)}</a></td><td class="num"></td><td class="modified"></td><td></td></tr>`,
    ),
    ...listing.files.map((f) => {
      const path = join(listing.path, f.name);
      return `<tr><td><a href="${at(path)}">${escapeHtml(f.name)}</a></td><td class="num">${binarySize(f.size)}</td><td class="modified">${f.modifiedAt.slice(0, 10)}</td><td class="num"><a href="${at(path, 'download=true')}" download aria-label="Download ${escapeHtml(f.name)}">Download</a></td></tr>`;
    }),
  ];
  const title = names.length > 0 ? names[names.length - 1] : listing.name;
  const table =
    rows.length === 0
      ? '<p class="empty">This folder is empty.</p>'
      : `<table><thead><tr><th>Name</th><th class="num">Size</th><th class="modified">Modified</th><th></th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
  return htmlDocument(
    title,
    `${STYLE}\n${FOLDER_STYLE}`,
    `<main class="folder"><nav aria-label="Folders"><ol>${crumbs.join('')}</ol></nav><h1>${escapeHtml(title)}</h1>
<p>${listing.folders.length} folders · ${listing.files.length} files · shared with Nimbus</p>
${table}
<a class="button" href="${at(listing.path, 'zip=true')}" download>Download all as .zip</a></main>`,
  );
}

export function sendFolderLinkPage(ctx: Context, token: string, listing: LinkListing): void {
  ctx.status = 200;
  ctx.set('Content-Security-Policy', SHARE_PAGE_CSP);
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'text/html';
  ctx.body = folderLinkPage(token, listing);
}
