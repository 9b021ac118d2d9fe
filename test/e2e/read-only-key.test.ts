/**
 * A `read` key in the explorer (auth.me's `canWrite`), end to end: the built renderer served by
 * a real daemon, in Debian's Chromium. ana has a file and a folder; the explorer opened with a
 * read key of hers offers no Upload or New folder, a file's menu offers Download but no Rename,
 * Delete or Edit, and a file dropped from the desktop is refused with a message, with nothing
 * uploaded; on a phone the selection bar offers Download and nothing that writes. The same page
 * with a write key of hers still offers Upload.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { makeKey, signIn as signInByHttp } from '../helpers/accounts.js';
import { ARTIFACTS_DIR, browserAvailable, ensureRendererBuilt, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { PASSWORD } from '../helpers/ui-shell.js';

const runUi = browserAvailable();
const SHOTS = path.join(ARTIFACTS_DIR, 'read-only-key');
const SIZES = { desktop: { width: 1400, height: 900 }, phone: { width: 390, height: 844 } } as const;

/** The explorer as a reader sees it, at both sizes, light and dark; back to the desktop size and light after. */
async function shots(page: Page, name: string): Promise<void> {
  await mkdir(SHOTS, { recursive: true });
  for (const [size, viewport] of Object.entries(SIZES)) {
    await page.setViewportSize(viewport);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.getByText('notes.txt', { exact: true }).first().waitFor();
      await page.screenshot({ path: path.join(SHOTS, `${name}-${size}-${scheme}.png`), animations: 'disabled', caret: 'hide' });
    }
  }
  await page.setViewportSize(SIZES.desktop);
  await page.emulateMedia({ colorScheme: 'light' });
}

describe.skipIf(!runUi)('the explorer with a read-only key (Chromium, real daemon)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  const keys = { read: '', write: '' };
  const pageErrors: string[] = [];

  /** What is at the top of ana's storage, by the API. */
  const anaNames = async (): Promise<string[]> =>
    ((await t.api('GET', '/api/files', { username: 'ana' })).body as { files: { name: string }[] }).files.map((file) => file.name).sort();

  /** A new tab opened with `key` in its address (no session in this profile, so the key signs it in), showing ana's files. */
  async function openWithKey(key: string): Promise<Page> {
    const tab = await browser.context.newPage();
    tab.on('pageerror', (error) => pageErrors.push(error.message));
    await tab.setViewportSize({ width: 1400, height: 900 });
    await tab.goto(`${t.url}/#key=${key}`);
    await tab.getByRole('heading', { name: 'ana', level: 1 }).waitFor();
    await tab
      .getByRole('grid', { name: /^Files in ana/ })
      .getByText('notes.txt', { exact: true })
      .waitFor();
    return tab;
  }

  beforeAll(async () => {
    await ensureRendererBuilt();
    t = await startTestDaemon();
    const created = await t.api('POST', '/api/user/create', { username: 'ana', email: 'ana@example.com', password: PASSWORD });
    expect(created.status).toBe(201);
    await upload(t, 'ana', 'notes.txt', 'ana’s notes\n');
    expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'Photos' })).status).toBe(201);
    const cookie = await signInByHttp(t, 'ana', PASSWORD);
    keys.read = await makeKey(t, { cookie }, 'reader', 'read');
    keys.write = await makeKey(t, { cookie }, 'writer', 'write');
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('offers no writing action to a read key, and refuses a drop with a message', async () => {
    const tab = await openWithKey(keys.read);
    try {
      // Said where the missing Upload would be looked for; no account change offered either.
      await tab.getByText('Read-only key', { exact: true }).waitFor();
      expect(await tab.getByRole('button', { name: 'Send verification e-mail' }).count()).toBe(0);
      await shots(tab, 'reader');
      const grid = tab.getByRole('grid', { name: /^Files in ana/ });
      expect(await tab.getByRole('button', { name: 'Upload', exact: true }).count()).toBe(0);
      expect(await tab.getByRole('button', { name: 'New folder', exact: true }).count()).toBe(0);
      expect(await tab.getByRole('button', { name: 'Rename', exact: true }).count()).toBe(0);
      expect(await tab.getByRole('button', { name: 'Delete', exact: true }).count()).toBe(0);

      await grid.getByText('notes.txt', { exact: true }).click({ button: 'right' });
      const menu = tab.getByRole('menu');
      await menu.getByRole('menuitem', { name: 'Download', exact: true }).waitFor();
      for (const name of ['Rename', 'Delete', 'Edit', 'Move to…', 'Copy to…'])
        expect(await menu.getByRole('menuitem', { name, exact: true }).count(), name).toBe(0);
      await tab.keyboard.press('Escape');
      await menu.waitFor({ state: 'detached' });

      const before = await anaNames();
      const dataTransfer = await tab.evaluateHandle(
        '(() => { const dt = new DataTransfer(); dt.items.add(new File(["from the desktop"], "dropped.txt", { type: "text/plain" })); return dt; })()',
      );
      await grid.dispatchEvent('dragenter', { dataTransfer });
      await tab.getByText('This key can only read', { exact: true }).waitFor();
      await grid.dispatchEvent('drop', { dataTransfer });
      await tab.getByText('This key can only read: nothing was uploaded').waitFor();
      expect(await anaNames()).toEqual(before);
      expect(before).not.toContain('dropped.txt');

      // On a phone the toolbar gives way to tiles and a selection bar: Download, nothing that writes.
      await grid.getByText('notes.txt', { exact: true }).click();
      await tab.setViewportSize({ width: 390, height: 844 });
      const bar = tab.getByRole('group', { name: 'Selection' });
      await bar.getByRole('button', { name: 'Download', exact: true }).waitFor();
      for (const name of ['Share', 'Move', 'Delete']) expect(await bar.getByRole('button', { name, exact: true }).count(), name).toBe(0);
      expect(await tab.getByRole('button', { name: 'Upload', exact: true }).count()).toBe(0);
    } finally {
      await tab.close();
    }
  });

  it('still offers Upload and New folder to a write key', async () => {
    const tab = await openWithKey(keys.write);
    try {
      await tab.getByRole('button', { name: 'Upload', exact: true }).waitFor();
      await tab.getByRole('button', { name: 'New folder', exact: true }).waitFor();
      expect(await tab.getByText('Read-only key', { exact: true }).count()).toBe(0);
      await tab
        .getByRole('grid', { name: /^Files in ana/ })
        .getByText('notes.txt', { exact: true })
        .click({ button: 'right' });
      await tab.getByRole('menu').getByRole('menuitem', { name: 'Rename', exact: true }).waitFor();
    } finally {
      await tab.close();
    }
    expect(pageErrors).toEqual([]);
  });
});
