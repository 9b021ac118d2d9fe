/**
 * The explorer shows the tree (issue 25): a tree made through the API three levels deep opens
 * level by level by double-click and by Enter, each level lists its subfolders above its files,
 * Back, Forward and a reload land on the same level, the breadcrumb reads the path, and New
 * folder at depth creates inside the open folder, files dropped on a subfolder or a crumb move there,
 * and live changes at depth show. Screenshots of a nested folder at 1400×900 and
 * 390×844, light and dark, go to test-artifacts/tree-*.png.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, browserAvailable, ensureRendererBuilt, openSignedIn, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';

const runUi = browserAvailable();
const PASSWORD = 'correct horse battery';
const SIZES = { desktop: { width: 1400, height: 900 }, phone: { width: 390, height: 844 } } as const;

describe.skipIf(!runUi)('the explorer at depth (Chromium, real daemon, signed-in user)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  const grid = () => page.getByRole('grid', { name: /^Files in ana/ });
  const row = (name: string) => grid().getByText(name, { exact: true });
  const crumbs = () => page.getByRole('navigation', { name: 'Breadcrumb' });
  const here = () => decodeURIComponent(new URL(page.url()).pathname);
  /** The list shows `name` and the breadcrumb reads `trail` (every crumb, root first). */
  const showing = async (name: string, trail: string[]) => {
    await row(name).waitFor();
    await expect.poll(() => crumbs().locator('li').allTextContents()).toEqual(trail);
  };

  beforeAll(async () => {
    await ensureRendererBuilt();
    await mkdir(ARTIFACTS_DIR, { recursive: true });
    t = await startTestDaemon();
    const created = await t.api('POST', '/api/user/create', { username: 'ana', email: 'ana@example.com', password: PASSWORD });
    expect(created.status).toBe(201);
    expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'photos/2024/june', parents: 'true' })).status).toBe(201);
    await upload(t, 'ana', 'root.txt', 'at the root\n');
    await upload(t, 'ana', 'cover.jpg.txt', 'in photos\n', { folder: 'photos' });
    await upload(t, 'ana', 'year.txt', 'in 2024\n', { folder: 'photos/2024' });
    await upload(t, 'ana', 'beach.txt', 'in june, three levels down\n', { folder: 'photos/2024/june' });
    ({ browser, page } = await openSignedIn(t.url, 'ana', PASSWORD, pageErrors));
    await row('root.txt').waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('opens the tree level by level by double-click, subfolders above files; Back, Forward and reload stay on the level', async () => {
    await row('photos').dblclick();
    await showing('cover.jpg.txt', ['ana', 'photos']);
    // The subfolder is listed, with the count of its subtree, above the files.
    await row('2024').waitFor();
    const names = await grid().getByRole('row').allTextContents();
    const at = (name: string) => names.findIndex((text) => text.includes(name));
    expect(at('2024')).toBeGreaterThan(-1);
    expect(at('2024')).toBeLessThan(at('cover.jpg.txt'));
    // Two files and one folder below it.
    expect(names[at('2024')]).toContain('3 items');
    expect(here()).toBe('/files/ana/photos');
    await row('2024').dblclick();
    await showing('year.txt', ['ana', 'photos', '2024']);
    expect(here()).toBe('/files/ana/photos/2024');
    await row('june').dblclick();
    await showing('beach.txt', ['ana', 'photos', '2024', 'june']);
    expect(here()).toBe('/files/ana/photos/2024/june');
    await page.goBack();
    await showing('year.txt', ['ana', 'photos', '2024']);
    await page.goForward();
    await showing('beach.txt', ['ana', 'photos', '2024', 'june']);
    await page.reload();
    await showing('beach.txt', ['ana', 'photos', '2024', 'june']);
    // A crumb in the middle goes up to its level.
    await crumbs().getByRole('button', { name: 'photos' }).click();
    await showing('cover.jpg.txt', ['ana', 'photos']);
    expect(here()).toBe('/files/ana/photos');
  });

  it('opens the tree level by level with Enter and goes up with Backspace', async () => {
    await page.goto(`${t.url}/files/ana`);
    await row('photos').click();
    await page.keyboard.press('Enter');
    await showing('cover.jpg.txt', ['ana', 'photos']);
    await row('2024').click();
    await page.keyboard.press('Enter');
    await showing('year.txt', ['ana', 'photos', '2024']);
    await row('june').click();
    await page.keyboard.press('Enter');
    await showing('beach.txt', ['ana', 'photos', '2024', 'june']);
    await row('beach.txt').click();
    await page.keyboard.press('Backspace');
    await showing('year.txt', ['ana', 'photos', '2024']);
    expect(here()).toBe('/files/ana/photos/2024');
  });

  it('creates a new folder inside the open folder at depth', async () => {
    await page.goto(`${t.url}/files/ana/photos/2024/june`);
    await showing('beach.txt', ['ana', 'photos', '2024', 'june']);
    await page.getByRole('button', { name: 'New folder' }).click();
    await page.getByLabel('Folder name').fill('sunsets');
    await page.getByRole('button', { name: 'Create folder' }).click();
    await row('sunsets').waitFor();
    const listed = await t.api('GET', '/api/folders', { username: 'ana', folder: 'photos/2024/june' });
    expect(listed.status).toBe(200);
    expect((listed.body as { folders: { path: string }[] }).folders.map((folder) => folder.path)).toEqual(['photos/2024/june/sunsets']);
    await row('sunsets').dblclick();
    await crumbs().getByText('sunsets').waitFor();
    expect(here()).toBe('/files/ana/photos/2024/june/sunsets');
    await page.getByRole('heading', { name: /empty/i }).waitFor();
  });

  it('moves a file dropped onto a subfolder row or onto a crumb above into that folder', async () => {
    await upload(t, 'ana', 'drag-me.txt', 'moved by dragging\n', { folder: 'photos/2024' });
    const filesIn = async (folder: string) =>
      ((await t.api('GET', '/api/folders/files', { username: 'ana', folder })).body as { files: { name: string }[] }).files.map(
        (file) => file.name,
      );
    await page.goto(`${t.url}/files/ana/photos/2024`);
    await showing('drag-me.txt', ['ana', 'photos', '2024']);
    await row('drag-me.txt').dragTo(row('june'));
    await expect.poll(() => filesIn('photos/2024/june')).toContain('drag-me.txt');
    await row('june').dblclick();
    await showing('drag-me.txt', ['ana', 'photos', '2024', 'june']);
    await row('drag-me.txt').dragTo(crumbs().getByRole('button', { name: 'photos' }));
    await expect.poll(() => filesIn('photos')).toContain('drag-me.txt');
    expect(await filesIn('photos/2024/june')).not.toContain('drag-me.txt');
  });

  it('follows live changes at depth: a folder and a file made elsewhere appear, an open folder removed on disk leaves for the root', async () => {
    await page.goto(`${t.url}/files/ana/photos/2024`);
    await showing('year.txt', ['ana', 'photos', '2024']);
    expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'photos/2024/live' })).status).toBe(201);
    await row('live').waitFor();
    await upload(t, 'ana', 'late.txt', 'uploaded elsewhere\n', { folder: 'photos/2024' });
    await row('late.txt').waitFor();
    await row('live').dblclick();
    await crumbs().getByText('live').waitFor();
    await rm(path.join(t.storageDir, 'ana', 'photos', '2024', 'live'), { recursive: true });
    await expect.poll(here).toBe('/files/ana');
    await row('root.txt').waitFor();
  });

  it('shows a nested folder at 1400×900 and 390×844, light and dark', async () => {
    await page.goto(`${t.url}/files/ana/photos/2024`);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [size, viewport] of Object.entries(SIZES)) {
        await page.setViewportSize(viewport);
        await showing('june', ['ana', 'photos', '2024']);
        await page.screenshot({
          path: path.join(ARTIFACTS_DIR, `tree-folder-${size}-${scheme}.png`),
          animations: 'disabled',
          caret: 'hide',
        });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize(SIZES.desktop);
    expect(pageErrors).toEqual([]);
  });
});
