/**
 * Folder upload and the tree's journey (issue 25): a nested folder dropped from outside the
 * window is uploaded whole (empty folders too, a bad name refused for its file alone), opened
 * three levels down, Back, Forward and reload land there, a subfolder dragged onto a crumb
 * moves there, and the folder downloaded as a zip holds every path. A second drop of names
 * already there asks once for the batch (keep both, replace, skip); the Upload folder picker
 * does the same as a drop. Screenshots of the question at 1400×900 and 390×844, light and
 * dark, and of the upload panel after the drop, go to test-artifacts/folder-upload-*.png.
 *
 * Playwright cannot drag from the real desktop, so the drop is made in the page: the folder is
 * built in Chromium's own sandboxed file system (webkitRequestFileSystem), whose entries are the
 * real FileSystemDirectoryEntry and FileSystemFileEntry a desktop drop gives (the same reader,
 * answering in batches); a real DataTransfer carries them, its `items` answering those entries,
 * the one part a page cannot make by itself.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, browserAvailable, ensureRendererBuilt, openSignedIn, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { readZip } from '../helpers/zip.js';

const runUi = browserAvailable();
const PASSWORD = 'correct horse battery';
const SIZES = { desktop: { width: 1400, height: 900 }, phone: { width: 390, height: 844 } } as const;

/** The dropped folder: a file at each of four levels, an empty folder, and a name the daemon refuses. */
const TRIP: Record<string, string | null> = {
  'trip/a.txt': 'level one\n',
  'trip/bad:name.txt': 'refused\n',
  'trip/day 1/b.txt': 'level two\n',
  'trip/day 1/night/c.txt': 'level three\n',
  'trip/day 1/night/late/d.txt': 'level four\n',
  'trip/empty': null,
};

/**
 * Drops `tree` (path → text, null for an empty folder) on the file list, as a desktop drop of its
 * top folder would: the tree is written to the page's sandboxed file system and its top entry
 * handed over through the drop's items.
 */
async function dropFolder(page: Page, tree: Record<string, string | null>): Promise<void> {
  const target = await page.getByRole('grid', { name: /^Files in ana/ }).elementHandle();
  await page.evaluate(
    async ({ tree, target }) => {
      type Callback<T> = (value: T) => void;
      type Dir = FileSystemDirectoryEntry & {
        getDirectory(path: string, options: object, ok: Callback<Dir>, ko: Callback<unknown>): void;
        getFile(path: string, options: object, ok: Callback<FileEntry>, ko: Callback<unknown>): void;
        removeRecursively(ok: () => void, ko: Callback<unknown>): void;
      };
      type FileEntry = FileSystemFileEntry & {
        createWriter(
          ok: Callback<{ onwriteend: () => void; onerror: Callback<unknown>; write(blob: Blob): void }>,
          ko: Callback<unknown>,
        ): void;
      };
      const request = (window as unknown as { webkitRequestFileSystem: (...args: unknown[]) => void }).webkitRequestFileSystem;
      const fs = await new Promise<{ root: Dir }>((ok, ko) => request(0 /* TEMPORARY */, 1 << 20, ok, ko));
      // A fresh copy each time, under a folder of its own (its top folder is what is dropped).
      const top = Object.keys(tree)[0].split('/')[0];
      const old = await new Promise<Dir | null>((ok) => fs.root.getDirectory(top, {}, ok, () => ok(null)));
      if (old) await new Promise<void>((ok, ko) => old.removeRecursively(ok, ko));
      const dirAt = async (dirPath: string): Promise<Dir> => {
        let dir = fs.root;
        for (const name of dirPath.split('/')) dir = await new Promise<Dir>((ok, ko) => dir.getDirectory(name, { create: true }, ok, ko));
        return dir;
      };
      for (const [entryPath, text] of Object.entries(tree)) {
        if (text === null) {
          await dirAt(entryPath);
          continue;
        }
        const cut = entryPath.lastIndexOf('/');
        const dir = await dirAt(entryPath.slice(0, cut));
        const file = await new Promise<FileEntry>((ok, ko) => dir.getFile(entryPath.slice(cut + 1), { create: true }, ok, ko));
        await new Promise<void>((ok, ko) =>
          file.createWriter((writer) => {
            writer.onwriteend = ok;
            writer.onerror = ko;
            writer.write(new Blob([text]));
          }, ko),
        );
      }
      const entry = await dirAt(top);
      const transfer = new DataTransfer();
      transfer.items.add(new File([], top));
      const item = { kind: 'file', type: '', webkitGetAsEntry: () => entry, getAsFile: () => null };
      Object.defineProperty(transfer, 'items', { value: Object.assign([item], { length: 1 }) });
      const element = target as Element;
      for (const type of ['dragenter', 'dragover', 'drop']) {
        element.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: transfer }));
      }
    },
    { tree, target },
  );
}

