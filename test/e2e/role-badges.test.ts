/**
 * Role badges (issue 29, item 6) in Chromium against a real daemon: a fresh install's pages load
 * nothing from another host; an admin gives a role a built-in badge, then an uploaded PNG, and
 * sees each beside the user on the users list; None shows no image. Screenshots of the role
 * dialog at 1400×900, 800×600 and 390×844, light and dark, English and Czech, go to
 * NIMBUS_SHOTS_DIR (else a temp folder); axe-core checks the dialog.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, browserAvailable, ensureRendererBuilt, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { axeProblems } from '../helpers/ui-shell.js';

const runUi = browserAvailable();
const PASSWORD = 'correct horse battery';
const SHOTS_DIR = path.join(ARTIFACTS_DIR, 'role-badges');
const SIZES = { desktop: { width: 1400, height: 900 }, small: { width: 800, height: 600 }, phone: { width: 390, height: 844 } } as const;

describe.skipIf(!runUi)('role badges (Chromium, real daemon)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  const requests: string[] = [];
  const offOrigin = () => requests.filter((url) => /^https?:/.test(url) && new URL(url).origin !== new URL(t.url).origin);
  /** Ana's row on the users list, and the badge image in it (none when her role has no badge). */
  const anaRow = () => page.getByRole('navigation', { name: 'Users and settings' }).getByRole('button', { name: /^ana/ });
  const anaBadge = () => anaRow().locator('img');
  const roleDialog = () => page.getByRole('dialog', { name: /role/i });
  const editGold = async () => {
    await page.getByRole('button', { name: 'Edit role gold' }).click();
    await roleDialog().waitFor();
  };
  const save = async () => {
    await roleDialog().getByRole('button', { name: 'Save changes' }).click();
    await roleDialog().waitFor({ state: 'detached' });
  };
  const storedBadge = async () => (await t.api('GET', '/api/role', { name: 'gold' })).body.badge as string;

  beforeAll(async () => {
    await ensureRendererBuilt();
    await mkdir(SHOTS_DIR, { recursive: true });
    t = await startTestDaemon();
    for (const username of ['ada', 'ana']) {
      const created = await t.api('POST', '/api/user/create', { username, email: `${username}@example.com`, password: PASSWORD });
      expect(created.status).toBe(201);
    }
    expect((await t.api('POST', '/api/user/role', { username: 'ada', name: 'admin' })).status).toBe(201);
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    // Every request from the first page load on.
    page.on('request', (request) => requests.push(request.url()));
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.setViewportSize(SIZES.desktop);
    await page.goto(t.url);
    await page.getByLabel('Username').fill('ada');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { level: 1 }).first().waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a fresh install’s Roles page loads its badges from this daemon and nothing from another host', async () => {
    await page.getByRole('button', { name: 'Roles' }).click();
    const badges = ['user badge', 'admin badge'].map((name) => page.getByRole('table').getByRole('img', { name }));
    for (const badge of badges) await expect.poll(() => badge.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    expect(offOrigin()).toEqual([]);
  });

  it('an admin creates a role with a built-in badge and sees it beside the user', async () => {
    await page.getByRole('button', { name: 'New role' }).click();
    const dialog = page.getByRole('dialog', { name: 'New role' });
    await dialog.getByLabel('Role name').fill('gold');
    // A new role has no badge until one is picked.
    expect(await dialog.getByRole('radio', { name: 'No badge' }).isChecked()).toBe(true);
    await dialog.getByRole('radio', { name: 'Built-in badge: Star' }).check();
    await dialog.getByRole('button', { name: 'Create role' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await storedBadge()).toBe(`${t.url}/badges/star.svg`);
    expect((await t.api('POST', '/api/user/role', { username: 'ana', name: 'gold' })).status).toBe(201);
    await expect.poll(() => anaBadge().getAttribute('src')).toBe(`${t.url}/badges/star.svg`);
  });

  it('an admin uploads a PNG for the badge: kept by the daemon, shown on the users list', async () => {
    await editGold();
    expect(await roleDialog().getByRole('radio', { name: 'Built-in badge: Star' }).isChecked()).toBe(true);
    const png = await sharp({ create: { width: 48, height: 48, channels: 4, background: '#e0a000' } })
      .png()
      .toBuffer();
    await roleDialog().getByLabel('Upload a picture', { exact: true }).and(page.locator('input[type=file]')).setInputFiles({
      name: 'gold.png',
      mimeType: 'image/png',
      buffer: png,
    });
    await roleDialog().getByRole('img', { name: 'Uploaded badge' }).waitFor();
    expect(await roleDialog().getByRole('radio', { name: 'Upload a picture' }).isChecked()).toBe(true);
    expect(await axeProblems(page)).toEqual([]);
    await shots('uploaded', 'en');
    await save();
    const badge = await storedBadge();
    expect(badge).toMatch(new RegExp(`^${t.url}/badges/uploaded/[0-9a-f]{32}\\.png$`));
    await expect.poll(() => anaBadge().getAttribute('src')).toBe(badge);
    await expect.poll(() => anaBadge().evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(48);
  });

  it('a picture that is no PNG, JPEG or WebP is refused, and said so in the dialog', async () => {
    await editGold();
    await roleDialog()
      .locator('input[type=file]')
      .setInputFiles({ name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') });
    await roleDialog().getByRole('alert').filter({ hasText: 'PNG, JPEG or WebP' }).waitFor();
    await roleDialog().getByRole('button', { name: 'Cancel' }).click();
    await roleDialog().waitFor({ state: 'detached' });
  });

  it('None takes the badge away: the user shows no image', async () => {
    await editGold();
    await roleDialog().getByRole('radio', { name: 'No badge' }).check();
    await save();
    await expect.poll(storedBadge).toBe('');
    await expect.poll(() => anaBadge().count()).toBe(0);
    await expect.poll(() => page.getByRole('row', { name: /gold/ }).locator('img').count()).toBe(0);
  });

  it('the dialog in Czech, and still nothing from another host', async () => {
    await page.evaluate(() => localStorage.setItem('nimbus.language', 'cs'));
    await page.reload();
    await page.getByRole('row', { name: /gold/ }).getByRole('button', { name: 'Upravit roli gold' }).click();
    await page.getByRole('dialog').getByRole('radio', { name: 'Vestavěný odznak: Tým' }).check();
    expect(await axeProblems(page)).toEqual([]);
    await shots('builtin', 'cs');
    await page.evaluate(() => localStorage.removeItem('nimbus.language'));
    expect(offOrigin()).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  /** The open dialog at each size, light and dark. */
  async function shots(name: string, lang: string): Promise<void> {
    const dialog = page.getByRole('dialog');
    for (const [size, viewport] of Object.entries(SIZES)) {
      await page.setViewportSize(viewport);
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await dialog.waitFor();
        await page.screenshot({
          path: path.join(SHOTS_DIR, `role-badge-${name}-${lang}-${size}-${scheme}.png`),
          animations: 'disabled',
          caret: 'hide',
        });
      }
    }
    await page.setViewportSize(SIZES.desktop);
    await page.emulateMedia({ colorScheme: 'light' });
  }
});
