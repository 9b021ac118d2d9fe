/**
 * Issue 29, items 3 and 5, in real Chromium against a real daemon. Toasts: errors stack in the
 * main pane's strip, clear of every control ("Change password" in Settings stays visible and
 * clickable) at 1400×900, 800×600 and 390×844, and stay until dismissed; a success toast leaves
 * by itself. Inline rename: the validation message is whole and above no other row; a taken
 * name keeps what was typed in the editor, with the reason. In English and Czech (longer
 * strings), light and dark: screenshots in test-artifacts/toasts-rename-*.png.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import {
  ARTIFACTS_DIR,
  REPO_ROOT,
  browserAvailable,
  ensureRendererBuilt,
  launchBrowser,
  layoutSettled,
  overlaps,
  type Box,
  type TestBrowser,
} from '../helpers/browser.js';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { PASSWORD, axeProblems, signInAs } from '../helpers/ui-shell.js';

const runUi = browserAvailable();
const SIZES = [
  { width: 1400, height: 900 },
  { width: 800, height: 600 },
  { width: 390, height: 844 },
];
const LANGUAGES = ['en', 'cs'] as const;
type Lang = (typeof LANGUAGES)[number];

/** The part of `box` inside `within`, or null. */
function clip(box: Box, within: Box): Box | null {
  const x = Math.max(box.x, within.x);
  const y = Math.max(box.y, within.y);
  const right = Math.min(box.x + box.width, within.x + within.width);
  const bottom = Math.min(box.y + box.height, within.y + within.height);
  return right > x && bottom > y ? { x, y, width: right - x, height: bottom - y } : null;
}

/** The UI's strings of one language, read from the locale files the build bundles. */
async function stringsOf(lang: Lang) {
  const read = async (ns: string) =>
    JSON.parse(await readFile(path.join(REPO_ROOT, 'renderer', 'i18n', 'locales', lang, `${ns}.json`), 'utf8')) as Record<
      string,
      Record<string, string>
    >;
  const [settings, explorer, errors] = await Promise.all([read('settings'), read('explorer'), read('errors')]);
  return {
    settingsTitle: settings.title as unknown as string,
    emailTitle: settings.email.title,
    newEmail: settings.email.new,
    currentPassword: settings.password.current,
    changeEmail: settings.email.change,
    changePassword: settings.password.submit,
    renameLabel: (name: string) => explorer.rename.label.replace('{{name}}', name),
    fileExists: errors.code.file_exists,
  };
}

/** Light and dark screenshots of the page as it is, at its current size. */
async function snap(page: Page, name: string): Promise<void> {
  const size = page.viewportSize()!;
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const file = `toasts-rename-${name}-${size.width}x${size.height}-${scheme}.png`;
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, file), animations: 'disabled', caret: 'hide' });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Every control of the main pane in view, outside the toasts: what a toast must never lie over. */
async function controlsInView(page: Page): Promise<{ name: string; box: Box }[]> {
  return page.evaluate(() => {
    const found: { name: string; box: Box }[] = [];
    const selector = 'button, input, select, textarea, a[href], [role="radio"], [tabindex="0"]';
    for (const element of document.querySelectorAll<HTMLElement>(`main :is(${selector})`)) {
      if (element.closest('.toasts')) continue;
      const rect = element.getBoundingClientRect();
      // Inside its scrolling view (what is scrolled out of sight is not covered by anything).
      const scroller = element.closest('.settings__scroll, .ft, .fg');
      const clip = scroller ? scroller.getBoundingClientRect() : { top: 0, bottom: innerHeight, left: 0, right: innerWidth };
      const top = Math.max(rect.top, clip.top);
      const bottom = Math.min(rect.bottom, clip.bottom, innerHeight);
      if (rect.width === 0 || bottom - top <= 0) continue;
      const name = element.getAttribute('aria-label') ?? element.textContent?.trim() ?? element.tagName;
      found.push({ name, box: { x: rect.left, y: top, width: rect.width, height: bottom - top } });
    }
    return found;
  });
}

