/**
 * Any screen and any of the five languages (issue 13), in real Chromium against a real daemon:
 * at 390×844 no view scrolls sideways, the sidebar is a drawer behind a menu button (focus kept
 * inside, Escape closes and gives the focus back), and what a finger presses is at least 44 px;
 * at 800×600 every column header of the file table is in view. Czech chosen in Settings changes
 * the UI at once and survives a reload; a browser whose language is cs-CZ starts in Czech.
 * Screenshots of each view at 1400×900, 800×600 and 390×844 go to test-artifacts/responsive-*.png.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Page } from 'playwright-core';
import {
  ARTIFACTS_DIR,
  CHROMIUM_PATH,
  browserAvailable,
  ensureRendererBuilt,
  launchBrowser,
  type TestBrowser,
} from '../helpers/browser.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { PASSWORD, axeProblems, seedUsers, signInAs } from '../helpers/ui-shell.js';

const runUi = browserAvailable();
const SIZES = { wide: { width: 1400, height: 900 }, medium: { width: 800, height: 600 }, phone: { width: 390, height: 844 } } as const;
const PHONE = SIZES.phone;

/** How far the page scrolls sideways (0 when it fits). */
const sidewaysScroll = (page: Page) => page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth);

/**
 * The view at each size in both themes, for a person to look at (test-artifacts/). axe-core
 * checks it dark at each size (the light theme is a11y.test.ts's): contrast is where a dark
 * palette goes wrong.
 */
async function shots(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [size, viewport] of Object.entries(SIZES)) {
      await page.setViewportSize(viewport);
      if (scheme === 'dark') expect(await axeProblems(page), `${name} at ${size}, dark`).toEqual([]);
      await page.screenshot({
        path: path.join(ARTIFACTS_DIR, `responsive-${name}-${size}-${scheme}.png`),
        animations: 'disabled',
        caret: 'hide',
      });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(SIZES.wide);
}

