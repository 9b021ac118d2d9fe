/**
 * Errors in the person's words and language (issue 29, item 4), in Chromium against a real
 * daemon, in Czech: an upload that does not fit the quota is refused before it starts, with what
 * it needs and what is free in the UI's units; when the daemon refuses one anyway (a 507, here
 * because the page was told of more room than there is), the upload panel says the same sentence
 * once — for a plain upload and a resumable (tus) one; a restore onto a taken name adds the Czech
 * word; the Czech search placeholder is whole at every width. Screenshots (1400×900, 800×600,
 * 390×844; light and dark; English and Czech) go to NIMBUS_SHOTS_DIR (else /tmp/words-shots).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, browserAvailable, ensureRendererBuilt, openSignedIn, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { axeProblems } from '../helpers/ui-shell.js';

const runUi = browserAvailable();
const SHOTS = path.join(ARTIFACTS_DIR, 'words');
const PASSWORD = 'correct horse battery';
const MIB = 1024 * 1024;
const SIZES = {
  desktop: { width: 1400, height: 900 },
  laptop: { width: 800, height: 600 },
  phone: { width: 390, height: 844 },
} as const;

/** The words the journey reads and clicks by, in the two languages of the screenshots. */
const WORDS = {
  en: {
    files: /^Files in ana/,
    uploads: 'Uploads',
    noRoom: 'Not enough storage space',
    bigNeeds: '“big backup.bin” needs 4.8 MiB; 4.2 MiB free.',
    copy: 'Restore as a copy',
  },
  cs: {
    files: /^Soubory v ana/,
    uploads: 'Nahrávání',
    noRoom: 'Nedostatek místa v úložišti',
    bigNeeds: '„big backup.bin“ potřebuje 4,8 MiB; volné je 4,2 MiB.',
    copy: 'Obnovit jako kopii',
  },
} as const;

