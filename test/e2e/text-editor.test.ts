/**
 * Editing a text file in place (issue 29, item 9), in Chromium against a real daemon, signed in
 * as a user: "Edit" in a Markdown file's menu opens CodeMirror with the Markdown highlighted;
 * typing and Ctrl+S write the text as the file's new content (its CRLF line endings kept) and
 * the old content is a version; a change made on the daemon meanwhile makes the save refuse,
 * keeping the typed text, which "Save as a copy" keeps beside the file; Escape with changes
 * asks Save / Discard / Cancel; the previewer has an Edit button; a file over the size limit
 * says why it is not edited; the labels are Czech in Czech. Screenshots of the editor and of
 * its question at 1400×900, 800×600 and 390×844, light and dark, English and Czech, go to
 * NIMBUS_SHOTS_DIR (else /tmp/text-editor-shots); axe-core checks each.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, browserAvailable, ensureRendererBuilt, openSignedIn, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { axeFindings } from '../helpers/axe.js';
import { axeProblems } from '../helpers/ui-shell.js';

const runUi = browserAvailable();
const PASSWORD = 'correct horse battery';
const ORIGINAL = '# Notes\r\n\r\nSome *text* to keep.\r\n';
const SHOTS = path.join(ARTIFACTS_DIR, 'text-editor');
const SIZES = { desktop: { width: 1400, height: 900 }, small: { width: 800, height: 600 }, phone: { width: 390, height: 844 } } as const;

/**
 * axe-core's findings once the page is still: the editor's cursor blinks for as long as it has
 * focus (an endless animation, which axeProblems would wait for), so that blink is stopped first.
 */
async function axeOf(page: Page, ...include: string[]): Promise<string[]> {
  await page.evaluate(() => {
    for (const animation of document.getAnimations()) if (animation.effect?.getTiming().iterations === Infinity) animation.cancel();
  });
  return include.length > 0 ? axeFindings(page, ...include) : axeProblems(page);
}

const WORDS = {
  en: { files: 'Files in ana', edit: 'Edit', title: 'Editing “notes.md”', save: 'Save', ask: 'Save the changes to “notes.md”?' },
  cs: { files: 'Soubory v ana', edit: 'Upravit', title: 'Úprava „notes.md“', save: 'Uložit', ask: 'Uložit změny v „notes.md“?' },
} as const;

interface Version {
  id: string;
  size: number;
}