/** Whether the element is what a click at its centre reaches. */
const clickableAtCentre = (locator: Locator) =>
  locator.evaluate((element) => {
    const rect = element.getBoundingClientRect();
    const hit = document.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2);
    return hit !== null && (hit === element || element.contains(hit));
  });

describe.skipIf(!runUi)('toasts and inline rename (issue 29, items 3 and 5)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    await ensureRendererBuilt();
    await mkdir(ARTIFACTS_DIR, { recursive: true });
    t = await startTestDaemon();
    await createUser(t, 'ana', 'ana@example.com', PASSWORD);
    for (const name of ['a.txt', 'b.txt', 'c.txt', 'd.txt']) await upload(t, 'ana', name, `${name}\n`);
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.setViewportSize(SIZES[0]);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await signInAs(page, t.url, 'ana');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Opens `where` in `lang` (the language a person chose is kept in this browser). */
  async function open(lang: Lang, where: '/settings' | '/') {
    await page.evaluate((code) => localStorage.setItem('nimbus.language', code), lang);
    await page.goto(`${t.url}${where}`);
  }

  for (const lang of LANGUAGES) {
    describe(`in ${lang}`, () => {
      let s: Awaited<ReturnType<typeof stringsOf>>;
      beforeAll(async () => {
        s = await stringsOf(lang);
      });

      it('stacks error toasts where they cover no control: "Change password" stays visible and clickable, at every size', async () => {
        await page.setViewportSize(SIZES[0]);
        await open(lang, '/settings');
        await page.getByRole('heading', { name: s.settingsTitle, level: 1 }).waitFor();
        // Five different failures of the e-mail form: the tallest stack there can be. Worded by
        // the UI from their codes (a language other than English never shows the daemon's own
        // words), so five different missing parameters: five different sentences in any language.
        const missing = ['email', 'password', 'username', 'folder', 'file'];
        let attempt = 0;
        await page.route('**/api/user/edit**', (route) =>
          route.fulfill({
            status: 500,
            contentType: 'application/json',
            body: JSON.stringify({ error: `Missing parameter: ${missing[attempt++ % missing.length]}`, code: 'missing_parameter' }),
          }),
        );
        const email = page.getByRole('region', { name: s.emailTitle, exact: true });
        await email.getByLabel(s.newEmail).fill('ana.new@example.com');
        await email.getByLabel(s.currentPassword).fill(PASSWORD);
        const toasts = page.getByRole('region', { name: lang === 'en' ? 'Notifications' : 'Oznámení' }).locator('.toast--error');
        for (let n = 1; n <= 5; n += 1) {
          await email.getByRole('button', { name: s.changeEmail }).click();
          await expect.poll(() => toasts.count()).toBe(n);
        }
        await page.unroute('**/api/user/edit**');
        const changePassword = page.getByRole('button', { name: s.changePassword, exact: true });
        for (const size of SIZES) {
          await page.setViewportSize(size);
          await layoutSettled(page);
          // The button at the bottom of what the view shows: where a floating toast would lie.
          await changePassword.evaluate((button) => button.scrollIntoView({ block: 'end' }));
          await layoutSettled(page);
          expect(await toasts.count()).toBe(5);
          // Each toast as far as it shows: a stack taller than its strip scrolls inside it.
          const strip = (await toasts.first().locator('xpath=..').boundingBox())!;
          const boxes = (await Promise.all((await toasts.all()).map(async (toast) => (await toast.boundingBox())!)))
            .map((box) => clip(box, strip))
            .filter((box): box is Box => box !== null);
          const button = (await changePassword.boundingBox())!;
          expect(button.y + button.height, `"${s.changePassword}" in the window at ${size.width}×${size.height}`).toBeLessThanOrEqual(
            size.height,
          );
          for (const box of boxes)
            expect(overlaps(box, button), `a toast over "${s.changePassword}" at ${size.width}×${size.height}`).toBe(false);
          expect(await clickableAtCentre(changePassword), `"${s.changePassword}" clickable at ${size.width}×${size.height}`).toBe(true);
          // Nor over any other control in view.
          const covered = (await controlsInView(page)).filter((control) => boxes.some((box) => overlaps(box, control.box)));
          expect(covered.map((control) => control.name)).toEqual([]);
          // The newest is on screen (a stack taller than half the window scrolls in its strip).
          const newest = boxes[boxes.length - 1];
          expect(newest.y + newest.height, `the newest toast at ${size.width}×${size.height}`).toBeLessThanOrEqual(size.height + 1);
          expect(await clickableAtCentre(toasts.last()), `the newest toast visible at ${size.width}×${size.height}`).toBe(true);
          await snap(page, `settings-errors-${lang}`);
        }
        await page.setViewportSize(SIZES[0]);
        if (lang === 'en') expect(await axeProblems(page)).toEqual([]);
      });

      it('lets a success toast leave by itself, while the errors stay until dismissed', async () => {
        const email = page.getByRole('region', { name: s.emailTitle, exact: true });
        await email.getByLabel(s.newEmail).fill(`ana.${lang}@example.com`);
        await email.getByLabel(s.currentPassword).fill(PASSWORD);
        await email.getByRole('button', { name: s.changeEmail }).click();
        const success = page.locator('.toast--success');
        await success.waitFor();
        await snap(page, `settings-success-${lang}`);
        // Not hovered, not focused: it goes after its few seconds.
        await page.mouse.move(1, 1);
        await success.waitFor({ state: 'detached', timeout: 12_000 });
        const errors = page.locator('.toast--error');
        expect(await errors.count()).toBe(5);
        while ((await errors.count()) > 0) await errors.first().locator('.toast__close').click();
      });

      it('shows the rename message whole, above no other row, and keeps a taken name in the editor with the reason', async () => {
        await open(lang, '/');
        const grid = page.getByRole('grid');
        await grid.getByText('a.txt', { exact: true }).waitFor();
        for (const size of SIZES) {
          await page.setViewportSize(size);
          await grid.getByText('a.txt', { exact: true }).click();
          await page.keyboard.press('F2');
          const input = page.getByRole('textbox', { name: s.renameLabel('a.txt') });
          await input.fill('a:b.txt');
          await input.press('Enter');
          const message = page.locator('.rename__error');
          await message.waitFor();
          const next = grid.getByRole('row').filter({ hasText: 'b.txt' });
          const editing = grid.getByRole('row').filter({ has: input });
          const checkMessage = async (what: string) => {
            await page.evaluate(() => new Promise(requestAnimationFrame));
            const box = (await message.boundingBox())!;
            const row = (await editing.boundingBox())!;
            const below = (await next.boundingBox())!;
            const where = `${what} at ${size.width}×${size.height}`;
            expect(overlaps(box, below), `${where}: over the next row`).toBe(false);
            // In its own row, which grew to hold it; nothing cut off, nothing over it.
            expect(box.y + box.height, where).toBeLessThanOrEqual(row.y + row.height + 0.5);
            expect(box.x + box.width, where).toBeLessThanOrEqual(size.width);
            expect(await message.evaluate((m) => m.scrollHeight <= m.clientHeight + 1 && m.scrollWidth <= m.clientWidth + 1), where).toBe(
              true,
            );
            expect(await clickableAtCentre(message), `${where}: visible`).toBe(true);
            expect(await clickableAtCentre(next), `${where}: the next row uncovered`).toBe(true);
          };
          await checkMessage('the name rule');
          await snap(page, `rename-invalid-${lang}`);
          // A taken name: the daemon's 409 comes back to the editor, with what was typed.
          await input.fill('b.txt');
          await input.press('Enter');
          await expect.poll(() => message.textContent()).toBe(s.fileExists);
          expect(await input.inputValue()).toBe('b.txt');
          expect(await input.getAttribute('aria-invalid')).toBe('true');
          await checkMessage('the clash');
          if (lang === 'en' && size === SIZES[0]) expect(await axeProblems(page)).toEqual([]);
          await snap(page, `rename-taken-${lang}`);
          await input.press('Escape');
          await input.waitFor({ state: 'detached' });
          await grid.getByText('a.txt', { exact: true }).waitFor();
        }
        await page.setViewportSize(SIZES[0]);
        // No toast said it as well.
        expect(await page.locator('.toast').count()).toBe(0);
      });
    });
  }

  it('threw nothing', () => {
    expect(pageErrors).toEqual([]);
  });
});
