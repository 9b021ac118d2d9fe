/**
 * Pictures of storage (issue 13), end to end: the built renderer served by a real daemon, in
 * Debian's Chromium. The admin lands on the Overview: users over and near their quota first,
 * the daemon's totals, and the event stream's activity in words as it happens. A signed-in user
 * sees their storage bar change as files arrive and as one goes to the trash. Screenshots at
 * 1400×900 and 390×844, light and dark, go to test-artifacts/.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { ARTIFACTS_DIR, browserAvailable, ensureRendererBuilt, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { axeFindings } from '../helpers/axe.js';

const runUi = browserAvailable();
const PASSWORD = 'correct horse battery';
const SIZES = { desktop: { width: 1400, height: 900 }, phone: { width: 390, height: 844 } } as const;
const KiB = 1024;

/** axe-core's serious and critical findings inside `selector`. */
const axeProblems = (page: Page, selector: string) => axeFindings(page, selector);

/** Screenshots at both sizes, light and dark; says whether any of them scrolls sideways. */
async function shots(page: Page, name: string): Promise<string[]> {
  const sideways: string[] = [];
  for (const [size, viewport] of Object.entries(SIZES)) {
    await page.setViewportSize(viewport);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({
        path: path.join(ARTIFACTS_DIR, `overview-${name}-${size}-${scheme}.png`),
        animations: 'disabled',
        caret: 'hide',
      });
    }
    if (await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth)) sideways.push(size);
  }
  await page.setViewportSize(SIZES.desktop);
  await page.emulateMedia({ colorScheme: 'light' });
  return sideways;
}