describe.skipIf(!runUi)('errors in the person’s words and language (Chromium, real daemon)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  /** Every upload request the page sends (plain or tus). */
  const uploadsSent: string[] = [];
  let filesDir: string;

  const names = async () =>
    ((await t.api('GET', '/api/files', { username: 'ana' })).body as { files: { name: string }[] }).files.map((file) => file.name).sort();
  /** Picks a file of `bytes` bytes named `name` (written to disk: a large buffer crawls through the protocol). */
  const choose = async (name: string, bytes: number) => {
    const file = path.join(filesDir, name);
    await writeFile(file, Buffer.alloc(bytes, 7));
    await page.getByLabel(/^(Choose files to upload|Vyberte soubory k nahrání)$/).setInputFiles(file);
  };
  /** Makes the page believe the quota has room (usage.get), so the daemon is the one to refuse. */
  const pretendRoom = () =>
    page.route('**/api/usage?**', (route) =>
      route.fulfill({
        json: {
          usage: {
            usedBytes: 0,
            maxBytes: 1024 * MIB,
            overQuota: false,
            fileBytes: 0,
            trashBytes: 0,
            versionBytes: 0,
            fileCount: 0,
            byKind: { images: 0, documents: 0, media: 0, other: 0 },
          },
        },
      }),
    );
  const inLanguage = async (lang: 'en' | 'cs', where = '/files/ana') => {
    await page.evaluate((code) => localStorage.setItem('nimbus.language', code), lang);
    await page.goto(`${t.url}${where}`);
  };

  async function shots(name: string, ready: () => Promise<unknown>): Promise<void> {
    for (const [size, viewport] of Object.entries(SIZES)) {
      await page.setViewportSize(viewport);
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await ready();
        await page.screenshot({ path: path.join(SHOTS, `${name}-${size}-${scheme}.png`), animations: 'disabled', caret: 'hide' });
      }
    }
    await page.setViewportSize(SIZES.desktop);
    await page.emulateMedia({ colorScheme: 'light' });
  }

  beforeAll(async () => {
    await ensureRendererBuilt();
    await mkdir(SHOTS, { recursive: true });
    filesDir = await mkdtemp(path.join(os.tmpdir(), 'words-files-'));
    t = await startTestDaemon();
    expect((await t.api('POST', '/api/role/create', { name: 'small', maxStorage: '20', badge: 'https://example.com/s.png' })).status).toBe(
      201,
    );
    expect((await t.api('POST', '/api/user/create', { username: 'ana', email: 'ana@example.com', password: PASSWORD })).status).toBe(201);
    expect((await t.api('POST', '/api/user/role', { username: 'ana', name: 'small' })).status).toBe(201);
    // 20 MiB less 15.8 MiB: 4.2 MiB free.
    await upload(t, 'ana', 'archive.bin', Buffer.alloc(Math.round(15.8 * MIB)));
    ({ browser, page } = await openSignedIn(t.url, 'ana', PASSWORD, pageErrors));
    await page.getByRole('grid', { name: WORDS.en.files }).waitFor();
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (request.method() === 'POST' && (url.pathname === '/api/files/upload' || url.pathname.startsWith('/api/uploads')))
        uploadsSent.push(url.pathname);
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (filesDir) await rm(filesDir, { recursive: true, force: true });
  });

  it('refuses an upload over the quota before it starts, with what it needs and what is free, in Czech', async () => {
    await inLanguage('cs');
    await page.getByRole('grid', { name: WORDS.cs.files }).waitFor();
    await choose('big backup.bin', Math.round(4.8 * MIB));
    const refusal = page.getByRole('alert').filter({ hasText: WORDS.cs.bigNeeds });
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe(`${WORDS.cs.noRoom}${WORDS.cs.bigNeeds}`);
    expect(uploadsSent).toEqual([]);
    expect(await page.getByRole('region', { name: WORDS.cs.uploads }).count()).toBe(0);
    expect(await names()).toEqual(['archive.bin']);
    expect(await axeProblems(page)).toEqual([]);
    await page.getByRole('button', { name: 'Zavřít oznámení' }).click();
  });

  it('says the daemon’s 507 once, in the same words and in Czech, for a plain and a resumable upload', async () => {
    await pretendRoom();
    try {
      await inLanguage('cs');
      await page.getByRole('grid', { name: WORDS.cs.files }).waitFor();
      await choose('big backup.bin', Math.round(4.8 * MIB));
      const panel = page.getByRole('region', { name: WORDS.cs.uploads });
      const plain = panel.getByRole('alert').filter({ hasText: 'big backup.bin' });
      await plain.waitFor();
      expect(await plain.textContent()).toBe(`${WORDS.cs.noRoom}: ${WORDS.cs.bigNeeds}`);

      await choose('film.mkv', 17 * MIB);
      const resumable = panel.getByRole('alert').filter({ hasText: 'film.mkv' });
      await resumable.waitFor();
      expect(await resumable.textContent()).toBe(`${WORDS.cs.noRoom}: „film.mkv“ potřebuje 17 MiB; volné je 4,2 MiB.`);
      expect(uploadsSent).toEqual(['/api/files/upload', '/api/uploads/']);
      // Said once, where the upload is: no toast, nothing of the daemon's English.
      expect(await page.locator('.toast').count()).toBe(0);
      expect(await page.locator('body').textContent()).not.toMatch(/quota exceeded|Storage quota/i);
      expect(await names()).toEqual(['archive.bin']);
      expect(await axeProblems(page)).toEqual([]);
    } finally {
      await page.unroute('**/api/usage?**');
    }
  });

  it('restores onto a taken name with the Czech word in the brackets', async () => {
    await upload(t, 'ana', 'zpráva.txt', 'stará\n');
    expect((await t.api('POST', '/api/files/delete', { username: 'ana', file: 'zpráva.txt' })).status).toBe(200);
    await upload(t, 'ana', 'zpráva.txt', 'nová\n');
    await inLanguage('cs', '/trash');
    await page.getByRole('button', { name: 'Obnovit zpráva.txt' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('s „(obnoveno)“ v názvu').waitFor();
    expect(await axeProblems(page)).toEqual([]);
    await dialog.getByRole('button', { name: WORDS.cs.copy }).click();
    await page.getByRole('status').filter({ hasText: 'Obnoveno jako „zpráva (obnoveno).txt“' }).waitFor();
    expect(await names()).toContain('zpráva (obnoveno).txt');
    expect((await t.api('GET', '/api/files/download', { username: 'ana', file: 'zpráva (obnoveno).txt' })).text).toBe('stará\n');
  });

  it('shows the whole Czech search placeholder at 1400, 800 and 390 pixels wide', async () => {
    await inLanguage('cs');
    await page.getByRole('grid', { name: WORDS.cs.files }).waitFor();
    for (const viewport of Object.values(SIZES)) {
      await page.setViewportSize(viewport);
      // Below 760 px the toolbar is made anew as the phone's (useCompact): measure the one that stays.
      await page.locator(viewport.width < 760 ? '.toolbar--compact' : '.toolbar:not(.toolbar--compact)').waitFor();
      const search = page.getByRole('searchbox', { name: 'Hledat soubory' });
      await expect.poll(() => search.getAttribute('placeholder')).toBe('Hledat ve všech souborech');
      // The placeholder's width in the input's own font against the room inside its padding.
      const fit = await search.evaluate((input: HTMLInputElement) => {
        const style = getComputedStyle(input);
        const context = document.createElement('canvas').getContext('2d')!;
        context.font = style.font;
        const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return { text: context.measureText(input.placeholder).width, room };
      });
      // clientWidth is whole pixels; the text's width is not: half a pixel of rounding either way.
      expect(fit.text, JSON.stringify({ viewport, fit })).toBeLessThanOrEqual(fit.room + 0.5);
    }
    await page.setViewportSize(SIZES.desktop);
  });

  it('looks right in English and Czech, light and dark, at three sizes (screenshots)', async () => {
    await pretendRoom();
    for (const lang of ['en', 'cs'] as const) {
      const words = WORDS[lang];
      await inLanguage(lang);
      await page.getByRole('grid', { name: words.files }).waitFor();
      await choose('big backup.bin', Math.round(4.8 * MIB));
      const panel = page.getByRole('region', { name: words.uploads });
      await panel.getByRole('alert').filter({ hasText: words.bigNeeds }).waitFor();
      await page.unroute('**/api/usage?**');
      await choose('big backup.bin', Math.round(4.8 * MIB));
      await page.locator('.toast').getByText(words.bigNeeds).waitFor();
      await shots(`words-quota-${lang}`, () => page.locator('.toast').getByText(words.bigNeeds).waitFor());
      await pretendRoom();
    }
    await page.unroute('**/api/usage?**');

    for (const lang of ['en', 'cs'] as const) {
      const words = WORDS[lang];
      await upload(t, 'ana', 'taken.txt', 'old\n', { overwrite: 'true' });
      expect((await t.api('POST', '/api/files/delete', { username: 'ana', file: 'taken.txt' })).status).toBe(200);
      await upload(t, 'ana', 'taken.txt', 'new\n', { overwrite: 'true' });
      await inLanguage(lang, '/trash');
      await page.getByRole('button', { name: lang === 'en' ? 'Restore taken.txt' : 'Obnovit taken.txt' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: words.copy }).waitFor();
      await shots(`words-restore-${lang}`, () => dialog.getByRole('button', { name: words.copy }).waitFor());
      // Beside the sidebar at 800 px every column of the trash is in view (the actions as icons).
      await page.setViewportSize(SIZES.laptop);
      const table = page.locator('.trash__scroll');
      expect(await table.evaluate((scroll) => scroll.scrollWidth - scroll.clientWidth)).toBeLessThanOrEqual(0);
      await page.setViewportSize(SIZES.desktop);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      // Emptied for the next language's item.
      expect((await t.api('POST', '/api/trash/empty', { username: 'ana' })).status).toBe(200);
    }
    await page.evaluate(() => localStorage.removeItem('nimbus.language'));
    expect(pageErrors).toEqual([]);
  });
});
