/**
 * The previewer, the trash view and search in the web UI (issue 13), end to end: the built
 * renderer served by a real daemon, driven in Debian's Chromium, signed in as a user (so every
 * preview is a plain link carrying the session cookie). Previews an image and steps to the
 * next one, a PDF in Chromium's viewer, a video that seeks through Range requests; deletes a
 * file and restores it from the trash (also as a copy when its name is taken again); empties
 * the trash; searches across folders and opens a hit's folder. Screenshots at 1400×900 and
 * 390×844 go to test-artifacts/pts-*.png.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import type { Frame, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, browserAvailable, ensureRendererBuilt, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { axeFindings } from '../helpers/axe.js';

const runUi = browserAvailable();
const PASSWORD = 'correct horse battery';
const SIZES = { desktop: { width: 1400, height: 900 }, phone: { width: 390, height: 844 } } as const;
/** Chromium's PDF viewer is this built-in extension; its frame appears only when a PDF is shown. */
const PDF_VIEWER = 'chrome-extension://mhjfbmdgcfjbbpaeojofohoefgiehjai/';

/** A screenshot at both sizes; the page goes back to the desktop size. */
async function shots(page: Page, name: string): Promise<void> {
  for (const [size, viewport] of Object.entries(SIZES)) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, `pts-${name}-${size}.png`), animations: 'disabled', caret: 'hide' });
  }
  await page.setViewportSize(SIZES.desktop);
}

/** axe-core's serious and critical findings inside `selector` (one view of this journey). */
async function picture(width: number, height: number, background: string, spot: string): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background } })
    .composite([
      {
        input: { create: { width: Math.round(width / 3), height: Math.round(height / 3), channels: 3, background: spot } },
        left: Math.round(width / 3),
        top: Math.round(height / 3),
      },
    ])
    .png()
    .toBuffer();
}

// ---- A real video, made here: Chromium's own VP8 encoder (WebCodecs), muxed into WebM. ----

interface EncodedFrame {
  key: boolean;
  ms: number;
  data: number[];
}

/** Four seconds of 160×120 VP8 at 10 fps, a key frame every second, encoded in the page. */
function encodeInPage(page: Page): Promise<EncodedFrame[]> {
  return page.evaluate(async () => {
    const width = 160;
    const height = 120;
    const fps = 10;
    const canvas = new OffscreenCanvas(width, height);
    const context = canvas.getContext('2d')!;
    const frames: { key: boolean; ms: number; data: number[] }[] = [];
    const encoder = new VideoEncoder({
      output: (chunk) => {
        const bytes = new Uint8Array(chunk.byteLength);
        chunk.copyTo(bytes);
        frames.push({ key: chunk.type === 'key', ms: Math.round(chunk.timestamp / 1000), data: Array.from(bytes) });
      },
      error: (error) => {
        throw error;
      },
    });
    encoder.configure({ codec: 'vp8', width, height, bitrate: 300_000, framerate: fps });
    for (let i = 0; i < 4 * fps; i += 1) {
      context.fillStyle = `hsl(${i * 9}, 70%, 45%)`;
      context.fillRect(0, 0, width, height);
      context.fillStyle = '#fff';
      context.font = '48px sans-serif';
      context.fillText(String(i), 50, 80);
      const frame = new VideoFrame(canvas, { timestamp: (i * 1_000_000) / fps, duration: 1_000_000 / fps });
      encoder.encode(frame, { keyFrame: i % fps === 0 });
      frame.close();
    }
    await encoder.flush();
    return frames;
  });
}

