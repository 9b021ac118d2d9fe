/**
 * The move dialog browses the tree and the sidebar holds it (issue 25), in Chromium against a
 * real daemon, signed in as a user: a folder moved through "Move to…" into a folder two levels
 * down (the folder itself greyed in the dialog), the sidebar's tree expanded to it by the
 * keyboard and opened, and a file dragged onto a folder of the tree. Screenshots of the dialog
 * and of the sidebar at 1400×900 and 390×844, light and dark, go to test-artifacts:
 * tree-dialog-*.png, tree-dialog-refused-*.png (the folder itself greyed), tree-sidebar-*.png.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, browserAvailable, ensureRendererBuilt, openSignedIn, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';

const runUi = browserAvailable();
const PASSWORD = 'correct horse battery';
const SIZES = { desktop: { width: 1400, height: 900 }, phone: { width: 390, height: 844 } } as const;

describe.skipIf(!runUi)('the move dialog and the sidebar tree (Chromium, real daemon, signed-in user)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  const grid = () => page.getByRole('grid', { name: /^Files in ana/ });
  const row = (name: string) => grid().getByText(name, { exact: true });
  const here = () => decodeURIComponent(new URL(page.url()).pathname);
  const tree = () => page.getByRole('tree', { name: 'Folders of ana' });
  const folderPaths = async (folder?: string) =>
    (
      (await t.api('GET', '/api/folders', { username: 'ana', ...(folder ? { folder } : {}) })).body as { folders: { path: string }[] }
    ).folders.map((entry) => entry.path);
  const shoot = async (name: string, show: () => Promise<void>) => {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [size, viewport] of Object.entries(SIZES)) {
        await page.setViewportSize(viewport);
        await show();
        await page.screenshot({ path: path.join(ARTIFACTS_DIR, `${name}-${size}-${scheme}.png`), animations: 'disabled', caret: 'hide' });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize(SIZES.desktop);
  };

  beforeAll(async () => {
    await ensureRendererBuilt();
    await mkdir(ARTIFACTS_DIR, { recursive: true });
    t = await startTestDaemon();
    const created = await t.api('POST', '/api/user/create', { username: 'ana', email: 'ana@example.com', password: PASSWORD });
    expect(created.status).toBe(201);
    for (const folder of ['projects/2025/q1', 'projects/archive', 'reports/old', 'music'])
      expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder, parents: 'true' })).status).toBe(201);
    await upload(t, 'ana', 'root.txt', 'at the root\n');
    await upload(t, 'ana', 'summary.txt', 'a report\n', { folder: 'reports' });
    ({ browser, page } = await openSignedIn(t.url, 'ana', PASSWORD, pageErrors));
    await row('root.txt').waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('moves a folder through the dialog into a folder two levels down, browsing to it', async () => {
    await row('reports').click({ button: 'right' });
    await page.getByRole('menu').getByRole('menuitem', { name: 'Move to…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Move “reports” to…' });
    // It opens at the root, where the folder is: the root is refused, the folder itself greyed with why.
    const itself = dialog.getByRole('button', { name: 'reports', exact: true });
    await expect.poll(() => itself.getAttribute('aria-disabled')).toBe('true');
    await expect
      .poll(() => itself.getAttribute('aria-describedby').then((id) => page.locator(`[id="${id}"]`).textContent()))
      .toBe('Being moved');
    const moveHere = dialog.getByRole('button', { name: 'Move here' });
    expect(await moveHere.isDisabled()).toBe(true);
    await shoot('tree-dialog-refused', () => dialog.getByText('Already in ana: open another folder.').waitFor());
    await dialog.getByRole('button', { name: 'projects', exact: true }).click();
    await dialog.getByRole('button', { name: '2025', exact: true }).click();
    await dialog.getByText('Moves into projects/2025.').waitFor();
    await dialog.getByRole('button', { name: 'q1', exact: true }).waitFor();
    await shoot('tree-dialog', () => dialog.getByText('Moves into projects/2025.').waitFor());
    await moveHere.click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => folderPaths('projects/2025')).toEqual(['projects/2025/q1', 'projects/2025/reports']);
    expect(await folderPaths()).not.toContain('reports');
    await expect.poll(() => row('reports').count()).toBe(0);
  });

  it('expands the sidebar tree to the moved folder with the keyboard and opens it from there', async () => {
    await tree().getByRole('treeitem', { name: 'projects' }).waitFor();
    expect(await tree().getByRole('treeitem', { name: 'projects' }).getAttribute('aria-expanded')).toBe('false');
    // A folder without folders has no chevron to expand.
    expect(await tree().getByRole('treeitem', { name: 'music' }).getAttribute('aria-expanded')).toBeNull();
    await tree().getByRole('treeitem', { name: 'projects' }).focus();
    await page.keyboard.press('ArrowRight');
    await tree().getByRole('treeitem', { name: '2025' }).waitFor();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('2025');
    await page.keyboard.press('ArrowRight');
    await tree().getByRole('treeitem', { name: 'reports' }).waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('reports');
    await page.keyboard.press('Enter');
    await expect.poll(here).toBe('/files/ana/projects/2025/reports');
    await row('summary.txt').waitFor();
    expect(await tree().getByRole('treeitem', { name: 'reports' }).getAttribute('aria-current')).toBe('page');

    // A reload lands there with the tree expanded down to it.
    await page.reload();
    await row('summary.txt').waitFor();
    await expect.poll(() => tree().getByRole('treeitem', { name: 'reports' }).getAttribute('aria-selected')).toBe('true');
    await shoot('tree-sidebar', async () => {
      if (page.viewportSize()!.width < 700) {
        const menu = page.getByRole('button', { name: 'Open the menu' });
        if ((await menu.getAttribute('aria-expanded')) !== 'true') await menu.click();
      }
      await tree().getByRole('treeitem', { name: 'reports' }).waitFor();
    });
    // On a phone, a folder opened from the tree closes the drawer.
    // (The screenshots may have left the drawer open on the phone.)
    await page.setViewportSize(SIZES.phone);
    const menu = page.getByRole('button', { name: 'Open the menu' });
    if ((await menu.getAttribute('aria-expanded')) !== 'true') await menu.click();
    await tree().getByRole('treeitem', { name: 'q1' }).click();
    await expect.poll(here).toBe('/files/ana/projects/2025/q1');
    await tree().waitFor({ state: 'hidden' });
    await page.setViewportSize(SIZES.desktop);
  });

  it('moves a file dragged from the list onto a folder of the sidebar tree', async () => {
    await page.goto(`${t.url}/files/ana`);
    await row('root.txt').waitFor();
    await row('root.txt').dragTo(tree().getByRole('treeitem', { name: 'music' }));
    const filesIn = async (folder: string) =>
      ((await t.api('GET', '/api/folders/files', { username: 'ana', folder })).body as { files: { name: string }[] }).files.map(
        (file) => file.name,
      );
    await expect.poll(() => filesIn('music')).toEqual(['root.txt']);
    await expect.poll(() => row('root.txt').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
