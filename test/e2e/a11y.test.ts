/**
 * Accessibility of every view of both windows (issue 13), in real Chromium against a real
 * daemon: axe-core finds no serious or critical violation on the sign-in and reset pages; in
 * a user's window on My files (list and grid), Shared by me, Trash, Settings, with a preview
 * open and with the context menu open; in the admin's window on the Overview, a user's files
 * and trash, and Roles. Tab reaches every control of each view, and after moving between views
 * (by mouse or keyboard) the focus is never left on <body>.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserAvailable, ensureRendererBuilt, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { axeProblems, focusOnBody, seedUsers, signInAs, unreachableByTab } from '../helpers/ui-shell.js';

const runUi = browserAvailable();

describe.skipIf(!runUi)('accessibility of every view (axe-core in Chromium)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    await ensureRendererBuilt();
    t = await startTestDaemon();
    await seedUsers(t);
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.setViewportSize({ width: 1400, height: 900 });
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('the sign-in page (each of its forms) and the reset page', async () => {
    await page.goto(t.url);
    await page.getByRole('heading', { name: 'Sign in to Nimbus' }).waitFor();
    expect(await axeProblems(page)).toEqual([]);
    expect(await unreachableByTab(page)).toEqual([]);
    await page.getByRole('button', { name: 'Forgot password?' }).click();
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    expect(await axeProblems(page)).toEqual([]);
    await page.getByRole('button', { name: 'Use an API key' }).click();
    await page.getByRole('heading', { name: 'Sign in with a key' }).waitFor();
    expect(await axeProblems(page)).toEqual([]);
    await page.goto(`${t.url}/reset?token=not-a-real-token`);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    expect(await axeProblems(page)).toEqual([]);
    expect(await unreachableByTab(page)).toEqual([]);
  });

  describe('a user’s window', () => {
    const nav = () => page.getByRole('navigation', { name: 'Your account' });
    const place = (name: string) => nav().getByRole('button', { name, exact: true });

    beforeAll(async () => {
      await signInAs(page, t.url, 'ana');
    });

    it('My files, as a list and as a grid', async () => {
      await page.getByRole('grid').getByText('beach.png', { exact: true }).waitFor();
      expect(await axeProblems(page)).toEqual([]);
      expect(await unreachableByTab(page)).toEqual([]);
      await page.getByRole('button', { name: 'Grid view' }).click();
      await page.getByText('beach.png', { exact: true }).waitFor();
      expect(await axeProblems(page)).toEqual([]);
      await page.getByRole('button', { name: 'List view' }).click();
    });

    it('a preview open, and the context menu open', async () => {
      await page.getByRole('grid').getByText('beach.png', { exact: true }).dblclick();
      await page.getByRole('dialog').waitFor();
      expect(await axeProblems(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      expect(await focusOnBody(page)).toBe(false);
      await page.getByRole('grid').getByText('notes.txt', { exact: true }).click();
      await page.keyboard.press('Shift+F10');
      await page.getByRole('menu').waitFor();
      expect(await axeProblems(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await page.getByRole('menu').waitFor({ state: 'detached' });
    });

    for (const [name, heading] of [
      ['Shared by me', 'Shared by me'],
      ['Trash', 'Trash'],
      ['Settings', 'Settings'],
    ] as const) {
      it(`${name}: no violation, every control reached by Tab, focus kept off <body>`, async () => {
        await place(name).click();
        await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
        expect(await focusOnBody(page)).toBe(false);
        expect(await axeProblems(page)).toEqual([]);
        expect(await unreachableByTab(page)).toEqual([]);
      });
    }

    it('moves between views by keyboard without dropping the focus', async () => {
      for (const name of ['My files', 'Shared by me', 'Trash', 'Settings', 'My files']) {
        await place(name).focus();
        await page.keyboard.press('Enter');
        await expect.poll(() => place(name).getAttribute('aria-current')).toBe('page');
        expect(await focusOnBody(page)).toBe(false);
      }
      // Into a folder and back by the breadcrumb: the list keeps the focus.
      await page.getByRole('grid').getByText('Photos', { exact: true }).dblclick();
      await page.getByRole('grid').getByText('inside.txt', { exact: true }).waitFor();
      expect(await focusOnBody(page)).toBe(false);
      await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('button', { name: 'ana' }).click();
      await page.getByRole('grid').getByText('beach.png', { exact: true }).waitFor();
      expect(await focusOnBody(page)).toBe(false);
    });
  });

  describe('the admin’s window', () => {
    let admin: Page;
    let adminBrowser: TestBrowser;
    const nav = () => admin.getByRole('navigation', { name: 'Users and settings' });

    beforeAll(async () => {
      // Another browser: in ana's, a link's key would not replace her session (issue 22), it would ask.
      adminBrowser = await launchBrowser();
      admin = adminBrowser.context.pages()[0] ?? (await adminBrowser.context.newPage());
      await admin.setViewportSize({ width: 1400, height: 900 });
      admin.on('pageerror', (error) => pageErrors.push(error.message));
      await admin.goto(`${t.url}/#key=${t.key}`);
    });
    afterAll(async () => {
      await adminBrowser?.close();
    });

    it('opens on the Overview', async () => {
      await expect.poll(() => nav().getByRole('button', { name: 'Overview' }).getAttribute('aria-current')).toBe('page');
      await admin.getByRole('heading', { level: 1 }).first().waitFor();
      expect(await axeProblems(admin)).toEqual([]);
      expect(await unreachableByTab(admin)).toEqual([]);
    });

    it('a user’s files and their trash', async () => {
      await nav().getByRole('button', { name: 'ana', exact: true }).click();
      await admin.getByRole('heading', { name: 'ana', level: 1 }).waitFor();
      await admin.getByRole('grid').getByText('beach.png', { exact: true }).waitFor();
      expect(await focusOnBody(admin)).toBe(false);
      expect(await axeProblems(admin)).toEqual([]);
      await admin.getByRole('tab', { name: 'Trash' }).click();
      await expect.poll(() => admin.getByRole('tab', { name: 'Trash' }).getAttribute('aria-selected')).toBe('true');
      expect(await focusOnBody(admin)).toBe(false);
      expect(await axeProblems(admin)).toEqual([]);
      // Arrows move between the tabs, as the tab pattern has it.
      await admin.keyboard.press('ArrowLeft');
      await expect.poll(() => admin.getByRole('tab', { name: 'Files' }).getAttribute('aria-selected')).toBe('true');
      expect(await admin.evaluate(() => document.activeElement?.textContent)).toBe('Files');
    });

    it('Roles, and back to the Overview by keyboard', async () => {
      await nav().getByRole('button', { name: 'Roles' }).click();
      await admin.getByRole('table').waitFor();
      expect(await focusOnBody(admin)).toBe(false);
      expect(await axeProblems(admin)).toEqual([]);
      expect(await unreachableByTab(admin)).toEqual([]);
      await nav().getByRole('button', { name: 'Overview' }).focus();
      await admin.keyboard.press('Enter');
      await expect.poll(() => nav().getByRole('button', { name: 'Overview' }).getAttribute('aria-current')).toBe('page');
      expect(await focusOnBody(admin)).toBe(false);
    });
  });

  it('threw nothing in either window', () => {
    expect(pageErrors).toEqual([]);
  });
});