describe.skipIf(!runUi)('any screen, any language (Chromium, real daemon)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  const menuButton = () => page.getByRole('button', { name: 'Open the menu' });
  const drawer = () => page.getByRole('dialog', { name: /.+/ }).filter({ has: page.getByRole('navigation') });

  beforeAll(async () => {
    await ensureRendererBuilt();
    await mkdir(ARTIFACTS_DIR, { recursive: true });
    t = await startTestDaemon();
    await seedUsers(t);
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.setViewportSize(SIZES.wide);
    await signInAs(page, t.url, 'ana');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Opens a place of the user's window at phone size, through the drawer. */
  async function openPlace(name: string): Promise<void> {
    await menuButton().click();
    await drawer().getByRole('button', { name, exact: true }).click();
    await drawer().waitFor({ state: 'hidden' });
  }

  it('at 390×844 the sidebar is a drawer: focus goes in and stays, Escape closes it and gives the focus back', async () => {
    await page.setViewportSize(PHONE);
    await menuButton().waitFor();
    await page.getByRole('navigation', { name: 'Your account' }).waitFor({ state: 'hidden' });
    expect(await menuButton().getAttribute('aria-expanded')).toBe('false');
    await menuButton().click();
    await drawer().waitFor();
    expect(await menuButton().getAttribute('aria-expanded')).toBe('true');
    // The current place has the focus; Tab and Shift+Tab never leave the drawer.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-current'))).toBe('page');
    const inDrawer = () =>
      page.evaluate(() => Boolean(document.activeElement?.closest('.shell__drawer')) && document.activeElement !== document.body);
    for (let i = 0; i < 12; i += 1) {
      await page.keyboard.press('Tab');
      expect(await inDrawer()).toBe(true);
    }
    for (let i = 0; i < 12; i += 1) {
      await page.keyboard.press('Shift+Tab');
      expect(await inDrawer()).toBe(true);
    }
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'responsive-drawer-phone.png'), animations: 'disabled', caret: 'hide' });
    await page.keyboard.press('Escape');
    await drawer().waitFor({ state: 'hidden' });
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Open the menu');
    // While closed, nothing in it takes the focus.
    expect(await page.locator('.shell__drawer[inert]').count()).toBe(1);
  });

  it('at 390×844 no view scrolls sideways, and buttons, places and rows are at least 44 px', async () => {
    await page.setViewportSize(PHONE);
    const targets = async (selector: string) =>
      page.locator(selector).evaluateAll((elements) =>
        elements
          .map((element) => element.getBoundingClientRect())
          .filter((rect) => rect.width > 0)
          .map((rect) => Math.min(rect.width, rect.height)),
      );
    for (const place of ['Shared by me', 'Trash', 'Settings', 'My files']) {
      await openPlace(place);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      expect(await sidewaysScroll(page), place).toBeLessThanOrEqual(0);
    }
    await page.getByRole('grid').getByText('beach.png', { exact: true }).waitFor();
    expect(Math.min(...(await targets('.shell__menu')))).toBeGreaterThanOrEqual(44);
    expect(Math.min(...(await targets('[role="grid"] [role="row"]:not(:first-child)')))).toBeGreaterThanOrEqual(44);
    await menuButton().click();
    expect(Math.min(...(await targets('.shell__drawer .sidebar__link, .shell__drawer .sidebar__signout')))).toBeGreaterThanOrEqual(44);
    await page.keyboard.press('Escape');
  });

  it('at 800×600 every column header of the file table is in view', async () => {
    await page.setViewportSize(SIZES.medium);
    await page.getByRole('grid').getByText('beach.png', { exact: true }).waitFor();
    const headers = await page.getByRole('columnheader').evaluateAll((cells) =>
      cells.map((cell) => {
        const rect = cell.getBoundingClientRect();
        return { name: cell.textContent?.trim() ?? '', left: rect.left, right: rect.right, width: rect.width };
      }),
    );
    expect(headers.length).toBeGreaterThanOrEqual(3);
    for (const header of headers) {
      expect(header.left, header.name).toBeGreaterThanOrEqual(0);
      expect(header.right, header.name).toBeLessThanOrEqual(800);
      expect(header.width, header.name).toBeGreaterThan(0);
    }
    expect(await sidewaysScroll(page)).toBeLessThanOrEqual(0);
  });

  it('screenshots every view at 1400×900, 800×600 and 390×844', async () => {
    for (const [place, name] of [
      ['My files', 'files'],
      ['Shared by me', 'shared'],
      ['Trash', 'trash'],
      ['Settings', 'settings'],
    ] as const) {
      await page.setViewportSize(SIZES.wide);
      await page.getByRole('navigation', { name: 'Your account' }).getByRole('button', { name: place, exact: true }).click();
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await shots(page, `user-${name}`);
    }
    // Another browser: in ana's, a link's key would not replace her session (issue 22), it would ask.
    const adminBrowser = await launchBrowser();
    const admin = adminBrowser.context.pages()[0] ?? (await adminBrowser.context.newPage());
    await admin.setViewportSize(SIZES.wide);
    await admin.goto(`${t.url}/#key=${t.key}`);
    const nav = admin.getByRole('navigation', { name: 'Users and settings' });
    await nav.getByRole('button', { name: 'Overview' }).waitFor();
    await admin.getByRole('heading', { level: 1 }).first().waitFor();
    await shots(admin, 'admin-overview');
    for (const size of [SIZES.wide, SIZES.medium, SIZES.phone]) {
      await admin.setViewportSize(size);
      expect(await sidewaysScroll(admin), `overview at ${size.width}`).toBeLessThanOrEqual(0);
    }
    await admin.setViewportSize(SIZES.wide);
    await nav.getByRole('button', { name: 'ana', exact: true }).click();
    await admin.getByRole('grid').getByText('beach.png', { exact: true }).waitFor();
    await shots(admin, 'admin-user');
    await admin.setViewportSize(SIZES.wide);
    await nav.getByRole('button', { name: 'Roles' }).click();
    await admin.getByRole('table').waitFor();
    await shots(admin, 'admin-roles');
    expect(await sidewaysScroll(admin)).toBeLessThanOrEqual(0);
    await adminBrowser.close();
  });

  it('switches to Czech in Settings at once, and stays in Czech after a reload', async () => {
    await page.setViewportSize(SIZES.wide);
    await page.getByRole('navigation', { name: 'Your account' }).getByRole('button', { name: 'Settings', exact: true }).click();
    await page.getByRole('radio', { name: 'Čeština' }).check();
    await page.getByRole('heading', { name: 'Nastavení', level: 1 }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Váš účet' }).getByRole('button', { name: 'Moje soubory' }).count()).toBe(1);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('cs');
    await shots(page, 'settings-cs');
    await page.reload();
    const nav = page.getByRole('navigation', { name: 'Váš účet' });
    await nav.getByRole('button', { name: 'Moje soubory' }).waitFor();
    await nav.getByRole('button', { name: 'Koš' }).click();
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    await nav.getByRole('button', { name: 'Nastavení' }).click();
    await page.getByRole('radio', { name: 'English' }).check();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
  });

  it('starts in Czech in a browser whose language is cs-CZ', async () => {
    const profile = await mkdtemp(path.join(os.tmpdir(), 'nimbus-chromium-cs-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      locale: 'cs-CZ',
      viewport: SIZES.wide,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--lang=cs-CZ'],
    });
    try {
      const czech = context.pages()[0] ?? (await context.newPage());
      await czech.goto(t.url);
      await czech.getByRole('heading', { name: 'Přihlášení do Nimbusu' }).waitFor();
      expect(await czech.evaluate(() => document.documentElement.lang)).toBe('cs');
      await czech.getByLabel('Uživatelské jméno').fill('bob');
      await czech.getByLabel('Heslo', { exact: true }).fill(PASSWORD);
      await czech.getByRole('button', { name: 'Přihlásit se', exact: true }).click();
      await czech.getByRole('navigation', { name: 'Váš účet' }).getByRole('button', { name: 'Moje soubory' }).waitFor();
      await czech.screenshot({ path: path.join(ARTIFACTS_DIR, 'responsive-cs-browser-wide.png'), animations: 'disabled', caret: 'hide' });
    } finally {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    }
  });

  it('threw nothing', () => {
    expect(pageErrors).toEqual([]);
  });
});
