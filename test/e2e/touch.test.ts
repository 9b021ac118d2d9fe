/**
 * Touch on a phone (issue 29, item 1), in real Chromium with a touch screen (hasTouch, isMobile,
 * 390×844) against a real daemon: a tap on a folder opens it, a tap on an image previews it, a
 * long press selects (the selection bar appears, no menu, nothing opens) and then taps toggle;
 * every button of the toolbar and of the selection bar has an accessible name holding the words
 * it shows, at least 44 px; axe-core finds nothing serious. Screenshots of the toolbar and of
 * selection mode, light and dark, English and Czech: test-artifacts/touch-{toolbar,selection}-{en,cs}-{light,dark}.png
 * (and touch-selection-one-en-light.png: one file selected, Share among the actions).
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { ARTIFACTS_DIR, CHROMIUM_PATH, browserAvailable, ensureRendererBuilt } from '../helpers/browser.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { PASSWORD, axeProblems, seedUsers } from '../helpers/ui-shell.js';

const runUi = browserAvailable();
const PHONE = { width: 390, height: 844 };
const LONG_PRESS_HOLD_MS = 800;

interface Phone {
  browser: Browser;
  context: BrowserContext;
  page: Page;
}

/** A phone: Chromium with a touch screen at 390×844 in `locale`, signed in as ana (the form found by its fields, in any language). */
async function openPhone(url: string, locale: string, pageErrors: string[]): Promise<Phone> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', `--lang=${locale}`],
  });
  const context = await browser.newContext({ viewport: PHONE, hasTouch: true, isMobile: true, locale });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(url);
  await page.locator('input[autocomplete="username"]').fill('ana');
  await page.locator('input[autocomplete="current-password"]').fill(PASSWORD);
  await page.locator('button[type="submit"]').tap();
  await page.getByRole('grid').getByText('beach.png', { exact: true }).waitFor();
  return { browser, context, page };
}

/** A finger held on the middle of `target` for LONG_PRESS_HOLD_MS, then lifted (Playwright's touchscreen only taps). */
async function longPress(phone: Phone, target: Locator): Promise<void> {
  const box = await target.boundingBox();
  if (!box) throw new Error('nothing to press');
  const point = { x: box.x + Math.min(box.width / 3, 120), y: box.y + box.height / 2 };
  const cdp = await phone.context.newCDPSession(phone.page);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [point] });
  await phone.page.waitForTimeout(LONG_PRESS_HOLD_MS);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

/** The list's row that shows `name`. */
const rowOf = (page: Page, name: string) => page.getByRole('row').filter({ has: page.getByText(name, { exact: true }) });

/**
 * Each button of the toolbar and the selection bar: its accessible name (Chromium's own, from
 * the accessibility tree), the words it shows, and its smaller side in pixels.
 */
async function toolButtons(page: Page): Promise<{ name: string; shown: string; size: number }[]> {
  const buttons = page.locator('.toolbar button, .selection-bar button');
  const found: { name: string; shown: string; size: number }[] = [];
  for (const button of await buttons.all()) {
    if (!(await button.isVisible())) continue;
    const snapshot = await button.ariaSnapshot();
    // `- button "Name" [pressed]` → Name
    const name = /^- button "(.*?)"/.exec(snapshot)?.[1] ?? /^- button (\S.*?)(?: \[|$)/.exec(snapshot)?.[1] ?? '';
    const shown = (await button.innerText()).replace(/\s+/g, ' ').trim();
    const box = (await button.boundingBox())!;
    found.push({ name, shown, size: Math.min(box.width, box.height) });
  }
  return found;
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS_DIR, `${name}.png`), animations: 'disabled', caret: 'hide' });
}

