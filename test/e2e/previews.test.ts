/**
 * Previews in real Chromium (issue 13): the bytes `files.download?inline=true` serves
 * actually render under their sandboxing CSP — an image, a PDF in Chromium's viewer, audio
 * that seeks through Range — while HTML and SVG never render on the daemon's origin; and a
 * share link of an image or a PDF opens, without signing in, as a small page with the
 * preview and a download button. Screenshots go to test-artifacts/previews-*.png.
 */
import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import type { Frame, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signIn } from '../helpers/api.js';
import { ARTIFACTS_DIR, browserAvailable, launchBrowser, REPO_ROOT, type TestBrowser } from '../helpers/browser.js';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';

const runUi = browserAvailable();

/** Chromium's PDF viewer is this built-in extension; its frame appears only when a PDF is shown. */
const PDF_VIEWER = 'chrome-extension://mhjfbmdgcfjbbpaeojofohoefgiehjai/';

/** Half a second of 8 kHz mono silence: a real WAV Chromium decodes. */
function wav(): Buffer {
  const samples = 4000;
  const b = Buffer.alloc(44 + samples, 128);
  b.write('RIFF', 0);
  b.writeUInt32LE(36 + samples, 4);
  b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20); // PCM
  b.writeUInt16LE(1, 22); // mono
  b.writeUInt32LE(8000, 24);
  b.writeUInt32LE(8000, 28);
  b.writeUInt16LE(1, 32);
  b.writeUInt16LE(8, 34);
  b.write('data', 36);
  b.writeUInt32LE(samples, 40);
  return b;
}

const XSS_HTML = '<!doctype html><title>pwned</title><script>alert(document.cookie)</script><h1>pwned</h1>';
const XSS_SVG = '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>';

/**
 * Serious and critical accessibility violations axe-core finds on the page. The page's CSP
 * lets no script in, so axe is evaluated through the DevTools protocol (which a page's CSP
 * does not govern), not added as a <script>.
 */
async function axeViolations(page: Page): Promise<string[]> {
  const source = await readFile(path.join(REPO_ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
  await page.evaluate(source);
  const { violations, passes } = await page.evaluate(async () => {
    type Result = { id: string; impact?: string | null };
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: Result[]; passes: Result[] }> } }).axe;
    const result = await axe.run();
    return { violations: result.violations.map((v) => `${v.impact}: ${v.id}`), passes: result.passes.length };
  });
  expect(passes).toBeGreaterThan(0); // axe did run
  return violations.filter((v) => v.startsWith('serious') || v.startsWith('critical'));
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS_DIR, `previews-${name}.png`), animations: 'disabled', caret: 'hide' });
}

/** Waits until Chromium's PDF viewer has loaded inside the page (a frame of the viewer's extension). */
async function pdfViewerFrame(page: Page): Promise<Frame> {
  let found: Frame | undefined;
  await expect.poll(() => (found = page.frames().find((f) => f.url().startsWith(PDF_VIEWER))), { timeout: 15_000 }).toBeDefined();
  return found!;
}