describe.skipIf(!runUi)('folder upload and the tree journey (Chromium, real daemon, signed-in user)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  let pickedDir: string;
  const pageErrors: string[] = [];
  const grid = () => page.getByRole('grid', { name: /^Files in ana/ });
  const row = (name: string) => grid().getByText(name, { exact: true });
  const crumbs = () => page.getByRole('navigation', { name: 'Breadcrumb' });
  const here = () => decodeURIComponent(new URL(page.url()).pathname);
  const uploads = () => page.getByRole('region', { name: 'Uploads' });
  const showing = async (name: string, trail: string[]) => {
    await row(name).waitFor();
    await expect.poll(() => crumbs().locator('li').allTextContents()).toEqual(trail);
  };
  const filesIn = async (folder: string) =>
    ((await t.api('GET', '/api/folders/files', { username: 'ana', folder })).body as { files: { name: string }[] }).files
      .map((file) => file.name)
      .sort();
  const foldersIn = async (folder: string) =>
    ((await t.api('GET', '/api/folders', { username: 'ana', folder })).body as { folders: { name: string }[] }).folders
      .map((entry) => entry.name)
      .sort();
  const clearUploads = async () => {
    await uploads().getByRole('button', { name: 'Clear' }).click();
    await uploads().waitFor({ state: 'detached' });
  };

  beforeAll(async () => {
    await ensureRendererBuilt();
    await mkdir(ARTIFACTS_DIR, { recursive: true });
    pickedDir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-picked-'));
    t = await startTestDaemon();
    const created = await t.api('POST', '/api/user/create', { username: 'ana', email: 'ana@example.com', password: PASSWORD });
    expect(created.status).toBe(201);
    await upload(t, 'ana', 'root.txt', 'at the root\n');
    ({ browser, page } = await openSignedIn(t.url, 'ana', PASSWORD, pageErrors));
    await row('root.txt').waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (pickedDir) await rm(pickedDir, { recursive: true, force: true });
  });

  it('uploads a nested folder dropped from outside the window, empty folders too, a bad name refused alone', async () => {
    await dropFolder(page, TRIP);
    await row('trip').waitFor();
    // Per file and a total; the refused name is named with its reason, the rest went up.
    await uploads().getByText('4 of 4 files', { exact: false }).waitFor();
    expect(await filesIn('trip')).toEqual(['a.txt']);
    expect(await filesIn('trip/day 1')).toEqual(['b.txt']);
    expect(await filesIn('trip/day 1/night')).toEqual(['c.txt']);
    expect(await filesIn('trip/day 1/night/late')).toEqual(['d.txt']);
    expect(await foldersIn('trip')).toEqual(['day 1', 'empty']);
    await uploads()
      .getByText(/Invalid file name/)
      .waitFor();
    // One toast for the batch's refused names, not one per file.
    const refused = page.getByRole('alert').filter({ hasText: '1 item was not uploaded' });
    await refused.waitFor();
    await refused.getByRole('button', { name: 'Dismiss notification' }).click();
    expect(await uploads().getByRole('progressbar', { name: 'Upload of c.txt' }).getAttribute('aria-valuenow')).toBe('100');
    await page.screenshot({
      path: path.join(ARTIFACTS_DIR, 'folder-upload-panel-desktop-light.png'),
      animations: 'disabled',
      caret: 'hide',
    });
    await clearUploads();
  });

  it('opens it three levels down; Back, Forward and reload land on the same level', async () => {
    await row('trip').dblclick();
    await showing('a.txt', ['ana', 'trip']);
    await row('day 1').dblclick();
    await showing('b.txt', ['ana', 'trip', 'day 1']);
    await row('night').dblclick();
    await showing('c.txt', ['ana', 'trip', 'day 1', 'night']);
    expect(here()).toBe('/files/ana/trip/day 1/night');
    await page.goBack();
    await showing('b.txt', ['ana', 'trip', 'day 1']);
    await page.goForward();
    await showing('c.txt', ['ana', 'trip', 'day 1', 'night']);
    await page.reload();
    await showing('c.txt', ['ana', 'trip', 'day 1', 'night']);
    expect(here()).toBe('/files/ana/trip/day 1/night');
  });

  it('moves a subfolder dragged onto a crumb above into that folder', async () => {
    await showing('late', ['ana', 'trip', 'day 1', 'night']);
    await row('late').dragTo(crumbs().getByRole('button', { name: 'trip' }));
    await expect.poll(() => foldersIn('trip')).toEqual(['day 1', 'empty', 'late']);
    expect(await foldersIn('trip/day 1/night')).toEqual([]);
    await row('late').waitFor({ state: 'detached' });
    expect(await filesIn('trip/late')).toEqual(['d.txt']);
  });

  it('downloads the folder as a zip holding every path of its tree', async () => {
    await crumbs().getByRole('button', { name: 'ana' }).click();
    await row('trip').click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download as zip', exact: true }).click(),
    ]);
    const url = new URL(download.url());
    expect(url.pathname).toBe('/api/folders/download');
    const entries = await readZip(await readFile((await download.path())!));
    const files = entries.filter((entry) => !entry.name.endsWith('/')).map((entry) => entry.name);
    expect(files.sort()).toEqual(['trip/a.txt', 'trip/day 1/b.txt', 'trip/day 1/night/c.txt', 'trip/late/d.txt']);
  });

  it('asks once for a batch whose names are taken, and keeps both, replaces or skips them all', async () => {
    const again = { ...TRIP, 'trip/a.txt': 'second copy\n', 'trip/day 1/b.txt': 'second copy\n', 'trip/new.txt': 'new\n' };
    // Closing the question uploads nothing of the batch, and makes no folder.
    await dropFolder(page, again);
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(await filesIn('trip')).toEqual(['a.txt']);
    expect(await foldersIn('trip/day 1/night')).toEqual([]);
    await dropFolder(page, again);
    // a.txt, b.txt and c.txt are taken; late/d.txt moved away, so it goes up as new.
    const question = page.getByRole('dialog', { name: '3 files with these names are already there' });
    await question.waitFor();
    await question.getByText('trip/day 1/b.txt').waitFor();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [size, viewport] of Object.entries(SIZES)) {
        await page.setViewportSize(viewport);
        await page.screenshot({
          path: path.join(ARTIFACTS_DIR, `folder-upload-conflict-${size}-${scheme}.png`),
          animations: 'disabled',
          caret: 'hide',
        });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize(SIZES.desktop);
    // Keep both has the focus: Enter loses nothing.
    await page.keyboard.press('Enter');
    await question.waitFor({ state: 'detached' });
    await expect.poll(() => filesIn('trip')).toEqual(['a (2).txt', 'a.txt', 'new.txt']);
    await expect.poll(() => filesIn('trip/day 1')).toEqual(['b (2).txt', 'b.txt']);
    expect(await filesIn('trip/day 1/night')).toEqual(['c (2).txt', 'c.txt']);
    await expect.poll(() => filesIn('trip/day 1/night/late')).toEqual(['d.txt']);
    await uploads()
      .getByText(/^\d+ of \d+ files/)
      .waitFor();
    await clearUploads().catch(() => undefined);

    await dropFolder(page, { ...again, 'trip/a.txt': 'third copy\n' });
    await page.getByRole('dialog').getByRole('button', { name: 'Replace' }).click();
    await expect
      .poll(async () => (await t.api('GET', '/api/files/download', { username: 'ana', folder: 'trip', file: 'a.txt' })).text)
      .toBe('third copy\n');
    expect(await filesIn('trip')).toEqual(['a (2).txt', 'a.txt', 'new.txt']);

    await dropFolder(page, { ...again, 'trip/a.txt': 'fourth copy\n', 'trip/skip-new.txt': 'only this\n' });
    await page.getByRole('dialog').getByRole('button', { name: 'Skip' }).click();
    await expect.poll(() => filesIn('trip')).toEqual(['a (2).txt', 'a.txt', 'new.txt', 'skip-new.txt']);
    expect((await t.api('GET', '/api/files/download', { username: 'ana', folder: 'trip', file: 'a.txt' })).text).toBe('third copy\n');
  });

  it('uploads a folder chosen with the Upload folder picker as a drop does', async () => {
    await uploads()
      .getByRole('button', { name: 'Clear' })
      .click()
      .catch(() => undefined);
    const album = path.join(pickedDir, 'album');
    await mkdir(path.join(album, '2024', 'june'), { recursive: true });
    await writeFile(path.join(album, 'cover.txt'), 'cover\n');
    await writeFile(path.join(album, '2024', 'year.txt'), 'year\n');
    await writeFile(path.join(album, '2024', 'june', 'beach.txt'), 'beach\n');
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Upload folder' }).click();
    await (await chooser).setFiles(album);
    await row('album').waitFor();
    await expect.poll(() => filesIn('album/2024/june')).toEqual(['beach.txt']);
    expect(await filesIn('album')).toEqual(['cover.txt']);
    expect(await filesIn('album/2024')).toEqual(['year.txt']);
    expect(pageErrors).toEqual([]);
  });
});
