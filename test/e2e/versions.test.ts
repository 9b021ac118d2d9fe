/**
 * A file's versions from the explorer (issue 27, docs/versions.md), in Chromium against a real
 * daemon, signed in as a user: a text file uploaded through the explorer, then replaced by
 * uploading it again and choosing "Replace" when asked about the taken name; "Versions…" in the toolbar lists the
 * current content and the replaced one, whose Download gives the earlier bytes; Restore asks,
 * then makes the earlier content the file's again: the API and the explorer's preview read it,
 * and the content it replaced is now a version. Screenshots of the panel (with versions, asking
 * before a restore, and empty) at 1400×900 and 390×844, light and dark, in English and Czech, go
 * to NIMBUS_SHOTS_DIR (else /tmp/versions-shots): versions{,-confirm,-empty}-{en,cs}-{desktop,phone}-{light,dark}.png.
 */
import { mkdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, ensureRendererBuilt, openSignedIn, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { axeProblems } from '../helpers/ui-shell.js';

const runUi = browserAvailable();
const PASSWORD = 'correct horse battery';
const FIRST = 'the first draft\n';
const SECOND = 'the second draft, which replaced the first\n';
const SHOTS = process.env.NIMBUS_SHOTS_DIR ?? path.join(os.tmpdir(), 'versions-shots');
const SIZES = { desktop: { width: 1400, height: 900 }, phone: { width: 390, height: 844 } } as const;

/** The words the journey clicks by, in the two languages of the screenshots. */
const WORDS = {
  en: { files: 'Files in ana', versions: 'Versions…', title: (name: string) => `Versions of “${name}”`, restore: /^Restore the version/ },
  cs: { files: 'Soubory v ana', versions: 'Verze…', title: (name: string) => `Verze souboru „${name}“`, restore: /^Obnovit verzi/ },
} as const;

interface Version {
  id: string;
  size: number;
  keptAt: string;
}

describe.skipIf(!runUi)('a file’s versions in the explorer (Chromium, real daemon, signed-in user)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  const grid = () => page.getByRole('grid', { name: /^Files in ana/ });
  const uploads = () => page.getByRole('region', { name: 'Uploads' });
  const panel = () => page.getByRole('dialog', { name: 'Versions of “notes.txt”' });
  const items = () => panel().getByRole('list', { name: 'Versions of notes.txt' }).getByRole('listitem');
  const content = async () => (await t.api('GET', '/api/files/download', { username: 'ana', file: 'notes.txt' })).text;
  const versions = async (file = 'notes.txt') =>
    (await t.api('GET', '/api/files/versions', { username: 'ana', file })).body.versions as Version[];
  const shoot = async (name: string, show: () => Promise<void>) => {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [size, viewport] of Object.entries(SIZES)) {
        await page.setViewportSize(viewport);
        await show();
        await page.screenshot({ path: path.join(SHOTS, `${name}-${size}-${scheme}.png`), animations: 'disabled', caret: 'hide' });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize(SIZES.desktop);
  };
  /** How far the open dialog's content reaches past its width (0: nothing scrolls sideways). */
  const dialogOverflow = () =>
    page.evaluate(() => {
      const dialogs = [...document.querySelectorAll('.dialog')];
      return Math.max(...dialogs.map((d) => d.scrollWidth - d.clientWidth), document.documentElement.scrollWidth - window.innerWidth);
    });

  beforeAll(async () => {
    await ensureRendererBuilt();
    await mkdir(SHOTS, { recursive: true });
    t = await startTestDaemon();
    expect((await t.api('POST', '/api/user/create', { username: 'ana', email: 'ana@example.com', password: PASSWORD })).status).toBe(201);
    ({ browser, page } = await openSignedIn(t.url, 'ana', PASSWORD, pageErrors));
    page.on('console', (message) => {
      // A refused request logs "Failed to load resource" (the first upload over the name is a 409); anything else is a fault.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(message.text());
    });
    await page.getByText('No files yet', { exact: true }).waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('uploads a text file, then replaces it by uploading it again and choosing Replace', async () => {
    const choose = page.getByLabel('Choose files to upload');
    await choose.setInputFiles([{ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from(FIRST) }]);
    await grid().getByText('notes.txt', { exact: true }).waitFor();
    await expect.poll(content).toBe(FIRST);
    await uploads().getByRole('button', { name: 'Clear' }).click();
    expect(await versions()).toEqual([]);

    await choose.setInputFiles([{ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from(SECOND) }]);
    // The taken name is asked about first (issue 29, item 8).
    await page.getByRole('dialog', { name: '“notes.txt” is already in ana' }).getByRole('button', { name: 'Replace' }).click();
    await expect.poll(content).toBe(SECOND);
    await uploads().getByRole('button', { name: 'Clear' }).click();
    // What the upload replaced is kept.
    expect((await versions()).map((v) => v.size)).toEqual([Buffer.byteLength(FIRST)]);
  });

  it('lists the current content and the replaced one in Versions…, whose Download gives the earlier bytes', async () => {
    await grid().getByText('notes.txt', { exact: true }).click();
    await page.getByRole('button', { name: 'Versions…' }).click();
    await expect.poll(() => items().count()).toBe(2);
    expect(await items().nth(0).textContent()).toContain('Current');
    expect(await items().nth(0).textContent()).toContain(`${Buffer.byteLength(SECOND)} B · modified`);
    expect(await items().nth(1).textContent()).toContain(`${Buffer.byteLength(FIRST)} B`);
    // The date says when it was replaced (today), and the whole date on hover.
    const when = items().nth(1).locator('.versions__when');
    expect(await when.textContent()).toMatch(/^Today, /);
    expect(await when.getAttribute('title')).toMatch(/\d{4}/);
    expect(await axeProblems(page)).toEqual([]);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      items()
        .nth(1)
        .getByRole('link', { name: /^Download the version from/ })
        .click(),
    ]);
    expect(download.suggestedFilename()).toBe('notes.txt');
    expect(await readFile((await download.path())!, 'utf8')).toBe(FIRST);
  });

  it('restores the earlier version after asking: the API and the preview read it, and the replaced content is a version', async () => {
    const [earlier] = await versions();
    await items().nth(1).getByRole('button', { name: WORDS.en.restore }).click();
    const ask = page.getByRole('dialog', { name: /^Restore the version from .+\?$/ });
    expect(await ask.textContent()).toContain('The current content is kept as a version.');
    await ask.getByRole('button', { name: 'Restore', exact: true }).click();
    await ask.waitFor({ state: 'detached' });
    await page.getByRole('status').filter({ hasText: '“notes.txt” is back to the version from' }).waitFor();

    // Through the API: the earlier content is the file's; the content it replaced is the newest version, and the restored one stays.
    expect(await content()).toBe(FIRST);
    const now = await versions();
    expect(now.map((v) => v.size)).toEqual([Buffer.byteLength(SECOND), Buffer.byteLength(FIRST)]);
    expect(now[1].id).toBe(earlier.id);
    const replaced = await t.api('GET', '/api/files/versions/download', { username: 'ana', file: 'notes.txt', id: now[0].id });
    expect(replaced.text).toBe(SECOND);

    // In the panel: the current content is the earlier one, and the replaced one is listed first.
    await expect.poll(() => items().count()).toBe(3);
    expect(await items().nth(0).textContent()).toContain(`${Buffer.byteLength(FIRST)} B · modified`);
    expect(await items().nth(1).textContent()).toContain(`${Buffer.byteLength(SECOND)} B`);
    await panel().getByRole('button', { name: 'Done' }).click();
    await panel().waitFor({ state: 'detached' });

    // In the explorer's preview.
    await grid().getByText('notes.txt', { exact: true }).dblclick();
    const text = page.getByRole('region', { name: 'Text of notes.txt' });
    await expect.poll(() => text.locator('.preview__lines').textContent()).toBe(FIRST);
    await page.getByRole('button', { name: 'Close preview' }).click();
    expect(pageErrors).toEqual([]);
  });

  it('looks right in English and Czech, light and dark, on a desktop and a phone (screenshots)', async () => {
    await upload(t, 'ana', 'fresh.txt', 'never replaced\n');
    const overflows: number[] = [];
    for (const lang of ['en', 'cs'] as const) {
      const words = WORDS[lang];
      await page.evaluate((code) => localStorage.setItem('nimbus.language', code), lang);
      await page.goto(`${t.url}/files/ana`);
      const list = page.getByRole('grid', { name: words.files });
      const open = async (name: string) => {
        await list.getByText(name, { exact: true }).click();
        await page.getByRole('button', { name: words.versions }).click();
        return page.getByRole('dialog', { name: words.title(name) });
      };

      const dialog = await open('notes.txt');
      await shoot(`versions-${lang}`, async () => {
        await dialog.getByRole('listitem').nth(2).waitFor();
        overflows.push(await dialogOverflow());
      });
      await dialog.getByRole('listitem').nth(2).getByRole('button', { name: words.restore }).click();
      await shoot(`versions-confirm-${lang}`, async () => {
        await page.locator('[data-confirm]').waitFor();
        overflows.push(await dialogOverflow());
      });
      await page.keyboard.press('Escape');
      await page.locator('[data-confirm]').waitFor({ state: 'detached' });
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      const empty = await open('fresh.txt');
      await shoot(`versions-empty-${lang}`, async () => {
        await empty.locator('.versions__empty').waitFor();
        overflows.push(await dialogOverflow());
      });
      await page.keyboard.press('Escape');
      await empty.waitFor({ state: 'detached' });
    }
    await page.evaluate(() => localStorage.removeItem('nimbus.language'));
    // Nothing scrolls sideways, on the phone either; the restore asked was not made.
    expect(overflows.every((overflow) => overflow <= 0)).toBe(true);
    expect(await content()).toBe(FIRST);
    expect(await versions('fresh.txt')).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
