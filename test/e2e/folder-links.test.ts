/**
 * Folder links and upload links from the explorer (issue 27), in Chromium against a real
 * daemon, signed in as a user: the user shares a folder from its menu and sets a password and an
 * expiry in the share dialog; a signed-out browser opens the link, gives the password, goes down
 * into a subfolder and back up by the breadcrumbs (which never go above the shared folder),
 * plays a video's preview (a real WebM: its metadata loads, one second long), and downloads the
 * folder as a zip (its entries checked); then the user makes the upload link of another folder
 * from the toolbar, the visitor sends a file through the link's page, and the user's explorer,
 * open in that folder, shows the file arrive without a reload. "Shared by me" lists the three
 * kinds. Screenshots of the folder link's dialog, the upload link's dialog and Shared by me, at
 * 1400×900 and 390×844, light and dark, in English and Czech, go to NIMBUS_SHOTS_DIR (else
 * /tmp/folder-share-shots): {folder-dialog,upload-dialog,explorer,shared-list}-{en,cs}-{desktop,phone}-{light,dark}.png.
 */
import { mkdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, ensureRendererBuilt, launchBrowser, openSignedIn, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { axeProblems } from '../helpers/ui-shell.js';
import { tinyWebm, WEBM_DURATION, WEBM_WIDTH } from '../helpers/webm.js';
import { readZip, sha256 } from '../helpers/zip.js';

const runUi = browserAvailable();
const PASSWORD = 'correct horse battery';
const LINK_PASSWORD = 'blue harbour';
const VIDEO = tinyWebm();
const SHOTS = process.env.NIMBUS_SHOTS_DIR ?? path.join(os.tmpdir(), 'folder-share-shots');
const SIZES = { desktop: { width: 1400, height: 900 }, phone: { width: 390, height: 844 } } as const;

/** The explorer's words the journey clicks by, in the two languages of the screenshots. */
const WORDS = {
  en: {
    files: 'Files in ana',
    sharedFolder: 'Shared: show the link for Trips',
    shareLink: 'Share link…',
    uploadLink: 'Upload link…',
    done: 'Done',
    table: 'Your share links',
    selectionBar: 'Selection',
  },
  cs: {
    files: 'Soubory v ana',
    sharedFolder: 'Sdíleno: zobrazit odkaz na Trips',
    shareLink: 'Odkaz ke sdílení…',
    uploadLink: 'Odkaz pro nahrávání…',
    done: 'Hotovo',
    table: 'Vaše odkazy ke sdílení',
    selectionBar: 'Výběr',
  },
} as const;

/** A date field's value for the day `days` from today, here. */
function dayFromNow(days: number): string {
  const d = new Date();
  d.setDate(d.getDate() + days);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

interface Link {
  url: string;
  kind: string;
  folder: string | null;
  file: string;
  expiresAt: string | null;
  hasPassword: boolean;
  downloads: number;
  maxDownloads: number | null;
}

describe.skipIf(!runUi)('folder links and upload links from the explorer (Chromium, real daemon, signed-in user)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let visitor: TestBrowser | undefined;
  let page: Page;
  let guest: Page;
  let folderLink: string;
  let uploadLink: string;
  const expiryDay = dayFromNow(10);
  const pageErrors: string[] = [];
  const grid = () => page.getByRole('grid', { name: /^Files in ana/ });
  const shares = async () => (await t.api('GET', '/api/shares', { username: 'ana' })).body.shares as Link[];
  const linkOf = async (kind: string, folder: string) => (await shares()).find((s) => s.kind === kind && s.folder === folder);
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
    expect((await t.api('POST', '/api/user/create', { username: 'ana', email: 'ana@example.com', password: PASSWORD })).status).toBe(201);
    for (const folder of ['Trips/Summer/Beach', 'Inbox', 'Private']) {
      expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder, parents: 'true' })).status).toBe(201);
    }
    await upload(t, 'ana', 'notes.txt', 'packing list\n', { folder: 'Trips' });
    await upload(t, 'ana', 'clip.webm', VIDEO, { folder: 'Trips/Summer' });
    await upload(t, 'ana', 'shell.txt', 'a shell\n', { folder: 'Trips/Summer/Beach' });
    // Beside Trips, never reachable through its link.
    await upload(t, 'ana', 'diary.txt', 'not for anyone\n', { folder: 'Private' });
    // A file's link, for the list of every kind.
    expect((await t.api('POST', '/api/files/share', { username: 'ana', file: 'notes.txt', folder: 'Trips' })).status).toBe(201);
    ({ browser, page } = await openSignedIn(t.url, 'ana', PASSWORD, pageErrors));
    page.on('console', (message) => {
      // A refused request logs "Failed to load resource"; anything else React or the page says is a fault.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(message.text());
    });
    await grid().getByText('Trips', { exact: true }).waitFor();
  }, 180_000);

  afterAll(async () => {
    await visitor?.close();
    await browser?.close();
    await t?.close();
  });

  it('shares a folder from its menu, with a password and an expiry set in the share dialog', async () => {
    await grid().getByText('Trips', { exact: true }).click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Share link…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share the folder “Trips”' });
    await dialog.getByText(/^Anyone with this link can browse and download everything in “Trips”/).waitFor();
    folderLink = await dialog.getByLabel('Share link').inputValue();
    expect(folderLink).toMatch(new RegExp(`^${t.url}/s/[A-Za-z0-9_-]{22,}$`));
    const options = dialog.getByRole('region', { name: 'Link options' });
    await options.getByText('Downloads: 0').waitFor();
    await options.getByLabel('Expires on').fill(expiryDay);
    await options.getByLabel('Set a password').fill(LINK_PASSWORD);
    await options.getByRole('button', { name: 'Save options' }).click();
    await options.getByText('Options saved.').waitFor();
    await options.getByText('This link asks for a password.').waitFor();
    const made = await linkOf('folder', 'Trips');
    expect(made).toMatchObject({ url: folderLink, file: '', hasPassword: true, maxDownloads: null, downloads: 0 });
    // The link stops working when the day picked begins, here.
    const [y, m, d] = expiryDay.split('-').map(Number);
    expect(made!.expiresAt).toBe(new Date(y, m - 1, d).toISOString());
    expect(await axeProblems(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // The folder's row says it is shared (a folder's record has no share flag: from shares.list).
    await grid().getByRole('button', { name: 'Shared: show the link for Trips' }).waitFor();
    // Shown again from the menu: the same link, not a second one.
    await grid().getByText('Trips', { exact: true }).click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Share link…' }).click();
    expect(await dialog.getByLabel('Share link').inputValue()).toBe(folderLink);
    await dialog.getByRole('button', { name: 'Done' }).click();
    expect((await shares()).filter((s) => s.kind === 'folder')).toHaveLength(1);
  });

  it('lets a signed-out visitor in with the password, down into subfolders and back by the breadcrumbs', async () => {
    visitor = await launchBrowser();
    guest = visitor.context.pages()[0] ?? (await visitor.context.newPage());
    const first = await guest.goto(folderLink);
    expect(first?.status()).toBe(401);
    await guest.getByRole('heading', { name: 'This link asks for a password' }).waitFor();
    expect(await guest.content()).not.toContain('Trips');
    await guest.getByPlaceholder('Password').fill(LINK_PASSWORD);
    await guest.getByRole('button', { name: 'Open' }).click();
    await guest.getByRole('heading', { name: 'Trips', level: 1 }).waitFor();
    const crumbs = () => guest.getByRole('navigation', { name: 'Folders' }).getByRole('listitem').allTextContents();
    expect(await crumbs()).toEqual(['Trips']);
    await guest.getByRole('link', { name: 'Summer', exact: true }).click();
    await guest.getByRole('heading', { name: 'Summer', level: 1 }).waitFor();
    await guest.getByRole('link', { name: 'Beach', exact: true }).click();
    await guest.getByRole('heading', { name: 'Beach', level: 1 }).waitFor();
    // From the shared folder down: nothing above it is named, nor its owner's other folders.
    expect(await crumbs()).toEqual(['Trips', 'Summer', 'Beach']);
    expect(await guest.getByText('shell.txt', { exact: true }).count()).toBe(1);
    // (Its text: the links' tokens in the markup are random letters.)
    const shown = await guest.locator('body').innerText();
    for (const hidden of [/Private/, /diary/, /\bana\b/]) expect(shown).not.toMatch(hidden);
    // Back up one level by its crumb (a link; the current folder's is not).
    await guest.getByRole('navigation', { name: 'Folders' }).getByRole('link', { name: 'Summer' }).click();
    await guest.getByRole('heading', { name: 'Summer', level: 1 }).waitFor();
    expect(await crumbs()).toEqual(['Trips', 'Summer']);
    expect(await guest.getByRole('navigation', { name: 'Folders' }).getByRole('link').allTextContents()).toEqual(['Trips']);
  });

  it('plays a video’s preview inside the shared folder', async () => {
    await guest.getByRole('link', { name: 'clip.webm', exact: true }).click();
    await guest.getByRole('heading', { name: 'clip.webm' }).waitFor();
    // The page runs no script: the player's state is read through the DevTools protocol.
    await expect
      .poll(() => guest.evaluate(() => document.querySelector('video')?.readyState ?? -1), { timeout: 10_000 })
      .toBeGreaterThanOrEqual(1);
    const video = await guest.evaluate(() => {
      const v = document.querySelector('video')!;
      return { duration: v.duration, width: v.videoWidth, error: v.error?.message ?? null, src: v.currentSrc };
    });
    expect(video).toMatchObject({ width: WEBM_WIDTH, error: null });
    expect(video.duration).toBeCloseTo(WEBM_DURATION, 1);
    expect(video.src.startsWith(`${folderLink}?`)).toBe(true);
  });

  it('downloads the shared folder as a zip, with its tree inside and nothing from beside it', async () => {
    await guest.goBack();
    await guest.getByRole('navigation', { name: 'Folders' }).getByRole('link', { name: 'Trips' }).click();
    await guest.getByRole('heading', { name: 'Trips', level: 1 }).waitFor();
    const [download] = await Promise.all([
      guest.waitForEvent('download'),
      guest.getByRole('link', { name: 'Download all as .zip' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.zip$/);
    const entries = await readZip(await readFile((await download.path())!));
    const files = entries.filter((entry) => !entry.name.endsWith('/'));
    expect(files.map((entry) => entry.name).sort()).toEqual(['Trips/Summer/Beach/shell.txt', 'Trips/Summer/clip.webm', 'Trips/notes.txt']);
    expect(files.find((entry) => entry.name.endsWith('clip.webm'))?.sha256).toBe(sha256(VIDEO));
    // The video's preview and the zip: each took one of the link's downloads.
    await expect.poll(async () => (await linkOf('folder', 'Trips'))?.downloads).toBe(2);
  });

  it('makes a folder’s upload link from the toolbar, and a file the visitor sends appears in the open explorer', async () => {
    await grid().getByText('Inbox', { exact: true }).click();
    await page.getByRole('button', { name: 'Upload link…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Upload link to “Inbox”' });
    await dialog
      .getByText(/^Anyone with this link can upload files into “Inbox” without signing in; they cannot see what is in it/)
      .waitFor();
    uploadLink = await dialog.getByLabel('Upload link').inputValue();
    expect(uploadLink).toMatch(new RegExp(`^${t.url}/s/[A-Za-z0-9_-]{22,}$`));
    await dialog.getByRole('region', { name: 'Link options' }).getByText('Uploads: 0').waitFor();
    expect(await dialog.getByLabel('Upload limit').inputValue()).toBe('');
    expect(await linkOf('upload', 'Inbox')).toMatchObject({ url: uploadLink, file: '', hasPassword: false });
    expect(await axeProblems(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await grid().getByRole('button', { name: 'Shared for uploads: show the upload link for Inbox' }).waitFor();

    // The owner opens the folder; the page is not reloaded from here on.
    await grid().getByText('Inbox', { exact: true }).dblclick();
    await page.getByRole('grid', { name: 'Files in ana › Inbox' }).or(page.getByText('This folder is empty')).first().waitFor();
    await page.evaluate(() => {
      (window as unknown as { stayed: boolean }).stayed = true;
    });

    await guest.goto(uploadLink);
    await guest.getByRole('heading', { name: 'Send a file' }).waitFor();
    // The page names nothing of the folder or its owner.
    const shown = await guest.locator('body').innerText();
    for (const hidden of [/Inbox/, /\bana\b/]) expect(shown).not.toMatch(hidden);
    expect(await guest.title()).not.toMatch(/Inbox/);
    await guest
      .locator('input[type="file"]')
      .setInputFiles({ name: 'receipt.txt', mimeType: 'text/plain', buffer: Buffer.from('paid in full\n') });
    await guest.getByRole('button', { name: 'Upload' }).click();
    await guest.getByText('“receipt.txt” was sent.').waitFor();

    // The owner's explorer shows it live, from the daemon's event.
    await page.getByRole('grid', { name: 'Files in ana › Inbox' }).getByText('receipt.txt', { exact: true }).waitFor({ timeout: 15_000 });
    expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
    const stored = await t.api('GET', '/api/files/download', { username: 'ana', file: 'receipt.txt', folder: 'Inbox' });
    expect(stored.text).toBe('paid in full\n');
    await expect.poll(async () => (await linkOf('upload', 'Inbox'))?.downloads).toBe(1);
  });

  it('lists the three kinds in "Shared by me", each with its kind, folder and uses', async () => {
    await page.getByRole('button', { name: 'Shared by me' }).click();
    const table = page.getByRole('table', { name: 'Your share links' });
    const row = (name: string) => table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${name}`) }) });
    await row('Inbox').waitFor();
    const cells = (name: string) => row(name).getByRole('cell').allTextContents();
    await expect.poll(async () => (await cells('Trips')).slice(0, 5)).toEqual(['Folder', 'Root', '2', expect.any(String), 'Active']);
    expect((await cells('Inbox')).slice(0, 5)).toEqual(['Upload link', 'Root', '1 upload', 'Never', 'Active']);
    expect((await cells('notes.txt')).slice(0, 5)).toEqual(['File', 'Trips', '0', 'Never', 'Active']);
    expect(await row('Trips').getByText('Asks for a password').count()).toBe(1);
    expect(await axeProblems(page)).toEqual([]);
    // Each kind's options open its own dialog, and change that link only (shares.edit with `upload`, no `file`).
    await page.getByRole('button', { name: 'Upload link options for Inbox' }).click();
    let dialog = page.getByRole('dialog', { name: 'Upload link to “Inbox”' });
    let options = dialog.getByRole('region', { name: 'Link options' });
    await options.getByText('Uploads: 1').waitFor();
    await options.getByLabel('Upload limit').fill('5');
    await options.getByRole('button', { name: 'Save options' }).click();
    await options.getByText('Options saved.').waitFor();
    await options.getByText('Uploads: 1 of 5').waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect.poll(async () => (await cells('Inbox'))[2]).toBe('1 / 5 uploads');
    expect((await linkOf('upload', 'Inbox'))?.maxDownloads).toBe(5);
    expect((await linkOf('folder', 'Trips'))?.maxDownloads).toBeNull();
    await page.getByRole('button', { name: 'Link options for the folder Trips' }).click();
    dialog = page.getByRole('dialog', { name: 'Share the folder “Trips”' });
    options = dialog.getByRole('region', { name: 'Link options' });
    await options.getByText('Downloads: 2').waitFor();
    await options.getByText('This link asks for a password.').waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    // Stopping the upload link leaves the folder's other link; its address no longer answers.
    await page.getByRole('button', { name: 'Stop sharing the upload link to Inbox' }).click();
    await expect.poll(() => row('Inbox').count()).toBe(0);
    expect((await shares()).map((s) => `${s.kind} ${s.folder}/${s.file}`).sort()).toEqual(['file Trips/notes.txt', 'folder Trips/']);
    expect((await fetch(uploadLink)).status).toBe(404);
    expect(pageErrors).toEqual([]);
  });

  it('looks right in English and Czech, light and dark, on a desktop and a phone (screenshots)', async () => {
    for (const lang of ['en', 'cs'] as const) {
      const words = WORDS[lang];
      await page.evaluate((code) => localStorage.setItem('nimbus.language', code), lang);
      await page.goto(`${t.url}/files/ana`);
      const list = page.getByRole('grid', { name: words.files });
      await list.getByText('Trips', { exact: true }).waitFor();

      await list.getByText('Trips', { exact: true }).click({ button: 'right' });
      await page.getByRole('menuitem', { name: words.shareLink }).click();
      const dialog = page.getByRole('dialog');
      await shoot(`folder-dialog-${lang}`, () => dialog.getByRole('region').locator('form').waitFor());
      await dialog.getByRole('button', { name: words.done }).click();
      await dialog.waitFor({ state: 'hidden' });

      await list.getByText('Inbox', { exact: true }).click({ button: 'right' });
      await page.getByRole('menuitem', { name: words.uploadLink }).click();
      await shoot(`upload-dialog-${lang}`, () => dialog.getByRole('region').locator('form').waitFor());
      await dialog.getByRole('button', { name: words.done }).click();
      await dialog.waitFor({ state: 'hidden' });

      // The explorer with a folder selected: its toolbar offers both links; the folders' tags say which they have.
      await list.getByText('Inbox', { exact: true }).click();
      // On a phone the toolbar gives way to the selection bar (its other actions under "More"):
      // wait for what this size shows, not for a button the resize is about to take away.
      await shoot(`explorer-${lang}`, async () => {
        const phone = page.viewportSize()!.width < 600;
        if (phone) await page.getByRole('group', { name: words.selectionBar }).waitFor();
        else await page.getByRole('button', { name: words.uploadLink }).waitFor();
      });
      expect(await list.getByRole('button', { name: words.sharedFolder, exact: true }).count()).toBe(1);

      await page.goto(`${t.url}/shared`);
      const table = page.getByRole('table', { name: words.table });
      const overflows: Record<string, number> = {};
      await shoot(`shared-list-${lang}`, async () => {
        await table.getByRole('rowheader', { name: /^Inbox/ }).waitFor();
        const width = page.viewportSize()!.width;
        overflows[width] = await page.evaluate(() => {
          const scroller = document.querySelector('.shared__scroll')!;
          return scroller.scrollWidth - scroller.clientWidth;
        });
      });
      // Nothing scrolls sideways, on the phone either.
      expect(overflows).toEqual({ 390: 0, 1400: 0 });
    }
    await page.evaluate(() => localStorage.removeItem('nimbus.language'));
    expect(pageErrors).toEqual([]);
  });
});
