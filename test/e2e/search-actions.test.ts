/**
 * Search results with the folder view's actions (issue 29, item 7), in Chromium against a real
 * daemon, signed in as a user: a search's breadcrumb and status bar say it is a search; a result's
 * menu opens by right-click, Shift+F10, the menu key and "⋯" and offers what a file's menu
 * offers in its folder; the result is renamed, moved and shared there (each in its own folder,
 * the results asked for again after each), and "Open containing folder" opens its folder with
 * the file selected. axe-core finds nothing serious. Screenshots of the results and of a
 * result's menu at 1400×900, 800×600 and 390×844, light and dark, English and Czech:
 * test-artifacts/search-{results,menu}-{en,cs}-{desktop,laptop,phone}-{light,dark}.png.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, browserAvailable, ensureRendererBuilt, openSignedIn, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { axeProblems, focusOnBody } from '../helpers/ui-shell.js';

const runUi = browserAvailable();
const PASSWORD = 'correct horse battery';
const SIZES = { desktop: { width: 1400, height: 900 }, laptop: { width: 800, height: 600 }, phone: { width: 390, height: 844 } } as const;

/** What the screenshots wait for, in each language. */
const WORDS = {
  en: { table: 'Results for “resume”', crumb: 'Search results for “resume” in all folders', count: '4 files found' },
  cs: { table: 'Výsledky pro „resume“', crumb: 'Výsledky hledání „resume“ ve všech složkách', count: 'Nalezeny 4 soubory' },
} as const;

interface Entry {
  name: string;
  folder: string | null;
  shared: boolean;
}