describe.skipIf(!runUi)('previews in Chromium (real daemon)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  const dialogs: string[] = [];
  const cspViolations: string[] = [];
  let photo: Buffer;
  let imageLink: string;
  let pdfLink: string;

  beforeAll(async () => {
    await mkdir(ARTIFACTS_DIR, { recursive: true });
    t = await startTestDaemon();
    await createUser(t, 'ana');
    photo = await sharp({
      create: { width: 640, height: 400, channels: 3, background: { r: 40, g: 110, b: 200 } },
    })
      .composite([{ input: { create: { width: 200, height: 200, channels: 3, background: '#f5b700' } }, left: 220, top: 100 }])
      .png()
      .toBuffer();
    await upload(t, 'ana', 'photo.png', photo);
    await upload(t, 'ana', 'paper.pdf', await readFile(path.join(import.meta.dirname, '..', 'fixtures', 'previews', 'tiny.pdf')));
    await upload(t, 'ana', 'tone.wav', wav());
    await upload(t, 'ana', 'page.html', XSS_HTML);
    await upload(t, 'ana', 'logo.svg', XSS_SVG);
    for (const file of ['photo.png', 'paper.pdf']) {
      const shared = await api(t, 'files.share', { username: 'ana', file });
      expect(shared.status).toBe(201);
      if (file === 'photo.png') imageLink = shared.body.file.shareUrl!;
      else pdfLink = shared.body.file.shareUrl!;
    }
    browser = await launchBrowser();
    // Signed in as ana: the session cookie goes with every plain link, as in the UI.
    const ana = await signIn(t, 'ana');
    const [name, value] = ana.cookie.split('=');
    await browser.context.addCookies([{ name, value, url: t.url }]);
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** The page count Chromium's PDF viewer shows in its toolbar, once it has parsed the document. */
  async function pdfPageCount(on: Page): Promise<number> {
    const viewer = await pdfViewerFrame(on);
    const count = () =>
      viewer.evaluate(() => {
        // The viewer's own elements: <pdf-viewer> and its toolbar, which holds the document's length.
        const toolbar = document.querySelector('pdf-viewer')?.shadowRoot?.querySelector('viewer-toolbar') as { docLength?: number } | null;
        return toolbar?.docLength ?? 0;
      });
    await expect.poll(count, { timeout: 15_000 }).toBeGreaterThan(0);
    return count();
  }

  const inlineUrl = (file: string) => `${t.url}/api/files/download?${new URLSearchParams({ username: 'ana', file, inline: 'true' })}`;

  it('shows an image served inline', async () => {
    const res = await page.goto(inlineUrl('photo.png'));
    expect(res?.headers()['content-security-policy']).toContain('sandbox');
    expect(await page.evaluate(() => document.querySelector('img')?.naturalWidth)).toBe(640);
    await shot(page, 'inline-image');
  });

  it('shows a PDF served inline in Chromium’s PDF viewer, under the full sandbox', async () => {
    // (The headers are test/daemon/previews.test.ts's; Chromium reports the viewer's own here.)
    await page.goto(inlineUrl('paper.pdf'));
    expect(await pdfPageCount(page)).toBe(1);
    await page.waitForTimeout(500); // the page is painted after the viewer loads; only for the screenshot
    await shot(page, 'inline-pdf');
  });

  it('plays audio served inline and seeks through Range', async () => {
    const ranged: number[] = [];
    const onResponse = (response: Response) => {
      if (response.url().includes('tone.wav') && response.request().headers().range) ranged.push(response.status());
    };
    page.on('response', onResponse);
    await page.goto(inlineUrl('tone.wav'));
    await expect
      .poll(() => page.evaluate(() => document.querySelector('video')?.readyState ?? -1), { timeout: 10_000 })
      .toBeGreaterThanOrEqual(1);
    expect(await page.evaluate(() => document.querySelector('video')!.duration)).toBeCloseTo(0.5, 1);
    // The sandbox runs no page script, so no event listener: set the time and poll it.
    await page.evaluate(() => {
      document.querySelector('video')!.currentTime = 0.3;
    });
    await expect.poll(() => page.evaluate(() => document.querySelector('video')!.seeking)).toBe(false);
    expect(await page.evaluate(() => document.querySelector('video')!.currentTime)).toBeCloseTo(0.3, 1);
    page.off('response', onResponse);
    // Chromium's media player reads through ranges, and the daemon answers them with 206.
    expect(ranged.length).toBeGreaterThan(0);
    expect(ranged.every((status) => status === 206)).toBe(true);
  });

  it.each([
    ['page.html', 'an HTML page'],
    ['logo.svg', 'an SVG with scripts'],
  ])('downloads %s (%s) asked inline instead of rendering it', async (file) => {
    const downloading = page.waitForEvent('download');
    await page.goto(inlineUrl(file)).catch(() => undefined); // a download aborts the navigation
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(file);
    await download.cancel();
    expect(dialogs).toEqual([]);
    expect(await page.title()).not.toBe('pwned');
  });

  it('opens a shared image as a page with the picture and a download button, without signing in', async () => {
    // A visitor: no session (the share tests below need none either).
    await browser.context.clearCookies();
    const anon = await browser.context.newPage();
    const violations: string[] = [];
    anon.on('console', (m) => /Content Security Policy/i.test(m.text()) && violations.push(m.text()));
    await anon.setViewportSize({ width: 1280, height: 800 });
    const res = await anon.goto(imageLink);
    expect(res?.headers()['content-type']).toMatch(/^text\/html/);
    await expect.poll(() => anon.evaluate(() => document.querySelector('img')?.naturalWidth ?? 0)).toBe(640);
    await expect.poll(() => anon.evaluate(() => document.querySelector('img')?.complete)).toBe(true);
    expect(await anon.getByRole('img', { name: 'photo.png' }).isVisible()).toBe(true);
    const button = anon.getByRole('link', { name: 'Download' });
    expect(await button.isVisible()).toBe(true);
    for (const scheme of ['light', 'dark'] as const) {
      await anon.emulateMedia({ colorScheme: scheme });
      await shot(anon, `share-image-${scheme}`);
      expect(await axeViolations(anon), scheme).toEqual([]);
    }
    await anon.setViewportSize({ width: 390, height: 844 });
    await shot(anon, 'share-image-phone');
    expect(await anon.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    const downloading = anon.waitForEvent('download');
    await button.click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('photo.png');
    expect(await readFile((await download.path())!)).toEqual(photo);
    expect(violations).toEqual([]);
    await anon.close();
  });

  it('opens a shared PDF as a page with the PDF in Chromium’s viewer', async () => {
    cspViolations.length = 0;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(pdfLink);
    const frame = page.locator('iframe[title="paper.pdf"]');
    expect(await frame.isVisible()).toBe(true);
    expect(await pdfPageCount(page)).toBe(1);
    await page.waitForTimeout(500); // painted after the viewer loads; only for the screenshot
    await shot(page, 'share-pdf');
    expect(await axeViolations(page)).toEqual([]);
    expect(await page.getByRole('link', { name: 'Download' }).getAttribute('href')).toBe(`${new URL(pdfLink).pathname}?download=true`);
    expect(cspViolations).toEqual([]);
  });

  it('refuses to let another site frame a previewed PDF (frame-ancestors)', async () => {
    // A page on another origin (another port) that frames the shared PDF's inline bytes.
    const other = http.createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/html');
      res.end(`<!doctype html><iframe id="f" src="${pdfLink}?inline=true" width="400" height="300"></iframe>`);
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const blocked = new Promise<void>((resolve) =>
        page.on('console', (m) => /frame-ancestors|refused to (frame|display)/i.test(m.text()) && resolve()),
      );
      await page.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
      await blocked;
      expect(page.frames().some((f) => f.url().startsWith(PDF_VIEWER))).toBe(false);
    } finally {
      other.close();
    }
  });
});