describe.skipIf(!runUi)('editing a text file in place (Chromium, real daemon, signed-in user)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  const row = (name: string, words: { files: string } = WORDS.en) =>
    page.getByRole('grid', { name: new RegExp(`^${words.files}`) }).getByText(name, { exact: true });
  const editor = (title: string = WORDS.en.title) => page.getByRole('dialog', { name: title });
  const text = () => page.getByRole('textbox', { name: 'Text of notes.md' });
  const content = async (file = 'notes.md') => (await t.api('GET', '/api/files/download', { username: 'ana', file })).text;
  const versions = async () =>
    (await t.api('GET', '/api/files/versions', { username: 'ana', file: 'notes.md' })).body.versions as Version[];
  const status = () => page.locator('.text-editor__status');
  const openFromMenu = async (words: (typeof WORDS)['en' | 'cs'] = WORDS.en) => {
    await row('notes.md', words).click({ button: 'right' });
    await page.getByRole('menuitem', { name: words.edit, exact: true }).click();
    await editor(words.title).locator('.cm-content').waitFor();
  };
  const typeAtEnd = async (typed: string) => {
    await page.locator('.text-editor .cm-content').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(typed);
  };

  beforeAll(async () => {
    await ensureRendererBuilt();
    await mkdir(SHOTS, { recursive: true });
    t = await startTestDaemon();
    expect((await t.api('POST', '/api/user/create', { username: 'ana', email: 'ana@example.com', password: PASSWORD })).status).toBe(201);
    await upload(t, 'ana', 'notes.md', ORIGINAL);
    await upload(t, 'ana', 'huge.txt', Buffer.alloc(5 * 1024 * 1024 + 1, 'a'));
    ({ browser, page } = await openSignedIn(t.url, 'ana', PASSWORD, pageErrors));
    await row('notes.md').waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('opens notes.md from its menu with the Markdown highlighted; Ctrl+S saves, keeping CRLF, and the old content is a version', async () => {
    await openFromMenu();
    // The heading is a highlighted token (@lezer/highlight's classes).
    await editor().locator('.cm-content .tok-heading').first().waitFor();
    expect(await editor().locator('.cm-lineNumbers').textContent()).toContain('3');
    expect(await status().textContent()).toBe('No changes');
    await typeAtEnd('A new line.');
    await expect.poll(() => status().textContent()).toBe('Unsaved changes');
    await page.keyboard.press('Control+s');
    await expect.poll(() => status().textContent()).toBe('Saved. The earlier content is kept as a version.');
    expect(await content()).toBe(`${ORIGINAL}A new line.`);
    const kept = await versions();
    expect(kept.map((version) => version.size)).toEqual([Buffer.byteLength(ORIGINAL)]);
    const old = await t.api('GET', '/api/files/versions/download', { username: 'ana', file: 'notes.md', id: kept[0].id });
    expect(old.text).toBe(ORIGINAL);
    expect(await axeOf(page)).toEqual([]);
    // Saved: closing asks nothing.
    await page.keyboard.press('Escape');
    await editor().waitFor({ state: 'detached' });
  });

  it('refuses to save over a change made on the daemon meanwhile, keeps the typed text, and saves it as a copy', async () => {
    await openFromMenu();
    await upload(t, 'ana', 'notes.md', 'changed elsewhere\n', { overwrite: 'true' });
    await typeAtEnd(' Typed here.');
    await page.keyboard.press('Control+s');
    const problem = editor().getByRole('alert');
    await problem.filter({ hasText: '“notes.md” changed since you opened it: reload it, or save your text as a copy.' }).waitFor();
    expect(await content()).toBe('changed elsewhere\n');
    expect(await text().textContent()).toContain('A new line. Typed here.');
    expect(await axeOf(page)).toEqual([]);

    await problem.getByRole('button', { name: 'Save as a copy' }).click();
    await expect.poll(() => status().textContent()).toBe('Saved as “notes (copy).md”.');
    expect(await content('notes (copy).md')).toBe(`${ORIGINAL}A new line. Typed here.`);
    // Reload drops the typed text for the daemon's.
    await problem.getByRole('button', { name: 'Reload (drop my changes)' }).click();
    await expect.poll(() => text().textContent()).toBe('changed elsewhere');
    await page.keyboard.press('Escape');
    await editor().waitFor({ state: 'detached' });
  });

  it('asks before closing with changes: Cancel keeps editing, Discard closes and writes nothing', async () => {
    await openFromMenu();
    await typeAtEnd('unsaved');
    await page.keyboard.press('Escape');
    const ask = page.getByRole('alertdialog', { name: WORDS.en.ask });
    await ask.waitFor();
    expect(await axeOf(page)).toEqual([]);
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await ask.waitFor({ state: 'detached' });
    expect(await text().textContent()).toContain('unsaved');
    await editor().getByRole('button', { name: 'Close the editor' }).click();
    await ask.getByRole('button', { name: 'Discard' }).click();
    await editor().waitFor({ state: 'detached' });
    expect(await content()).toBe('changed elsewhere\n');
  });

  it('has an Edit button in the previewer; Escape there closes the editor, not the preview', async () => {
    await row('notes.md').dblclick();
    const preview = page.getByRole('dialog', { name: 'notes.md' });
    await preview.getByRole('button', { name: 'Edit', exact: true }).click();
    await editor().locator('.cm-content').waitFor();
    await page.keyboard.press('Escape');
    await editor().waitFor({ state: 'detached' });
    expect(await preview.isVisible()).toBe(true);
    await preview.getByRole('button', { name: 'Close preview' }).click();
  });

  it('says why a file over the size limit is not edited', async () => {
    await row('huge.txt').click({ button: 'right' });
    await page.getByRole('menuitem', { name: /^Edit \(over 5 MiB: too large\)$/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Editing “huge.txt”' });
    await dialog.getByText(/^This file is 5(\.0)? MiB: the editor opens files up to 5(\.0)? MiB\./).waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(pageErrors).toEqual([]);
  });

  // Twelve screenshots, each checked by axe-core: more work than one step, so a budget of its own.
  it.each(['en', 'cs'] as const)(
    'looks right in %s, light and dark, at three sizes (screenshots)',
    async (lang) => {
      const words = WORDS[lang];
      await page.evaluate((code) => localStorage.setItem('nimbus.language', code), lang);
      await page.goto(`${t.url}/files/ana`);
      await openFromMenu(words);
      await editor(words.title).getByRole('button', { name: words.save, exact: true }).waitFor();
      await typeAtEnd('\n## Více\n\nSome `code` and **bold**.');
      // The refusal's bar is in the pictures too (its sentence is the longest).
      await upload(t, 'ana', 'notes.md', `changed in ${lang}\n`, { overwrite: 'true' });
      await page.keyboard.press('Control+s');
      await shoot(`editor-${lang}`, () => editor(words.title).getByRole('alert').waitFor());
      await page.keyboard.press('Escape');
      const ask = page.getByRole('alertdialog', { name: words.ask });
      await shoot(`editor-ask-${lang}`, () => ask.waitFor());
      await ask.getByRole('button', { name: lang === 'en' ? 'Discard' : 'Zahodit' }).click();
      await editor(words.title).waitFor({ state: 'detached' });
      // The previewer's Edit button, beside Download.
      await row('notes.md', words).dblclick();
      const edit = page.getByRole('dialog', { name: 'notes.md' }).getByRole('button', { name: words.edit, exact: true });
      // axe-core on the whole previewer, its text view and line numbers too.
      await shoot(`preview-${lang}`, () => edit.waitFor());
      await page.keyboard.press('Escape');
      await page.evaluate(() => localStorage.removeItem('nimbus.language'));
      expect(pageErrors).toEqual([]);
    },
    120_000,
  );

  async function shoot(name: string, ready: () => Promise<unknown>, ...axeOn: string[]): Promise<void> {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [size, viewport] of Object.entries(SIZES)) {
        await page.setViewportSize(viewport);
        await ready();
        expect(await axeOf(page, ...axeOn)).toEqual([]);
        await page.screenshot({ path: path.join(SHOTS, `${name}-${size}-${scheme}.png`), animations: 'disabled', caret: 'hide' });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize(SIZES.desktop);
  }
});
