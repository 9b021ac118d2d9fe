/**
 * A share link's options from the explorer (issue 27), in Chromium against a real daemon, signed
 * in as a user: a file shared, a password and a download limit set in the share dialog (which
 * says the 127.0.0.1 link only works on this computer); the link opened in a fresh, signed-out
 * browser asks for the password, says a wrong one is wrong, and downloads with the right one;
 * "Shared by me" then shows the downloads ("2 / 3": the preview and the download) and each link's state, and opens the same
 * options. Screenshots of the dialog and of Shared by me at 1400×900 and 390×844, light and dark,
 * go to NIMBUS_SHOTS_DIR (else test-artifacts): share-dialog-*.png, share-list-*.png.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, browserAvailable, ensureRendererBuilt, launchBrowser, openSignedIn, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { axeProblems } from '../helpers/ui-shell.js';

const runUi = browserAvailable();
const PASSWORD = 'correct horse battery';
const LINK_PASSWORD = 'blue harbour';
const CONTENT = 'the quarterly numbers\n';
const SHOTS = process.env.NIMBUS_SHOTS_DIR ?? ARTIFACTS_DIR;
const SIZES = { desktop: { width: 1400, height: 900 }, phone: { width: 390, height: 844 } } as const;

describe.skipIf(!runUi)('share link options in the explorer (Chromium, real daemon, signed-in user)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let visitor: TestBrowser | undefined;
  let page: Page;
  let link: string;
  const pageErrors: string[] = [];
  const grid = () => page.getByRole('grid', { name: /^Files in ana/ });
  const shares = async () =>
    (await t.api('GET', '/api/shares', { username: 'ana' })).body.shares as {
      url: string;
      file: string;
      hasPassword: boolean;
      maxDownloads: number | null;
      downloads: number;
      state: string;
    }[];
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

  beforeAll(async () => {
    await ensureRendererBuilt();
    await mkdir(SHOTS, { recursive: true });
    t = await startTestDaemon();
    const created = await t.api('POST', '/api/user/create', { username: 'ana', email: 'ana@example.com', password: PASSWORD });
    expect(created.status).toBe(201);
    expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'reports/2026', parents: 'true' })).status).toBe(201);
    await upload(t, 'ana', 'quarterly report.txt', CONTENT);
    // Two links made through the API, to show the other states: one used up, one soon expired.
    await upload(t, 'ana', 'flyer.txt', 'a flyer\n', { folder: 'reports/2026' });
    await upload(t, 'ana', 'invite.txt', 'an invitation\n');
    expect(
      (await t.api('POST', '/api/files/share', { username: 'ana', file: 'flyer.txt', folder: 'reports/2026', maxDownloads: '1' })).status,
    ).toBe(201);
    const flyer = (await shares()).find((share) => share.file === 'flyer.txt')!;
    expect((await fetch(flyer.url)).status).toBe(200);
    const soon = new Date(Date.now() + 3000).toISOString();
    expect((await t.api('POST', '/api/files/share', { username: 'ana', file: 'invite.txt', expires: soon })).status).toBe(201);
    ({ browser, page } = await openSignedIn(t.url, 'ana', PASSWORD, pageErrors));
    page.on('console', (message) => {
      // A refused request logs "Failed to load resource"; anything else React or the page says is a fault.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(message.text());
    });
    await grid().getByText('quarterly report.txt', { exact: true }).waitFor();
  }, 180_000);

  afterAll(async () => {
    await visitor?.close();
    await browser?.close();
    await t?.close();
  });

  it('sets a password and a download limit in the share dialog, which says the link only works here', async () => {
    await grid().getByText('quarterly report.txt', { exact: true }).click();
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Share “quarterly report.txt”' });
    link = await dialog.getByLabel('Share link').inputValue();
    expect(link).toMatch(new RegExp(`^${t.url}/s/[A-Za-z0-9_-]{22,}$`));
    // The daemon's address is 127.0.0.1: the dialog says so, and how to fix it.
    const notice = dialog.getByRole('note', { name: 'This link only works on this computer' });
    expect(await notice.textContent()).toContain('NIMBUS_PUBLIC_URL');
    const options = dialog.getByRole('region', { name: 'Link options' });
    await options.getByText('Downloads: 0').waitFor();
    await options.getByText('Active', { exact: true }).waitFor();
    await options.getByLabel('Download limit').fill('3');
    await options.getByLabel('Set a password').fill(LINK_PASSWORD);
    await options.getByRole('button', { name: 'Save options' }).click();
    await options.getByText('Options saved.').waitFor();
    await options.getByText('This link asks for a password.').waitFor();
    await options.getByText('Downloads: 0 of 3').waitFor();
    expect(await options.getByLabel('Change the password').inputValue()).toBe('');
    expect((await shares()).find((share) => share.file === 'quarterly report.txt')).toMatchObject({
      hasPassword: true,
      maxDownloads: 3,
      downloads: 0,
      state: 'active',
    });
    // No serious or critical accessibility problem in the dialog with its options.
    expect(await axeProblems(page)).toEqual([]);
    await shoot('share-dialog', () => options.getByText('Options saved.').waitFor());
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('asks a signed-out visitor for the password, refuses a wrong one, and opens the preview and the download with the right one', async () => {
    visitor = await launchBrowser();
    const guest = visitor.context.pages()[0] ?? (await visitor.context.newPage());
    const first = await guest.goto(link);
    expect(first?.status()).toBe(401);
    await guest.getByRole('heading', { name: 'This link asks for a password' }).waitFor();
    // The page names nothing of the file.
    expect(await guest.content()).not.toContain('quarterly');
    await guest.getByPlaceholder('Password').fill('not the password');
    const [wrong] = await Promise.all([
      guest.waitForResponse((response) => response.request().method() === 'POST'),
      guest.getByRole('button', { name: 'Open' }).click(),
    ]);
    // The page's Referrer-Policy is no-referrer, so Chromium posts its form with `Origin: null`
    // (and `Sec-Fetch-Site: same-origin`): the daemon must take that as its own page, not 403.
    expect(wrong.status(), await wrong.text()).toBe(401);
    await guest.getByRole('alert').filter({ hasText: 'That password is not right.' }).waitFor();
    expect((await shares()).find((share) => share.file === 'quarterly report.txt')?.downloads).toBe(0);
    await guest.getByPlaceholder('Password').fill(LINK_PASSWORD);
    // The right one opens the link: a text file's preview page (its bytes in a frame), then its Download button.
    await guest.getByRole('button', { name: 'Open' }).click();
    await guest.getByRole('heading', { name: 'quarterly report.txt' }).waitFor();
    expect(await guest.frameLocator('iframe').locator('body').textContent()).toBe(CONTENT);
    const [download] = await Promise.all([guest.waitForEvent('download'), guest.getByRole('link', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).toBe('quarterly report.txt');
    expect(await readFile((await download.path())!, 'utf8')).toBe(CONTENT);
    // The bytes went out twice, once shown in the page and once downloaded: each takes one of the link's downloads.
    await expect.poll(async () => (await shares()).find((share) => share.file === 'quarterly report.txt')?.downloads).toBe(2);
  });

  it('shows the download and each link’s state in "Shared by me", and opens the same options there', async () => {
    await expect
      .poll(async () => (await shares()).find((share) => share.file === 'invite.txt')?.state, { timeout: 10_000 })
      .toBe('expired');
    await page.getByRole('button', { name: 'Shared by me' }).click();
    const table = page.getByRole('table', { name: 'Your share links' });
    const row = (name: string) => table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${name}`) }) });
    await row('flyer.txt').waitFor();
    expect(await axeProblems(page)).toEqual([]);
    const cells = (name: string) => row(name).getByRole('cell').allTextContents();
    // The list is asked for again as the page opens: the visitor's download is counted.
    await expect.poll(async () => (await cells('quarterly report.txt')).slice(0, 5)).toEqual(['File', 'Root', '2 / 3', 'Never', 'Active']);
    expect((await cells('flyer.txt')).slice(0, 5)).toEqual(['File', 'reports/2026', '1 / 1', 'Never', 'Used up']);
    expect((await cells('invite.txt'))[4]).toBe('Expired');
    expect(await row('quarterly report.txt').getByText('Asks for a password').count()).toBe(1);
    // The phone keeps the state and the buttons (icons), and puts folder, downloads and expiry under the name; nothing scrolls sideways.
    const overflows: Record<string, number> = {};
    await shoot('share-list', async () => {
      await row('flyer.txt').waitFor();
      const width = page.viewportSize()!.width;
      expect(await table.getByRole('columnheader', { name: 'Folder' }).isVisible()).toBe(width > 720);
      expect(await row('flyer.txt').getByText('Used up').isVisible()).toBe(true);
      overflows[width] = await page.evaluate(() => {
        const scroller = document.querySelector('.shared__scroll')!;
        return scroller.scrollWidth - scroller.clientWidth;
      });
    });
    expect(overflows).toEqual({ 390: 0, 1400: 0 });

    await page.getByRole('button', { name: 'Link options for flyer.txt' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share “flyer.txt”' });
    const options = dialog.getByRole('region', { name: 'Link options' });
    await options.getByText('Downloads: 1 of 1').waitFor();
    await options.getByText(/Raise the limit/).waitFor();
    await options.getByLabel('Download limit').fill('5');
    await options.getByRole('button', { name: 'Save options' }).click();
    await options.getByText('Options saved.').waitFor();
    await options.getByText('Active', { exact: true }).waitFor();
    await shoot('share-dialog-from-list', () => options.getByText('Options saved.').waitFor());
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => cells('flyer.txt').then((texts) => texts.slice(2, 5))).toEqual(['1 / 5', 'Never', 'Active']);
    // Stop sharing: one click.
    await page.getByRole('button', { name: 'Stop sharing invite.txt' }).click();
    await expect.poll(() => row('invite.txt').count()).toBe(0);
    expect((await shares()).map((share) => share.file).sort()).toEqual(['flyer.txt', 'quarterly report.txt']);
    expect(pageErrors).toEqual([]);
  });
});
