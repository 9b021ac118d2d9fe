/**
 * The explorer in the web UI (issue 13), end to end: the built renderer served by a real daemon,
 * driven in Debian's Chromium, signed in as a user. Moves by the context menu and by dragging
 * onto a folder and onto the breadcrumb, copies, deletes several files and brings them back
 * with one Undo, downloads through plain links (the browser's own download of the daemon's
 * URL, never a blob: URL) and a zip of the selection, opens the menu from the keyboard and from
 * a row's "⋯" button at phone size, and keeps the grid view across a reload. Screenshots at
 * 1400×900 and 390×844 go to test-artifacts/explorer-*.png.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, browserAvailable, ensureRendererBuilt, openSignedIn, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { axeFindings } from '../helpers/axe.js';

const runUi = browserAvailable();
const PASSWORD = 'correct horse battery';
const SIZES = { desktop: { width: 1400, height: 900 }, phone: { width: 390, height: 844 } } as const;

/** axe-core's serious and critical findings on the page as it is now (rule id: target). */
// The explorer's own parts: the list or grid with its toolbar, and what it opens over them.
const axeProblems = (page: Page) => axeFindings(page, '.browser', '[role="menu"]', '[role="dialog"]');

async function shots(page: Page, name: string): Promise<void> {
  for (const [size, viewport] of Object.entries(SIZES)) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, `explorer-${name}-${size}.png`), animations: 'disabled', caret: 'hide' });
  }
  await page.setViewportSize(SIZES.desktop);
}