describe.skipIf(!runUi)('pictures of storage (Chromium, real daemon)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let admin: Page;
  const pageErrors: string[] = [];

  const usageOf = async (username: string) =>
    (await t.api('GET', '/api/usage', { username })).body as { usage: { usedBytes: number; trashBytes: number; overQuota: boolean } };

  beforeAll(async () => {
    await ensureRendererBuilt();
    await mkdir(ARTIFACTS_DIR, { recursive: true });
    t = await startTestDaemon();
    const role = await t.api('POST', '/api/role/create', { name: 'small', maxStorage: '1', badge: `${t.url}/nimbus.svg` });
    expect(role.status).toBe(201);
    for (const username of ['ana', 'near', 'over', 'carl', 'dora', 'emil', 'fay']) {
      expect((await t.api('POST', '/api/user/create', { username, email: `${username}@example.com`, password: PASSWORD })).status).toBe(
        201,
      );
    }
    for (const username of ['near', 'over', 'carl'])
      expect((await t.api('POST', '/api/user/role', { username, name: 'small' })).status).toBe(201);
    await upload(t, 'near', 'almost.bin', Buffer.alloc(900 * KiB, 1));
    await upload(t, 'carl', 'half.bin', Buffer.alloc(500 * KiB, 2));
    await upload(t, 'dora', 'notes.txt', 'dora’s notes\n');
    // Files dropped in from outside cannot be refused: "over" ends up over the quota.
    await writeFile(path.join(t.storageDir, 'over', 'dropped.bin'), Buffer.alloc(1536 * KiB, 3));
    await vi.waitFor(async () => expect((await usageOf('over')).usage.overQuota).toBe(true), { timeout: 10_000, interval: 100 });

    browser = await launchBrowser();
    admin = browser.context.pages()[0] ?? (await browser.context.newPage());
    admin.on('pageerror', (error) => pageErrors.push(error.message));
    await admin.setViewportSize(SIZES.desktop);
    await admin.goto(`${t.url}/#key=${t.key}`);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lands the admin on the Overview: users over and near their quota first, and the totals', async () => {
    await admin.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    const list = admin.getByRole('list', { name: 'Users, fullest first' });
    await list.waitFor();
    const order = await list.locator('li').evaluateAll((items) => items.map((item) => item.getAttribute('data-username')));
    expect(order.slice(0, 3)).toEqual(['over', 'near', 'carl']);
    expect(await list.locator('[data-username="over"]').getByText('Over quota').count()).toBe(1);
    expect(await list.locator('[data-username="near"]').getByText('Almost full').count()).toBe(1);
    await expect.poll(() => admin.locator('[data-total="users"] dd').textContent()).toBe('7');
    expect(await admin.getByText('1 user over their quota').count()).toBe(1);
    expect(await axeProblems(admin, '.overview')).toEqual([]);
    await admin.emulateMedia({ colorScheme: 'dark' });
    expect(await axeProblems(admin, '.overview')).toEqual([]);
    await admin.emulateMedia({ colorScheme: 'light' });
  });

  it('tells what happens as it happens, in words', async () => {
    await admin.getByText('Live', { exact: true }).waitFor();
    await upload(t, 'ana', 'report.pdf', '%PDF-1.4 a report\n');
    await admin.getByText('ana added report.pdf').waitFor();
    await expect
      .poll(() => admin.getByRole('img', { name: /events? in the last 10 minutes/ }).getAttribute('aria-label'))
      .toMatch(/^[1-9]\d* events? /);
    expect(await shots(admin, 'admin')).toEqual([]);
  });

  it('speaks Czech when chosen', async () => {
    await admin.evaluate(() => localStorage.setItem('nimbus.language', 'cs'));
    await admin.reload();
    await admin.getByRole('heading', { name: 'Přehled', level: 1 }).waitFor();
    await admin.getByText('1 uživatel nad kvótou').waitFor();
    await admin.screenshot({ path: path.join(ARTIFACTS_DIR, 'overview-admin-cs-desktop-light.png'), animations: 'disabled' });
    await admin.evaluate(() => localStorage.setItem('nimbus.language', 'en'));
    await admin.reload();
    await admin.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  });

  it('filters the users and opens one’s files, whose header shows files, trash and free space', async () => {
    await admin.getByRole('searchbox', { name: 'Filter users' }).fill('dor');
    const list = admin.getByRole('list', { name: 'Users, fullest first' });
    await expect.poll(() => list.locator('li').count()).toBe(1);
    await list.getByRole('button', { name: 'dora' }).click();
    await admin.getByRole('heading', { name: 'dora', level: 1 }).waitFor();
    const bar = admin.locator('.user-header').getByRole('img', { name: /in files/ });
    await bar.waitFor();
    expect(await bar.getAttribute('aria-label')).toMatch(/^\d+ B in files, 0 B in the trash, 128 MiB free of 128 MiB$/);
    expect(await shots(admin, 'admin-user')).toEqual([]);
  });

  it('shows a user their storage bar: it grows with an upload, and a delete moves bytes to the trash part', async () => {
    const page = await browser.context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.setViewportSize(SIZES.desktop);
    await page.goto(t.url);
    await page.getByLabel('Username').fill('ana');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const usage = page.getByRole('region', { name: 'Storage' });
    const quota = usage.getByRole('img', { name: /in files/ });
    await quota.waitFor();
    await upload(t, 'ana', 'photo.jpg', Buffer.alloc(300 * KiB, 4));
    await upload(t, 'ana', 'song.mp3', Buffer.alloc(200 * KiB, 5));
    await expect.poll(() => quota.getAttribute('aria-label')).toMatch(/^500 KiB in files, 0 B in the trash/);
    const kinds = usage.getByRole('img', { name: /Files by kind/ });
    expect(await kinds.getAttribute('aria-label')).toMatch(/Images 300 KiB, Documents \d+ B, Audio and video 200 KiB, Other 0 B/);
    expect(await axeProblems(page, '.storage-usage')).toEqual([]);
    expect(await shots(page, 'user-files')).toEqual([]);

    // A delete goes to the trash: the bytes still count, in the trash's part of the bar.
    expect((await t.api('POST', '/api/files/delete', { username: 'ana', file: 'photo.jpg' })).status).toBe(200);
    await expect.poll(() => quota.getAttribute('aria-label')).toMatch(/^200 KiB in files, 300 KiB in the trash/);
    expect(await quota.locator('[data-part="trash"]').count()).toBe(1);
    expect((await usageOf('ana')).usage.trashBytes).toBe(300 * KiB);
    expect(await shots(page, 'user-trash')).toEqual([]);
    // On a phone the storage picture is in the menu's drawer.
    await page.setViewportSize(SIZES.phone);
    await page.getByRole('button', { name: 'Open the menu' }).click();
    await usage.getByRole('img', { name: /in files/ }).waitFor();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: path.join(ARTIFACTS_DIR, `overview-user-drawer-phone-${scheme}.png`), animations: 'disabled' });
      expect(await axeProblems(page, '.storage-usage')).toEqual([]);
    }
    await page.close();
    expect(pageErrors).toEqual([]);
  });
});