/** EBML: an element with an 8-byte size (simple, and valid for any length). */
function element(id: number[], ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const size = Buffer.alloc(8);
  size[0] = 0x01;
  size.writeUIntBE(body.length, 2, 6);
  return Buffer.concat([Buffer.from(id), size, body]);
}
const uint = (id: number[], value: number): Buffer => {
  const bytes: number[] = [];
  for (let v = value; bytes.length === 0 || v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return element(id, Buffer.from(bytes));
};
const text = (id: number[], value: string): Buffer => element(id, Buffer.from(value));
const float = (id: number[], value: number): Buffer => {
  const bytes = Buffer.alloc(8);
  bytes.writeDoubleBE(value);
  return element(id, bytes);
};

/** A WebM file (EBML header, Info with a duration, one VP8 track, a cluster per key frame, cues). */
function webm(frames: EncodedFrame[], width = 160, height = 120): Buffer {
  const header = element(
    [0x1a, 0x45, 0xdf, 0xa3],
    uint([0x42, 0x86], 1),
    uint([0x42, 0xf7], 1),
    uint([0x42, 0xf2], 4),
    uint([0x42, 0xf3], 8),
    text([0x42, 0x82], 'webm'),
    uint([0x42, 0x87], 2),
    uint([0x42, 0x85], 2),
  );
  const last = frames[frames.length - 1];
  const info = element(
    [0x15, 0x49, 0xa9, 0x66],
    uint([0x2a, 0xd7, 0xb1], 1_000_000), // timecodes in ms
    float([0x44, 0x89], last.ms + 100),
    text([0x4d, 0x80], 'nimbus-test'),
    text([0x57, 0x41], 'nimbus-test'),
  );
  const tracks = element(
    [0x16, 0x54, 0xae, 0x6b],
    element(
      [0xae],
      uint([0xd7], 1),
      uint([0x73, 0xc5], 1),
      uint([0x83], 1), // video
      text([0x86], 'V_VP8'),
      element([0xe0], uint([0xb0], width), uint([0xba], height)),
    ),
  );
  const clusters: { ms: number; bytes: Buffer }[] = [];
  let blocks: Buffer[] = [];
  let start = 0;
  const close = () => {
    if (blocks.length > 0) clusters.push({ ms: start, bytes: element([0x1f, 0x43, 0xb6, 0x75], uint([0xe7], start), ...blocks) });
    blocks = [];
  };
  for (const frame of frames) {
    if (frame.key) {
      close();
      start = frame.ms;
    }
    const head = Buffer.alloc(4);
    head[0] = 0x81; // track 1
    head.writeInt16BE(frame.ms - start, 1);
    head[3] = frame.key ? 0x80 : 0x00;
    blocks.push(element([0xa3], head, Buffer.from(frame.data)));
  }
  close();
  let position = info.length + tracks.length;
  const points = clusters.map((cluster) => {
    const point = element([0xbb], uint([0xb3], cluster.ms), element([0xb7], uint([0xf7], 1), uint([0xf1], position)));
    position += cluster.bytes.length;
    return point;
  });
  const cues = element([0x1c, 0x53, 0xbb, 0x6b], ...points);
  return Buffer.concat([header, element([0x18, 0x53, 0x80, 0x67], info, tracks, ...clusters.map((c) => c.bytes), cues)]);
}

describe.skipIf(!runUi)('previews, trash and search in the web UI (Chromium, real daemon)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  const pageErrors: string[] = [];

  const trashItems = async () => ((await t.api('GET', '/api/trash', { username: 'ana' })).body as { items: { name: string }[] }).items;
  const rootFiles = async () =>
    ((await t.api('GET', '/api/files', { username: 'ana' })).body as { files: { name: string }[] }).files.map((f) => f.name);
  const grid = () => page.getByRole('grid');
  const row = (name: string) => grid().getByRole('row', { name: new RegExp(name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) });
  const dialog = () => page.getByRole('dialog');

  async function openMyFiles(): Promise<void> {
    await page.getByRole('button', { name: 'My files' }).click();
    await grid().waitFor();
  }

  async function openTrash(): Promise<void> {
    await page.getByRole('button', { name: 'Trash', exact: true }).click();
    await page.getByRole('heading', { name: 'Trash', level: 1 }).waitFor();
  }

  beforeAll(async () => {
    await ensureRendererBuilt();
    await mkdir(ARTIFACTS_DIR, { recursive: true });
    t = await startTestDaemon();
    const created = await t.api('POST', '/api/user/create', { username: 'ana', email: 'ana@example.com', password: PASSWORD });
    expect(created.status).toBe(201);
    for (const folder of ['Photos', 'Docs', 'Archive'])
      expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder })).status).toBe(201);
    await upload(t, 'ana', 'beach.png', await picture(900, 600, '#2a6fd6', '#f5b700'), { folder: 'Photos' });
    await upload(t, 'ana', 'readme.bin', Buffer.from([0, 1, 2, 3]), { folder: 'Photos' });
    await upload(t, 'ana', 'sunset.png', await picture(600, 800, '#d65a2a', '#3b1f5c'), { folder: 'Photos' });
    await upload(t, 'ana', 'report.pdf', await readFile(path.join(import.meta.dirname, '..', 'fixtures', 'previews', 'tiny.pdf')));
    await upload(t, 'ana', 'notes.txt', Array.from({ length: 40 }, (_, i) => `line ${i + 1} of ana’s notes`).join('\n'));
    await upload(t, 'ana', 'Résumé 2026.txt', 'curriculum vitae\n', { folder: 'Docs' });
    await upload(t, 'ana', 'old resume.txt', 'an older one\n', { folder: 'Archive' });

    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.setViewportSize(SIZES.desktop);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    // The sign-in page is a secure context (127.0.0.1): WebCodecs encodes the test video there.
    await page.goto(t.url);
    await upload(t, 'ana', 'clip.webm', webm(await encodeInPage(page)));
    await page.getByLabel('Username').fill('ana');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await grid().waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('previews an image, steps to the next previewable file and back; Escape returns to the row', async () => {
    await row('Photos').dblclick();
    await row('beach.png').dblclick();
    const viewer = dialog();
    await viewer.getByRole('heading', { name: 'beach.png' }).waitFor();
    // The picture really loaded, through the inline link and the session cookie.
    await expect.poll(() => viewer.getByRole('img', { name: 'beach.png' }).evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(900);
    expect(await viewer.getByRole('img', { name: 'beach.png' }).getAttribute('src')).toContain('inline=true');
    expect(await viewer.getByText('1 of 2').count()).toBe(1);
    expect(await axeFindings(page, '.preview')).toEqual([]);
    await shots(page, 'image');
    // readme.bin sits between them and is skipped.
    await page.keyboard.press('ArrowRight');
    await viewer.getByRole('heading', { name: 'sunset.png' }).waitFor();
    await expect
      .poll(() => viewer.getByRole('img', { name: 'sunset.png' }).evaluate((img: HTMLImageElement) => img.naturalWidth))
      .toBe(600);
    await page.keyboard.press('ArrowLeft');
    await viewer.getByRole('heading', { name: 'beach.png' }).waitFor();
    await viewer.getByRole('button', { name: 'Next file' }).click();
    await viewer.getByRole('heading', { name: 'sunset.png' }).waitFor();
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });
    // Focus is back in the listing, never on the page itself.
    expect(await page.evaluate(() => document.activeElement !== document.body && !!document.activeElement?.closest('[role="grid"]'))).toBe(
      true,
    );
  });

  it('shows a PDF in Chromium’s own viewer', async () => {
    await openMyFiles();
    await row('report.pdf').dblclick();
    const viewer = dialog();
    await viewer.getByRole('heading', { name: 'report.pdf' }).waitFor();
    expect(await viewer.locator('iframe').getAttribute('src')).toContain('inline=true');
    let pdf: Frame | undefined;
    await expect.poll(() => (pdf = page.frames().find((f) => f.url().startsWith(PDF_VIEWER))), { timeout: 15_000 }).toBeDefined();
    // The viewer has parsed the document once its toolbar knows the page count.
    const pages = () =>
      pdf!.evaluate(() => {
        const toolbar = document.querySelector('pdf-viewer')?.shadowRoot?.querySelector('viewer-toolbar') as { docLength?: number } | null;
        return toolbar?.docLength ?? 0;
      });
    await expect.poll(pages, { timeout: 15_000 }).toBe(1);
    await shots(page, 'pdf');
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });
  });

  it('plays a video and seeks through Range requests', async () => {
    const ranges: { range: string; status: number }[] = [];
    const onResponse = (response: Response) => {
      const range = response.request().headers().range;
      if (response.url().includes('clip.webm') && range) ranges.push({ range, status: response.status() });
    };
    page.on('response', onResponse);
    await row('clip.webm').dblclick();
    const viewer = dialog();
    await viewer.getByRole('heading', { name: 'clip.webm' }).waitFor();
    const video = viewer.locator('video');
    expect(await video.getAttribute('src')).toContain('inline=true');
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
    expect(await video.evaluate((v: HTMLVideoElement) => v.duration)).toBeCloseTo(4, 0);
    await video.evaluate((v: HTMLVideoElement) => {
      v.currentTime = 2.5;
    });
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.seeking)).toBe(false);
    expect(await video.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeCloseTo(2.5, 0);
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState)).toBeGreaterThanOrEqual(2);
    await shots(page, 'video');
    page.off('response', onResponse);
    // The player read the file through ranges, answered 206 by the daemon.
    expect(ranges.length).toBeGreaterThan(0);
    expect(ranges.every((r) => r.status === 206)).toBe(true);
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });
  });

  it('shows text with line numbers', async () => {
    await row('notes.txt').dblclick();
    const viewer = dialog();
    const text = viewer.getByRole('region', { name: 'Text of notes.txt' });
    await text.getByText('line 40 of ana’s notes').waitFor();
    expect(await text.locator('.preview__gutter').textContent()).toMatch(/^1\n2\n3\n[\s\S]*\n40$/);
    await shots(page, 'text');
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });
  });

  it('deletes a file and restores it from the trash', async () => {
    await row('notes.txt').click();
    await page.keyboard.press('Delete');
    await dialog().getByRole('button', { name: 'Delete', exact: true }).click();
    await row('notes.txt').waitFor({ state: 'detached' });
    expect((await trashItems()).map((i) => i.name)).toEqual(['notes.txt']);

    await openTrash();
    const trash = page.getByRole('table', { name: 'Deleted files and folders' });
    await trash.getByRole('rowheader', { name: /notes\.txt/ }).waitFor();
    expect(await axeFindings(page, '.trash')).toEqual([]);
    await shots(page, 'trash');
    await page.getByRole('button', { name: 'Restore notes.txt' }).click();
    await page.getByText('Restored “notes.txt” to Root').waitFor();
    await page.getByText('The trash is empty').waitFor();
    expect(await rootFiles()).toContain('notes.txt');
    await openMyFiles();
    await row('notes.txt').waitFor();
  });

  it('restores as a copy when the name is taken again', async () => {
    await row('notes.txt').click();
    await page.keyboard.press('Delete');
    await dialog().getByRole('button', { name: 'Delete', exact: true }).click();
    await row('notes.txt').waitFor({ state: 'detached' });
    // Meanwhile a new notes.txt arrives.
    await upload(t, 'ana', 'notes.txt', 'a new one\n');
    await openTrash();
    await page.getByRole('button', { name: 'Restore notes.txt' }).click();
    const ask = page.getByRole('dialog', { name: '“notes.txt” is there again' });
    await ask.waitFor();
    expect(await axeFindings(page, '[role="dialog"]')).toEqual([]);
    await shots(page, 'trash-conflict');
    await ask.getByRole('button', { name: 'Restore as a copy' }).click();
    await page.getByText('Restored as “notes (restored).txt” in Root').waitFor();
    expect(await rootFiles()).toEqual(expect.arrayContaining(['notes.txt', 'notes (restored).txt']));
  });

  it('empties the trash after asking', async () => {
    for (const file of ['notes (restored).txt', 'report.pdf']) {
      expect((await t.api('POST', '/api/files/delete', { username: 'ana', file })).status).toBe(200);
    }
    // The view follows the trash.changed events: both appear without a reload.
    const trash = page.getByRole('table', { name: 'Deleted files and folders' });
    await trash.getByRole('rowheader', { name: /report\.pdf/ }).waitFor();
    await trash.getByRole('rowheader', { name: /notes \(restored\)\.txt/ }).waitFor();
    await page.getByRole('button', { name: 'Empty trash' }).click();
    const ask = page.getByRole('dialog', { name: 'Empty the trash?' });
    await ask.getByText(/All 2 items in the trash will be deleted for good/).waitFor();
    await ask.getByRole('button', { name: 'Empty trash' }).click();
    await page.getByText('The trash is empty').waitFor();
    expect(await trashItems()).toEqual([]);
    await shots(page, 'trash-empty');
  });

  it('searches every folder and opens a hit’s folder', async () => {
    await openMyFiles();
    await page.getByRole('searchbox', { name: 'Search files' }).fill('resume');
    const results = page.getByRole('table', { name: 'Results for “resume”' });
    await results.getByRole('rowheader', { name: /Résumé 2026\.txt/ }).waitFor();
    await results.getByRole('rowheader', { name: /old resume\.txt/ }).waitFor();
    expect(await results.locator('mark').allTextContents()).toEqual(expect.arrayContaining(['Résumé', 'resume']));
    expect(await axeFindings(page, '.search')).toEqual([]);
    await shots(page, 'search');
    // Keyboard: the first hit is the Tab stop; ↓ moves to the next.
    await results
      .getByRole('button', { name: /Résumé 2026\.txt|old resume\.txt/ })
      .first()
      .focus();
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-hit'))).toBe('1');
    await results.getByRole('button', { name: 'Open the folder Archive' }).click();
    await row('old resume.txt').waitFor();
    expect(await page.getByRole('searchbox', { name: 'Search files' }).inputValue()).toBe('');
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
