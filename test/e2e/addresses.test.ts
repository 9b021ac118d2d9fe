/**
 * The explorer's address is in the URL (issue 25): opening a folder gives it an address, Back
 * and Forward move between folders inside the app, a reload and a bookmark land where the person
 * was, /trash, /search?q=… and /settings open directly, Backspace and Alt+↑ go up, a name with
 * `#` and a space round-trips, and a folder that is not there (or not theirs) says so with a way
 * back. Screenshots of a folder with its breadcrumb at 1400×900 and 390×844, light and dark, go
 * to test-artifacts/addresses-*.png.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, browserAvailable, ensureRendererBuilt, launchBrowser, openSignedIn, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';

const runUi = browserAvailable();
const PASSWORD = 'correct horse battery';
const ODD = 'a#b c%d';
const SIZES = { desktop: { width: 1400, height: 900 }, phone: { width: 390, height: 844 } } as const;

describe.skipIf(!runUi)('the address of the explorer (Chromium, real daemon, signed-in user)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  const grid = () => page.getByRole('grid', { name: /^Files in ana/ });
  const row = (name: string) => grid().getByText(name, { exact: true });
  const crumbs = () => page.getByRole('navigation', { name: 'Breadcrumb' });
  const here = () => new URL(page.url()).pathname + new URL(page.url()).search;
  /** The list shows `name` and the breadcrumb ends in `current`. */
  const showing = async (name: string, current: string) => {
    await row(name).waitFor();
    await expect.poll(() => crumbs().locator('[aria-current="page"]').textContent()).toBe(current);
  };

  beforeAll(async () => {
    await ensureRendererBuilt();
    await mkdir(ARTIFACTS_DIR, { recursive: true });
    t = await startTestDaemon();
    for (const username of ['ana', 'bob'])
      expect((await t.api('POST', '/api/user/create', { username, email: `${username}@example.com`, password: PASSWORD })).status).toBe(
        201,
      );
    for (const folder of ['Docs', ODD]) expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder })).status).toBe(201);
    await upload(t, 'ana', 'root.txt', 'at the root\n');
    await upload(t, 'ana', 'doc.txt', 'in Docs\n', { folder: 'Docs' });
    await upload(t, 'ana', 'odd.txt', 'in the odd one\n', { folder: ODD });
    ({ browser, page } = await openSignedIn(t.url, 'ana', PASSWORD, pageErrors));
    await row('root.txt').waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('gives an opened folder its address; Back, Forward and a reload stay in the app', async () => {
    await row('Docs').dblclick();
    await showing('doc.txt', 'Docs');
    expect(here()).toBe('/files/ana/Docs');
    await page.goBack();
    await showing('root.txt', 'ana');
    expect(new URL(page.url()).origin).toBe(t.url);
    await page.goForward();
    await showing('doc.txt', 'Docs');
    expect(here()).toBe('/files/ana/Docs');
    await page.reload();
    await showing('doc.txt', 'Docs');
    // The page's own pictures load at a deep address too (the logo is not /files/ana/nimbus.svg).
    await expect
      .poll(() =>
        page
          .locator('.sidebar img')
          .first()
          .evaluate((img: HTMLImageElement) => img.naturalWidth),
      )
      .toBeGreaterThan(0);
    // The breadcrumb's root goes up, as a new entry Back returns from.
    await crumbs().getByRole('button', { name: 'ana' }).click();
    await showing('root.txt', 'ana');
    expect(here()).toBe('/files/ana');
    await page.goBack();
    await showing('doc.txt', 'Docs');
  });

  it('opens a bookmarked folder, the trash, a search and Settings directly', async () => {
    await page.goto(`${t.url}/files/ana/Docs`);
    await showing('doc.txt', 'Docs');
    await page.goto(`${t.url}/trash`);
    await page.getByRole('heading', { name: 'Trash', level: 1 }).waitFor();
    await page.goto(`${t.url}/search?q=doc`);
    await page.getByRole('heading', { name: 'Results for “doc”' }).waitFor();
    await page.getByRole('table', { name: 'Results for “doc”' }).getByText('doc.txt').waitFor();
    expect(await page.getByRole('searchbox').inputValue()).toBe('doc');
    await page.goto(`${t.url}/settings`);
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    // The sidebar's places are addresses too, and Back returns through them.
    await page.getByRole('button', { name: 'Trash', exact: true }).click();
    await page.getByRole('heading', { name: 'Trash', level: 1 }).waitFor();
    expect(here()).toBe('/trash');
    await page.goBack();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('puts a typed search in the address; Back returns to the folder', async () => {
    await page.goto(`${t.url}/files/ana/Docs`);
    await showing('doc.txt', 'Docs');
    await page.getByRole('searchbox').fill('root');
    await page.getByRole('heading', { name: 'Results for “root”' }).waitFor();
    await expect.poll(here).toBe('/search?q=root&folder=Docs');
    await page.reload();
    await page.getByRole('heading', { name: 'Results for “root”' }).waitFor();
    await page.goBack();
    await showing('doc.txt', 'Docs');
    expect(await page.getByRole('searchbox').inputValue()).toBe('');
  });

  it('opens a folder with Enter and goes up with Backspace and Alt+↑', async () => {
    await page.goto(`${t.url}/files/ana`);
    await row('Docs').click();
    await page.keyboard.press('Enter');
    await showing('doc.txt', 'Docs');
    expect(here()).toBe('/files/ana/Docs');
    await row('doc.txt').click();
    await page.keyboard.press('Backspace');
    await showing('root.txt', 'ana');
    expect(here()).toBe('/files/ana');
    await row('Docs').click();
    await page.keyboard.press('Enter');
    await showing('doc.txt', 'Docs');
    await row('doc.txt').click();
    await page.keyboard.press('Alt+ArrowUp');
    await showing('root.txt', 'ana');
    expect(here()).toBe('/files/ana');
  });

  it('round-trips a folder name with #, % and a space through the address', async () => {
    await page.goto(`${t.url}/files/ana`);
    await row(ODD).dblclick();
    await showing('odd.txt', ODD);
    expect(here()).toBe(`/files/ana/${encodeURIComponent(ODD)}`);
    await page.reload();
    await showing('odd.txt', ODD);
    await page.goto(`${t.url}/files/ana/${encodeURIComponent(ODD)}`);
    await showing('odd.txt', ODD);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [size, viewport] of Object.entries(SIZES)) {
        await page.setViewportSize(viewport);
        await showing('odd.txt', ODD);
        await page.screenshot({
          path: path.join(ARTIFACTS_DIR, `addresses-folder-${size}-${scheme}.png`),
          animations: 'disabled',
          caret: 'hide',
        });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize(SIZES.desktop);
  });

  it('shows a folder that does not exist as not found, with a way back to the root', async () => {
    await page.goto(`${t.url}/files/ana/Nope`);
    await page.getByRole('heading', { name: 'This folder does not exist' }).waitFor();
    await page.getByRole('button', { name: 'Open ana' }).click();
    await showing('root.txt', 'ana');
    expect(here()).toBe('/files/ana');
  });

  it("shows another user's storage as the API answers it, not found, never their files", async () => {
    await upload(t, 'bob', 'bobs-secret.txt', 'bob only\n');
    await page.goto(`${t.url}/files/bob`);
    // The API does not tell a user whether another user exists: their storage is not found.
    await page.getByRole('heading', { name: 'This folder does not exist' }).waitFor();
    await page.getByText('User not found').first().waitFor();
    expect(await page.getByText('bobs-secret.txt').count()).toBe(0);
    await page.getByRole('link', { name: 'Go to the start page' }).click();
    await showing('root.txt', 'ana');
  });
});

