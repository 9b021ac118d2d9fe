/**
 * The public page of a folder link (docs/sharing.md, "Folder links"): the breadcrumbs from the
 * shared folder down (never above it), its folders and files, each file's preview or
 * download, and the folder as a zip. Server-rendered, no script: the same CSP as the other
 * share pages.
 */
import type { Context } from 'koa';
import type { LinkListing } from '../services/folder-links.js';
import { escapeHtml } from '../services/verification.js';
import { pageWords, type PageLang, type PageWords } from './page-words.js';
import { binarySize, htmlDocument, sendHtml, STYLE } from './pages.js';
import { SHARE_PAGE_CSP } from './share-pages.js';

const FOLDER_STYLE = `main.folder{max-width:min(56rem,calc(100vw - 2rem));text-align:left;padding:1.5rem}
nav ol{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem;padding:0;margin:0 0 1rem;font-size:.95rem}
nav li+li::before{content:"/";margin-right:.25rem;color:var(--muted)}
table{width:100%;border-collapse:collapse;margin:1rem 0}
td,th{padding:.5rem .4rem;border-bottom:1px solid var(--border);text-align:left;overflow-wrap:anywhere}
th{color:var(--muted);font-weight:600;font-size:.9rem}
td.num,th.num{text-align:right;white-space:nowrap}
.empty{margin:1rem 0}
.icon{vertical-align:-3px;margin-right:.4rem;color:var(--accent)}
@media (max-width:40rem){.modified{display:none}main.folder{padding:1rem}}`;

/** Drawn inline (no font has to have a folder glyph, and the page loads nothing). */
const FOLDER_ICON =
  '<svg class="icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path fill="currentColor" d="M3 6.5A1.5 1.5 0 0 1 4.5 5h4.4l2 2h8.6A1.5 1.5 0 0 1 21 8.5v9a1.5 1.5 0 0 1-1.5 1.5h-15A1.5 1.5 0 0 1 3 17.5z"/></svg>';

const join = (path: string, name: string) => (path === '' ? name : `${path}/${name}`);

/** The page of one level of a folder link. */
export function folderLinkPage(token: string, listing: LinkListing, words: { lang: PageLang; w: PageWords }): string {
  const { w, lang } = words;
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
        `<tr><td>${FOLDER_ICON}<a href="${at(join(listing.path, f.name))}">${escapeHtml(f.name)}</a></td><td class="num"></td><td class="modified"></td><td></td></tr>`,
    ),
    ...listing.files.map((f) => {
      const path = join(listing.path, f.name);
      return `<tr><td><a href="${at(path)}">${escapeHtml(f.name)}</a></td><td class="num">${binarySize(f.size)}</td><td class="modified">${f.modifiedAt.slice(0, 10)}</td><td class="num"><a href="${at(path, 'download=true')}" download aria-label="${escapeHtml(w.downloadNamed(f.name))}">${escapeHtml(w.download)}</a></td></tr>`;
    }),
  ];
  const title = names.length > 0 ? names[names.length - 1] : listing.name;
  const table =
    rows.length === 0
      ? `<p class="empty">${escapeHtml(w.emptyFolder)}</p>`
      : `<table><thead><tr><th>${escapeHtml(w.name)}</th><th class="num">${escapeHtml(w.size)}</th><th class="modified">${escapeHtml(w.modified)}</th><th></th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
  return htmlDocument(
    title,
    `${STYLE}\n${FOLDER_STYLE}`,
    `<main class="folder"><nav aria-label="${escapeHtml(w.folders)}"><ol>${crumbs.join('')}</ol></nav><h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(w.counts(listing.folders.length, listing.files.length))} · ${escapeHtml(w.sharedWith)}</p>
${table}
<a class="button" href="${at(listing.path, 'zip=true')}" download>${escapeHtml(w.downloadZip)}</a></main>`,
    lang,
  );
}

export function sendFolderLinkPage(ctx: Context, token: string, listing: LinkListing): void {
  sendHtml(ctx, 200, SHARE_PAGE_CSP, folderLinkPage(token, listing, pageWords(ctx)));
}