describe.skipIf(!runUi)('the explorer (Chromium, real daemon, signed-in user)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  const grid = () => page.getByRole('grid', { name: /^Files in ana/ });
  const row = (name: string) => grid().getByText(name, { exact: true });
  const names = async (folder?: string): Promise<string[]> => {
    const res = folder
      ? await t.api('GET', '/api/folders/files', { username: 'ana', folder })
      : await t.api('GET', '/api/files', { username: 'ana' });
    return (res.body as { files: { name: string }[] }).files.map((file) => file.name).sort();
  };
  const menu = () => page.getByRole('menu');

  beforeAll(async () => {
    await ensureRendererBuilt();
    await mkdir(ARTIFACTS_DIR, { recursive: true });
    t = await startTestDaemon();
    expect((await t.api('POST', '/api/user/create', { username: 'ana', email: 'ana@example.com', password: PASSWORD })).status).toBe(201);
    for (const folder of ['Docs', 'Photos'])
      expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder })).status).toBe(201);
    for (const name of ['a.txt', 'b.txt', 'c.txt', 'drag-me.txt', 'move-me.txt']) await upload(t, 'ana', name, `${name} says hello\n`);
    const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#2a6fd6' } })
      .png()
      .toBuffer();
    await upload(t, 'ana', 'lake.png', png);
    ({ browser, page } = await openSignedIn(t.url, 'ana', PASSWORD, pageErrors));
    await row('a.txt').waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('downloads a file through a plain link to the daemon (the browser streams it; no blob: URL)', async () => {
    await row('a.txt').click({ button: 'right' });
    const link = menu().getByRole('menuitem', { name: 'Download', exact: true });
    const href = await link.getAttribute('href');
    expect(href).toBe(`${t.url}/api/files/download?username=ana&file=a.txt`);
    expect(await axeProblems(page)).toEqual([]);
    // (A resize closes the menu, so this one is at the desktop size only; the phone's is below.)
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'explorer-menu-desktop.png'), animations: 'disabled', caret: 'hide' });
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.url()).toBe(href);
    expect(download.suggestedFilename()).toBe('a.txt');
    expect(await readFile((await download.path())!, 'utf8')).toBe('a.txt says hello\n');
    // The toolbar's button does the same.
    const [again] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download', exact: true }).click()]);
    expect(again.url()).not.toMatch(/^blob:/);
    expect(again.url()).toBe(href);
  });

  it('opens the menu with Shift+F10, walks it with the arrows, and Escape gives the focus back to the list', async () => {
    await row('b.txt').click();
    await page.keyboard.press('Shift+F10');
    await menu().waitFor();
    expect(await menu().getAttribute('aria-label')).toBe('Actions for b.txt');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Open');
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Download');
    await page.keyboard.press('Escape');
    await menu().waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('grid');
  });

  it('moves a file with "Move to…" in its context menu', async () => {
    await row('move-me.txt').click({ button: 'right' });
    await menu().getByRole('menuitem', { name: 'Move to…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Move “move-me.txt” to…' });
    await dialog.getByRole('button', { name: 'Docs', exact: true }).click();
    await dialog.getByText('Moves into Docs.').waitFor();
    await shots(page, 'move-dialog');
    expect(await axeProblems(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Move here' }).click();
    await expect.poll(() => names('Docs')).toContain('move-me.txt');
    expect(await names()).not.toContain('move-me.txt');
    await expect.poll(() => row('move-me.txt').count()).toBe(0);
  });

  it('moves a file by dragging it onto a folder, and back by dragging it onto the breadcrumb', async () => {
    await row('drag-me.txt').dragTo(row('Photos'));
    await expect.poll(() => names('Photos')).toEqual(['drag-me.txt']);
    await expect.poll(() => row('drag-me.txt').count()).toBe(0);
    await row('Photos').dblclick();
    await row('drag-me.txt').waitFor();
    await row('drag-me.txt').dragTo(page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('button', { name: 'ana' }));
    await expect.poll(() => names()).toContain('drag-me.txt');
    expect(await names('Photos')).toEqual([]);
    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('button', { name: 'ana' }).click();
    await row('drag-me.txt').waitFor();
  });

  it('copies a file with "Copy to…"', async () => {
    await row('b.txt').click({ button: 'right' });
    await menu().getByRole('menuitem', { name: 'Copy to…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Copy “b.txt” to…' });
    await dialog.getByRole('button', { name: 'Photos', exact: true }).click();
    await dialog.getByText('Copies into Photos.').waitFor();
    await dialog.getByRole('button', { name: 'Copy here' }).click();
    await expect.poll(() => names('Photos')).toEqual(['b.txt']);
    expect(await names()).toContain('b.txt');
  });

  it('renames a folder from its context menu (folders.rename), inline', async () => {
    await row('Docs').click({ button: 'right' });
    await menu().getByRole('menuitem', { name: 'Rename' }).click();
    const input = page.getByRole('textbox', { name: 'New name for Docs' });
    await input.fill('Papers');
    await input.press('Enter');
    await row('Papers').waitFor();
    const folders = await t.api('GET', '/api/folders', { username: 'ana' });
    expect((folders.body as { folders: { name: string }[] }).folders.map((folder) => folder.name).sort()).toEqual(['Papers', 'Photos']);
    expect(await names('Papers')).toEqual(['move-me.txt']);
  });

  it('downloads a selection as one zip, through a plain link', async () => {
    await row('b.txt').click();
    await row('c.txt').click({ modifiers: ['Control'] });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download as zip', exact: true }).click(),
    ]);
    const url = new URL(download.url());
    expect(url.origin + url.pathname).toBe(`${t.url}/api/folders/download`);
    expect(url.searchParams.get('files')).toBe('b.txt/c.txt');
    expect(download.suggestedFilename()).toBe('files.zip');
    const zip = await readFile((await download.path())!);
    expect(zip.subarray(0, 2).toString()).toBe('PK');
    expect(zip.includes('b.txt')).toBe(true);
    expect(zip.includes('c.txt')).toBe(true);
  });

  it('deletes several files to the trash; one Undo brings them all back', async () => {
    await row('a.txt').click();
    await row('c.txt').click({ modifiers: ['Control'] });
    await page.keyboard.press('Delete');
    const confirm = page.getByRole('dialog', { name: 'Delete 2 items?' });
    expect(await confirm.textContent()).toContain('trash');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(async () => (await names()).filter((name) => name === 'a.txt' || name === 'c.txt')).toEqual([]);
    const toast = page.locator('.toast').filter({ hasText: 'Moved 2 items to the trash' });
    await toast.getByRole('button', { name: 'Undo' }).waitFor();
    await shots(page, 'undo-toast');
    await toast.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => names()).toEqual(expect.arrayContaining(['a.txt', 'c.txt']));
    await row('a.txt').waitFor();
    await row('c.txt').waitFor();
    const trash = await t.api('GET', '/api/trash', { username: 'ana' });
    expect((trash.body as { items: unknown[] }).items).toEqual([]);
  });

  it('shows a grid with thumbnails, kept after a reload', async () => {
    await page.getByRole('button', { name: 'Grid view' }).click();
    const thumb = grid().locator('img');
    await expect.poll(() => thumb.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
    expect(await thumb.getAttribute('src')).toContain('/api/files/thumbnail?');
    await shots(page, 'grid');
    expect(await axeProblems(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    await row('lake.png').click();
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'explorer-grid-dark-desktop.png'), animations: 'disabled', caret: 'hide' });
    expect(await axeProblems(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.reload();
    await row('lake.png').waitFor();
    expect(await page.getByRole('button', { name: 'Grid view' }).getAttribute('aria-pressed')).toBe('true');
    await page.getByRole('button', { name: 'List view' }).click();
    await shots(page, 'list');
  });

  it('previews the active file with Space; Escape closes it and the focus is back on the list', async () => {
    await row('lake.png').click();
    await page.keyboard.press('Space');
    const viewer = page.getByRole('dialog');
    await viewer.getByRole('heading', { name: 'lake.png' }).waitFor();
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('grid');
  });

  it('at 390×844 has no horizontal scroll, and a row’s "⋯" button opens its menu', async () => {
    await page.setViewportSize(SIZES.phone);
    await row('a.txt').waitFor();
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth <= window.innerWidth)).toBe(true);
    const more = page.getByRole('button', { name: 'More actions for a.txt' });
    const box = (await more.boundingBox())!;
    expect(box.width).toBeGreaterThanOrEqual(44);
    expect(box.height).toBeGreaterThanOrEqual(44);
    await more.click();
    await menu().waitFor();
    expect(await menu().getAttribute('aria-label')).toBe('Actions for a.txt');
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'explorer-menu-touch-phone.png'), animations: 'disabled', caret: 'hide' });
    await page.keyboard.press('Escape');
    // At 800×600 (beside the sidebar) every column header is in view, not cut off.
    await page.setViewportSize({ width: 800, height: 600 });
    const list = (await grid().boundingBox())!;
    for (const name of ['Name', 'Size', 'Modified', 'Sharing']) {
      const header = (await grid().getByRole('columnheader', { name }).getByRole('button').boundingBox())!;
      expect(header.x, name).toBeGreaterThanOrEqual(list.x);
      expect(header.x + header.width, name).toBeLessThanOrEqual(list.x + list.width);
    }
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'explorer-list-800x600.png'), animations: 'disabled', caret: 'hide' });
    await page.setViewportSize(SIZES.desktop);
    expect(pageErrors).toEqual([]);
  });
});