describe.skipIf(!runUi)("the address of the admin's window (Chromium, real daemon, admin key)", () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  const here = () => new URL(page.url()).pathname + new URL(page.url()).search;
  const grid = () => page.getByRole('grid', { name: /^Files in ana/ });
  const overview = () => page.getByRole('heading', { name: 'Overview', level: 1 });

  beforeAll(async () => {
    await ensureRendererBuilt();
    t = await startTestDaemon();
    expect((await t.api('POST', '/api/user/create', { username: 'ana', email: 'ana@example.com', password: PASSWORD })).status).toBe(201);
    expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'Docs' })).status).toBe(201);
    await upload(t, 'ana', 'doc.txt', 'in Docs\n', { folder: 'Docs' });
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.setViewportSize(SIZES.desktop);
    await page.goto(`${t.url}/#key=${t.key}`);
    await overview().waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it("browses a user's folders at /files/<user>/…, with Back to the Overview and a reload in place", async () => {
    await page
      .getByRole('button', { name: /^ana\b/ })
      .first()
      .click();
    await grid().getByText('Docs', { exact: true }).dblclick();
    await grid().getByText('doc.txt', { exact: true }).waitFor();
    expect(here()).toBe('/files/ana/Docs');
    await page.goBack();
    await grid().getByText('Docs', { exact: true }).waitFor();
    expect(here()).toBe('/files/ana');
    await page.goBack();
    await overview().waitFor();
    await page.goForward();
    await page.goForward();
    await grid().getByText('doc.txt', { exact: true }).waitFor();
    await page.reload();
    await grid().getByText('doc.txt', { exact: true }).waitFor();
    await page.getByRole('tab', { name: 'Trash' }).click();
    await expect.poll(here).toBe('/trash/ana');
    await page.reload();
    await expect.poll(() => page.getByRole('tab', { name: 'Trash' }).getAttribute('aria-selected')).toBe('true');
    await page.getByRole('button', { name: /^Roles/ }).click();
    await expect.poll(here).toBe('/roles');
    await page.goto(`${t.url}/files/ana/Docs`);
    await grid().getByText('doc.txt', { exact: true }).waitFor();
  });

  it('leaves a user that does not exist for the Overview', async () => {
    await page.goto(`${t.url}/files/nobody/Docs`);
    await overview().waitFor();
    await expect.poll(here).toBe('/');
  });
});