describe.skipIf(!runUi)('search results with the folder’s actions (Chromium, real daemon, signed-in user)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  const results = () => page.getByRole('table', { name: 'Results for “resume”' });
  const result = (name: string) =>
    results()
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name, exact: true }) });
  const menu = () => page.getByRole('menu');
  const summary = () => page.locator('.statusbar__summary');
  const filesIn = async (folder: string) =>
    ((await t.api('GET', '/api/folders/files', { username: 'ana', folder })).body as { files: Entry[] }).files;

  async function search(text: string): Promise<void> {
    await page.goto(`${t.url}/files/ana`);
    await page.getByRole('grid', { name: 'Files in ana' }).waitFor();
    await page.getByRole('searchbox', { name: 'Search files' }).fill(text);
    await results().waitFor();
  }

  beforeAll(async () => {
    await ensureRendererBuilt();
    await mkdir(ARTIFACTS_DIR, { recursive: true });
    t = await startTestDaemon();
    expect((await t.api('POST', '/api/user/create', { username: 'ana', email: 'ana@example.com', password: PASSWORD })).status).toBe(201);
    for (const folder of ['Archive', 'Docs', 'Photos', 'Docs/2026']) {
      expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder })).status).toBe(201);
    }
    await upload(t, 'ana', 'resume-notes.txt', 'what to put in it\n');
    await upload(t, 'ana', 'report.txt', 'not a match\n');
    await upload(t, 'ana', 'Résumé 2026.txt', 'curriculum vitae\n', { folder: 'Docs/2026' });
    await upload(t, 'ana', 'old resume.txt', 'an older one\n', { folder: 'Archive' });
    await upload(t, 'ana', 'resume photo.txt', 'a picture, in words\n', { folder: 'Photos' });
    ({ browser, page } = await openSignedIn(t.url, 'ana', PASSWORD, pageErrors));
    await page.getByRole('grid', { name: 'Files in ana' }).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('says it is a search: the breadcrumb names the search and where it looks, the status bar how many it found', async () => {
    await search('resume');
    const crumbs = page.getByRole('navigation', { name: 'Breadcrumb' });
    const here = crumbs.locator('[aria-current="page"]');
    expect(await here.innerText()).toBe('Search results for “resume” in all folders');
    expect(await crumbs.getByRole('button', { name: 'ana' }).count()).toBe(1);
    await expect.poll(() => summary().innerText()).toBe('4 files found');
    // Not the root's "3 folders · 2 files · …" under the results.
    expect(await summary().innerText()).not.toMatch(/folders/);
    expect(await axeProblems(page)).toEqual([]);
  });

  it('opens a result’s menu by right-click, Shift+F10, the menu key and "⋯", with the actions a file has in its folder', async () => {
    // The folder's own menu for a file, to compare with.
    await page.goto(`${t.url}/files/ana/Archive`);
    await page.getByRole('grid', { name: 'Files in ana › Archive' }).getByText('old resume.txt').click({ button: 'right' });
    const inFolder = await menu().getByRole('menuitem').allInnerTexts();
    await page.keyboard.press('Escape');

    await search('resume');
    await result('old resume.txt').click({ button: 'right' });
    expect(await menu().getAttribute('aria-label')).toBe('Actions for old resume.txt');
    expect(await menu().getByRole('menuitem').allInnerTexts()).toEqual([inFolder[0], 'Open containing folder', ...inFolder.slice(1)]);
    expect(inFolder).toEqual(expect.arrayContaining(['Rename', 'Move to…', 'Share', 'Versions…', 'Delete', 'Download']));
    await page.keyboard.press('Escape');
    await menu().waitFor({ state: 'detached' });
    // The focus went back to the result, where the keyboard opens the menu again.
    expect(await page.evaluate(() => document.activeElement?.closest('tr')?.querySelector('th')?.textContent)).toBe('old resume.txt');
    await page.keyboard.press('Shift+F10');
    expect(await menu().getAttribute('aria-label')).toBe('Actions for old resume.txt');
    await page.keyboard.press('Escape');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ContextMenu');
    expect(await menu().getAttribute('aria-label')).toMatch(/^Actions for /);
    await page.keyboard.press('Escape');
    await result('resume photo.txt').getByRole('button', { name: 'More actions for resume photo.txt' }).click();
    expect(await menu().getAttribute('aria-label')).toBe('Actions for resume photo.txt');
    await page.keyboard.press('Escape');
  });

  it('renames, moves and shares a result in its own folder, the results following each', async () => {
    await search('resume');
    // Rename, from the menu: the folder's inline editor, in the result's row.
    await result('old resume.txt').click({ button: 'right' });
    await menu().getByRole('menuitem', { name: 'Rename' }).click();
    const field = page.getByRole('textbox', { name: 'New name for old resume.txt' });
    await field.fill('older resume.txt');
    await field.press('Enter');
    await result('older resume.txt').waitFor();
    expect((await filesIn('Archive')).map((f) => f.name)).toEqual(['older resume.txt']);
    expect(await result('old resume.txt').count()).toBe(0);

    // Move, from the keyboard's menu: out of Archive into Docs.
    await result('older resume.txt')
      .getByRole('button', { name: /^older resume\.txt/ })
      .focus();
    await page.keyboard.press('Shift+F10');
    await menu().getByRole('menuitem', { name: 'Move to…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Move “older resume.txt” to…' });
    // It opens where the file is (Archive): up to the root, then into Docs.
    await dialog.getByRole('navigation', { name: 'Target folder path' }).getByRole('button', { name: 'ana' }).click();
    await dialog.getByRole('button', { name: 'Docs', exact: true }).click();
    await dialog.getByRole('button', { name: 'Move here' }).click();
    await dialog.waitFor({ state: 'detached' });
    await result('older resume.txt').getByRole('button', { name: 'Open the folder Docs' }).waitFor();
    expect((await filesIn('Docs')).map((f) => f.name)).toContain('older resume.txt');
    expect(await filesIn('Archive')).toEqual([]);

    // Share, from "⋯": the file's link, made in Docs.
    await result('older resume.txt').getByRole('button', { name: 'More actions for older resume.txt' }).click();
    await menu().getByRole('menuitem', { name: 'Share' }).click();
    const share = page.getByRole('dialog');
    await share.getByRole('button', { name: 'Done' }).waitFor();
    expect((await filesIn('Docs')).find((f) => f.name === 'older resume.txt')?.shared).toBe(true);
    expect(await axeProblems(page)).toEqual([]);
    await share.getByRole('button', { name: 'Done' }).click();
    await share.waitFor({ state: 'detached' });
    expect(await focusOnBody(page)).toBe(false);
    expect(pageErrors).toEqual([]);
  });

  it('opens a result’s folder with the file selected (Open containing folder)', async () => {
    await search('resume');
    await result('Résumé 2026.txt').click({ button: 'right' });
    await menu().getByRole('menuitem', { name: 'Open containing folder' }).click();
    const grid = page.getByRole('grid', { name: 'Files in ana › Docs/2026' });
    await grid.waitFor();
    expect(new URL(page.url()).pathname).toBe('/files/ana/Docs/2026');
    const row = grid.getByRole('row').filter({ has: page.getByText('Résumé 2026.txt', { exact: true }) });
    await expect.poll(() => row.getAttribute('aria-selected')).toBe('true');
    expect(await page.getByRole('searchbox', { name: 'Search files' }).inputValue()).toBe('');
    // The list has the focus, on the file: Enter previews it.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('grid');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').getByRole('heading', { name: 'Résumé 2026.txt' }).waitFor();
    await page.keyboard.press('Escape');
    expect(pageErrors).toEqual([]);
  });

  it('looks right in English and Czech, light and dark, at three sizes (screenshots), and axe finds nothing', async () => {
    const overflows: string[] = [];
    for (const lang of ['en', 'cs'] as const) {
      const words = WORDS[lang];
      await page.evaluate((code) => localStorage.setItem('nimbus.language', code), lang);
      await page.goto(`${t.url}/search?q=resume`);
      const table = page.getByRole('table', { name: words.table });
      await table.getByRole('rowheader').first().waitFor();
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const [size, viewport] of Object.entries(SIZES)) {
          await page.setViewportSize(viewport);
          await page.locator('.crumbs [aria-current="page"]').getByText(words.crumb).waitFor();
          await expect.poll(() => summary().innerText()).toBe(words.count);
          const overflow = await page.evaluate(() => {
            const scroller = document.querySelector('.search__scroll')!;
            return scroller.scrollWidth - scroller.clientWidth;
          });
          if (overflow > 0) overflows.push(`${lang} ${size}: ${overflow}px`);
          const shot = (name: string) => path.join(ARTIFACTS_DIR, `search-${name}-${lang}-${size}-${scheme}.png`);
          await page.screenshot({ path: shot('results'), animations: 'disabled', caret: 'hide' });
          await table.locator('.search__more-button').first().click();
          await menu().waitFor();
          await page.screenshot({ path: shot('menu'), animations: 'disabled', caret: 'hide' });
          if (size === 'desktop' || size === 'phone') expect(await axeProblems(page)).toEqual([]);
          await page.keyboard.press('Escape');
          await menu().waitFor({ state: 'detached' });
        }
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize(SIZES.desktop);
    await page.evaluate(() => localStorage.removeItem('nimbus.language'));
    // Nothing scrolls sideways, on the phone either.
    expect(overflows).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