describe.skipIf(!runUi)('touch on a phone (Chromium with a touch screen, real daemon)', () => {
  let t: TestDaemon;
  let phone: Phone;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    await ensureRendererBuilt();
    await mkdir(ARTIFACTS_DIR, { recursive: true });
    t = await startTestDaemon();
    await seedUsers(t);
    phone = await openPhone(t.url, 'en-US', pageErrors);
  }, 120_000);

  afterAll(async () => {
    await phone?.browser.close();
    await t?.close();
  });

  it('opens a folder with a tap, and the way back is a tap on the breadcrumb', async () => {
    const { page } = phone;
    await rowOf(page, 'Photos').tap();
    await page.getByRole('grid').getByText('inside.txt', { exact: true }).waitFor();
    expect(await page.getByRole('navigation', { name: /.+/ }).filter({ hasText: 'Photos' }).count()).toBeGreaterThan(0);
    await page.locator('.toolbar').getByRole('button', { name: 'ana', exact: true }).tap();
    await page.getByRole('grid').getByText('beach.png', { exact: true }).waitFor();
    expect(await page.locator('[role="row"][aria-selected="true"]').count()).toBe(0);
  });

  it('previews an image with a tap, and nothing is selected after', async () => {
    const { page } = phone;
    await rowOf(page, 'beach.png').tap();
    const preview = page.getByRole('dialog', { name: 'beach.png' });
    await preview.waitFor();
    await preview.locator('img').first().waitFor();
    await preview.getByRole('button', { name: 'Close preview' }).tap();
    await preview.waitFor({ state: 'hidden' });
    expect(await page.locator('[role="row"][aria-selected="true"]').count()).toBe(0);
    expect(await page.locator('.selection-bar').count()).toBe(0);
  });

  it('selects with a long press (the selection bar appears, no menu opens), then taps toggle', async () => {
    const { page } = phone;
    await longPress(phone, rowOf(page, 'notes.txt'));
    const bar = page.getByRole('group', { name: 'Selection' });
    await bar.waitFor();
    expect(await rowOf(page, 'notes.txt').getAttribute('aria-selected')).toBe('true');
    expect(await bar.getByRole('status').innerText()).toBe('1 selected');
    expect(await page.getByRole('menu').count()).toBe(0);
    expect(await page.getByRole('dialog').count()).toBe(0);
    // In selection mode a tap toggles, even on a folder or an image.
    await rowOf(page, 'Photos').tap();
    await rowOf(page, 'beach.png').tap();
    await expect.poll(() => bar.getByRole('status').innerText()).toBe('3 selected');
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await page.getByRole('grid').getByText('inside.txt', { exact: true }).count()).toBe(0);
    await rowOf(page, 'Photos').tap();
    await expect.poll(() => bar.getByRole('status').innerText()).toBe('2 selected');
    // "More" is the context menu for the whole selection.
    await bar.getByRole('button', { name: 'More' }).tap();
    const menu = page.getByRole('menu');
    await menu.waitFor();
    expect(await menu.getByRole('menuitem', { name: 'Download as zip' }).count()).toBe(1);
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'hidden' });
    await bar.getByRole('button', { name: 'Clear selection' }).tap();
    await bar.waitFor({ state: 'hidden' });
    // Out of selection mode, a tap opens again.
    await rowOf(page, 'Photos').tap();
    await page.getByRole('grid').getByText('inside.txt', { exact: true }).waitFor();
    await page.locator('.toolbar').getByRole('button', { name: 'ana', exact: true }).tap();
    await page.getByRole('grid').getByText('beach.png', { exact: true }).waitFor();
  });

  it('labels every button of the toolbar and the selection bar with the words it shows, each at least 44 px', async () => {
    const { page } = phone;
    await longPress(phone, rowOf(page, 'beach.png'));
    await page.getByRole('group', { name: 'Selection' }).waitFor();
    const buttons = await toolButtons(page);
    const shown = buttons.map((button) => button.shown);
    for (const word of ['List', 'Grid', 'New folder', 'Upload folder', 'Upload', 'Download', 'Share', 'Move', 'Delete', 'More']) {
      expect(shown).toContain(word);
    }
    for (const button of buttons) {
      expect(button.name, JSON.stringify(button)).not.toBe('');
      expect(button.name.toLowerCase(), JSON.stringify(button)).toContain(button.shown.toLowerCase());
      expect(button.size, JSON.stringify(button)).toBeGreaterThanOrEqual(44);
    }
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    expect(await axeProblems(page)).toEqual([]);
    await shot(page, 'touch-selection-one-en-light');
    await page.getByRole('button', { name: 'Clear selection' }).tap();
  });

  it('screenshots the toolbar and selection mode at 390×844, light and dark, in English and Czech', async () => {
    const czech = await openPhone(t.url, 'cs-CZ', pageErrors);
    try {
      for (const [lang, current, selected] of [
        ['en', phone, '2 selected'],
        ['cs', czech, 'Vybrány 2 položky'],
      ] as const) {
        const { page } = current;
        for (const scheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          await shot(page, `touch-toolbar-${lang}-${scheme}`);
          await longPress(current, rowOf(page, 'beach.png'));
          await rowOf(page, 'notes.txt').tap();
          const bar = page.locator('.selection-bar');
          await expect.poll(() => bar.getByRole('status').innerText()).toBe(selected);
          expect(await axeProblems(page)).toEqual([]);
          await shot(page, `touch-selection-${lang}-${scheme}`);
          await bar.locator('.selection-bar__clear').tap();
          await bar.waitFor({ state: 'hidden' });
        }
      }
      // Czech words are longer: the tiles still fit the phone's width.
      expect(await czech.page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    } finally {
      await czech.browser.close();
    }
  });

  it('threw nothing', () => {
    expect(pageErrors).toEqual([]);
  });
});
