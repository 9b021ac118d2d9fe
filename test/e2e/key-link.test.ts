/**
 * A key in a link (`<daemon>/#key=…`) never silently replaces a signed-in session (issue 22,
 * item 7), end to end: the built renderer served by a real daemon, in Debian's Chromium. ana is
 * signed in with her password; a link carrying bob's personal key opens; the page stays ana's,
 * the key leaves the address bar, and what she uploads lands in her storage, not bob's. Only
 * "Switch" makes the page bob's. Screenshots of the prompt at desktop and phone sizes, light
 * and dark, go to /tmp/fragment-shots/.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { makeKey, signIn as signInByHttp } from '../helpers/accounts.js';
import { browserAvailable, ensureRendererBuilt, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, storedNames, type TestDaemon } from '../helpers/daemon.js';
import { PASSWORD, axeProblems, signInAs } from '../helpers/ui-shell.js';

const runUi = browserAvailable();
const SHOTS_DIR = process.env.NIMBUS_FRAGMENT_SHOTS ?? '/tmp/fragment-shots';
const SIZES = { desktop: { width: 1400, height: 900 }, phone: { width: 390, height: 844 } } as const;

/** The prompt at both sizes, light and dark; the page goes back to the desktop size and light. */
async function shots(page: Page, name: string): Promise<void> {
  for (const [size, viewport] of Object.entries(SIZES)) {
    await page.setViewportSize(viewport);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: path.join(SHOTS_DIR, `${name}-${size}-${scheme}.png`), animations: 'disabled', caret: 'hide' });
    }
  }
  await page.setViewportSize(SIZES.desktop);
  await page.emulateMedia({ colorScheme: 'light' });
}

/** What is at the top of a user's storage; nothing when the user has never stored a file. */
const namesOf = (t: TestDaemon, username: string) => storedNames(t, username).catch(() => [] as string[]);

describe.skipIf(!runUi)('a key in a link while signed in (Chromium, real daemon)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  let bobKey: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    await ensureRendererBuilt();
    await mkdir(SHOTS_DIR, { recursive: true });
    t = await startTestDaemon();
    for (const username of ['ana', 'bob']) {
      const created = await t.api('POST', '/api/user/create', { username, email: `${username}@example.com`, password: PASSWORD });
      expect(created.status).toBe(201);
    }
    bobKey = await makeKey(t, { cookie: await signInByHttp(t, 'bob', PASSWORD) }, 'link', 'write');
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('asks, and stays ana, when bob’s key is put in the address of ana’s open page', async () => {
    await signInAs(page, t.url, 'ana');
    // Only the fragment changes: the same document, no reload.
    await page.goto(`${t.url}/#key=${bobKey}`);
    const prompt = page.getByRole('dialog', { name: 'This link signs you in as bob' });
    await prompt.waitFor();
    expect(page.url()).not.toContain(bobKey);
    expect(await axeProblems(page)).toEqual([]);
    // The focus is on staying, so a key pressed by habit never switches; Escape stays too.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Stay signed in as ana');
    await page.keyboard.press('Escape');
    await prompt.waitFor({ state: 'detached' });
    expect(await page.getByRole('heading', { name: 'ana', level: 1 }).count()).toBe(1);
    expect(await page.evaluate('sessionStorage.getItem("nimbus.apiKey")')).toBeNull();
  });

  it('opens a link with bob’s key in a new tab as ana; her upload lands in her storage; Switch makes it bob’s', async () => {
    const tab = await browser.context.newPage();
    tab.on('pageerror', (error) => pageErrors.push(error.message));
    try {
      await tab.goto(`${t.url}/#key=${bobKey}`);
      await tab.getByRole('heading', { name: 'ana', level: 1 }).waitFor();
      const prompt = tab.getByRole('dialog', { name: 'This link signs you in as bob' });
      await prompt.waitFor();
      expect(tab.url()).not.toContain(bobKey);
      expect(await tab.evaluate('sessionStorage.getItem("nimbus.apiKey")')).toBeNull();
      await shots(tab, 'key-link-prompt');

      // The prompt does not stand in the way, and the page still acts as ana.
      await tab
        .getByLabel('Choose files to upload')
        .setInputFiles([{ name: 'while-asked.txt', mimeType: 'text/plain', buffer: Buffer.from('ana’s, not bob’s\n') }]);
      await tab.getByRole('grid').getByText('while-asked.txt').waitFor();
      expect(await namesOf(t, 'ana')).toContain('while-asked.txt');
      expect(await namesOf(t, 'bob')).not.toContain('while-asked.txt');

      await prompt.getByRole('button', { name: 'Switch to bob' }).click();
      await tab.getByRole('heading', { name: 'bob', level: 1 }).waitFor();
      expect(await tab.getByRole('dialog').count()).toBe(0);
      expect(await tab.evaluate('sessionStorage.getItem("nimbus.apiKey")')).toBe(bobKey);
      // ana's session was ended on the server before the page became bob's.
      expect((await browser.context.cookies(t.url)).some((cookie) => cookie.name === 'nimbus_session')).toBe(false);
    } finally {
      await tab.close();
    }
  });

  it('signs a page that is not signed in straight in with the link’s key, as before', async () => {
    const tab = await browser.context.newPage();
    try {
      await tab.goto(`${t.url}/#key=${bobKey}`);
      await tab.getByRole('heading', { name: 'bob', level: 1 }).waitFor();
      expect(tab.url()).not.toContain(bobKey);
      expect(await tab.getByRole('dialog').count()).toBe(0);
    } finally {
      await tab.close();
    }
    expect(pageErrors).toEqual([]);
  });
});
