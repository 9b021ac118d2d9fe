/**
 * The UI's first load as Chromium makes it (issue 28, item 4; docs/explorer.md, "How the UI is
 * served"): every script and style sheet comes compressed, the page fetches the strings of its
 * own language only (Czech for a cs-CZ browser), another language's chunk arrives when Settings
 * switches to it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page, Response } from 'playwright-core';
import { browserAvailable, ensureRendererBuilt, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { PASSWORD, seedUsers } from '../helpers/ui-shell.js';

const runUi = browserAvailable();
const LANGUAGE_CHUNK = /\/assets\/(en|cs|es|ja|nb)-[\w-]{8}\.js$/;

describe.skipIf(!runUi)('the first load (Chromium, real daemon)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  const answers: Response[] = [];
  const languagesFetched = () => answers.map((a) => LANGUAGE_CHUNK.exec(new URL(a.url()).pathname)?.[1]).filter(Boolean);

  beforeAll(async () => {
    await ensureRendererBuilt();
    t = await startTestDaemon();
    await seedUsers(t);
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    // A Czech browser: the page starts in Czech.
    await page.setExtraHTTPHeaders({ 'Accept-Language': 'cs-CZ,cs;q=0.9' });
    await page.addInitScript(() => Object.defineProperty(navigator, 'languages', { get: () => ['cs-CZ', 'cs'] }));
    page.on('response', (answer) => answers.push(answer));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('fetches every script and style sheet compressed, and only its own language', async () => {
    await page.goto(t.url);
    await page.getByRole('heading', { name: 'Přihlášení do Nimbusu' }).waitFor();
    const assets = answers.filter((a) => new URL(a.url()).pathname.startsWith('/assets/'));
    expect(assets.length).toBeGreaterThan(3);
    for (const answer of assets) {
      const headers = await answer.allHeaders();
      expect(headers['content-encoding'], answer.url()).toBe('br');
      expect(headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    expect(languagesFetched()).toEqual(['cs']);
  });

  it('fetches English when Settings switches to it, then nothing more', async () => {
    await page.getByLabel('Uživatelské jméno').fill('ana');
    await page.getByLabel('Heslo', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Přihlásit se', exact: true }).click();
    await page.getByRole('navigation', { name: 'Váš účet' }).getByRole('button', { name: 'Nastavení' }).click();
    await page.getByRole('radio', { name: 'English' }).check();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    expect(languagesFetched()).toEqual(['cs', 'en']);
  });
});
