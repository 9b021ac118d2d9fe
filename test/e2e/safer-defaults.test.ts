/**
 * Safer defaults (issue 29, item 8) in Chromium against a real daemon with no SMTP: "Forgot
 * password?" says the link went to the outbox on the server; the move dialog has no folder
 * looking chosen before the person picks one; an upload onto a taken name asks keep both
 * (`name (2).ext`, and the next free name when that one was taken meanwhile), replace (the old
 * content kept as a version) or skip, per file or for all; promoting a user to admin asks
 * first and Cancel keeps the role. Screenshots of each question at 1400×900 and 390×844, light
 * and dark, go to test-artifacts as safer-*.png; axe-core checks each.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, browserAvailable, ensureRendererBuilt, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { readOutbox, resetLink } from '../helpers/mail.js';
import { axeProblems } from '../helpers/ui-shell.js';

const runUi = browserAvailable();
const PASSWORD = 'correct horse battery';
const SIZES = { desktop: { width: 1400, height: 900 }, phone: { width: 390, height: 844 } } as const;

/** Screenshots at both sizes, light and dark, of what `ready` waits for; back to the desktop size and light after. */
async function shots(page: Page, name: string, ready: () => Promise<unknown>): Promise<void> {
  for (const [size, viewport] of Object.entries(SIZES)) {
    await page.setViewportSize(viewport);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await ready();
      await page.screenshot({
        path: path.join(ARTIFACTS_DIR, `safer-${name}-${size}-${scheme}.png`),
        animations: 'disabled',
        caret: 'hide',
      });
    }
  }
  await page.setViewportSize(SIZES.desktop);
  await page.emulateMedia({ colorScheme: 'light' });
}

async function signIn(page: Page, username: string): Promise<void> {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

describe.skipIf(!runUi)('safer defaults (Chromium, real daemon, no SMTP)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  const grid = () => page.getByRole('grid', { name: /^Files in ana/ });
  const names = async (folder?: string) =>
    (
      (await t.api('GET', folder ? '/api/folders/files' : '/api/files', { username: 'ana', ...(folder ? { folder } : {}) })).body as {
        files: { name: string }[];
      }
    ).files
      .map((file) => file.name)
      .sort();
  const content = async (file: string) => (await t.api('GET', '/api/files/download', { username: 'ana', file })).text;
  const choose = (...files: { name: string; text: string }[]) =>
    page
      .getByLabel('Choose files to upload')
      .setInputFiles(files.map(({ name, text }) => ({ name, mimeType: 'text/plain', buffer: Buffer.from(text) })));
  const clearUploads = () =>
    page
      .getByRole('region', { name: 'Uploads' })
      .getByRole('button', { name: 'Clear' })
      .click({ timeout: 3000 })
      .catch(() => undefined);

  beforeAll(async () => {
    await ensureRendererBuilt();
    await mkdir(ARTIFACTS_DIR, { recursive: true });
    t = await startTestDaemon();
    for (const username of ['ada', 'ana', 'bob']) {
      const created = await t.api('POST', '/api/user/create', { username, email: `${username}@example.com`, password: PASSWORD });
      expect(created.status).toBe(201);
    }
    expect((await t.api('POST', '/api/user/role', { username: 'ada', name: 'admin' })).status).toBe(201);
    for (const folder of ['Docs', 'Photos/2024', 'Photos/Old'])
      expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder, parents: 'true' })).status).toBe(201);
    await upload(t, 'ana', 'move-me.txt', 'to be moved\n');
    await upload(t, 'ana', 'report.txt', 'report, first\n');
    await upload(t, 'ana', 'notes.txt', 'notes, first\n');
    await upload(t, 'ana', 'notes (2).txt', 'notes, a copy made earlier\n');
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.setViewportSize(SIZES.desktop);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(t.url);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('"Forgot password?" without SMTP says the link was written to the outbox on the server, not that a mail is on its way', async () => {
    await page.getByRole('button', { name: 'Forgot password?' }).click();
    await page.getByText('Nimbus has no mail server configured: the link to choose a new password is written to the outbox').waitFor();
    await page.getByLabel('Username or e-mail').fill('bob');
    await page.getByRole('button', { name: 'Request the link' }).click();
    const said = page.getByRole('status').filter({ hasText: 'no mail server' });
    await said.waitFor();
    const text = await said.textContent();
    expect(text).toContain(
      'Nimbus has no mail server configured: if the account exists, the reset link was written to the outbox on the server (the “outbox” folder in Nimbus’s data directory); ask your administrator for it.',
    );
    expect(text).not.toMatch(/on its way/);
    // It is where the page says.
    await expect
      .poll(async () => (await readOutbox(t.dataDir)).some((mail) => mail.includes('bob@example.com') && resetLink(mail)))
      .toBe(true);
    expect(await axeProblems(page)).toEqual([]);
    await shots(page, 'forgot-outbox', () => said.waitFor());
    await page.getByRole('button', { name: 'Back to sign in' }).click();
  });

  it('the move dialog makes no folder look chosen: the focused folder is ringed, not filled, and Move waits for a pick', async () => {
    await signIn(page, 'ana');
    await grid().getByText('move-me.txt', { exact: true }).click();
    // By the keyboard, as a person with no mouse opens it: the focus ring shows from here on.
    await page.keyboard.press('Shift+F10');
    const item = page.getByRole('menu').getByRole('menuitem', { name: 'Move to…' });
    await item.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Move “move-me.txt” to…' });
    const moveHere = dialog.getByRole('button', { name: 'Move here' });
    const entries = dialog.locator('[data-entry]');
    /** Each folder's fill; a fill was the selected look, and the folder with the focus had it. */
    const fills = () => entries.evaluateAll((buttons) => buttons.map((button) => getComputedStyle(button).backgroundColor));
    const focused = () => page.evaluate(() => document.activeElement?.textContent ?? '');
    await expect.poll(focused).toBe('Docs');
    expect(await fills()).toEqual(['rgba(0, 0, 0, 0)', 'rgba(0, 0, 0, 0)']);
    expect(await moveHere.isDisabled()).toBe(true);
    await dialog.getByText('Already in ana: open another folder.').waitFor();
    await shots(page, 'move-open', () => dialog.getByText('Already in ana: open another folder.').waitFor());
    expect(await axeProblems(page)).toEqual([]);

    // Opening a folder is the pick: it is named, and only now can the file go there.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await dialog.getByText('Moves into Photos.').waitFor();
    await expect.poll(focused).toBe('2024');
    expect(await fills()).toEqual(['rgba(0, 0, 0, 0)', 'rgba(0, 0, 0, 0)']);
    expect(await moveHere.isDisabled()).toBe(false);
    await shots(page, 'move-picked', () => dialog.getByText('Moves into Photos.').waitFor());
    expect(await axeProblems(page)).toEqual([]);
    await moveHere.click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => names('Photos')).toEqual(['move-me.txt']);
  });

  it('asks about an upload onto a taken name; keep both makes report (2).txt and leaves the file there as it was', async () => {
    await choose({ name: 'report.txt', text: 'report, second\n' });
    const ask = page.getByRole('dialog', { name: '“report.txt” is already in ana' });
    await ask.waitFor();
    expect(await ask.textContent()).toContain('Keep both: the new one is uploaded as “report\u00a0(2).txt”.');
    expect(await ask.textContent()).toContain('Replace: the new one takes its place; the current content is kept as a version.');
    expect(await names()).toEqual(['notes (2).txt', 'notes.txt', 'report.txt']);
    await shots(page, 'upload-conflict', () => ask.waitFor());
    expect(await axeProblems(page)).toEqual([]);
    // Keep both has the focus: Enter loses nothing.
    await page.keyboard.press('Enter');
    await ask.waitFor({ state: 'detached' });
    await expect.poll(() => names()).toEqual(['notes (2).txt', 'notes.txt', 'report (2).txt', 'report.txt']);
    expect(await content('report (2).txt')).toBe('report, second\n');
    expect(await content('report.txt')).toBe('report, first\n');
    await clearUploads();
  });

  it('replace overwrites, and what it replaced is kept as a version', async () => {
    await choose({ name: 'report.txt', text: 'report, third\n' });
    const ask = page.getByRole('dialog', { name: '“report.txt” is already in ana' });
    await ask.getByRole('button', { name: 'Replace' }).click();
    await expect.poll(() => content('report.txt')).toBe('report, third\n');
    const versions = (await t.api('GET', '/api/files/versions', { username: 'ana', file: 'report.txt' })).body as {
      versions: { size: number }[];
    };
    expect(versions.versions.map((version) => version.size)).toEqual([Buffer.byteLength('report, first\n')]);
    expect(await names()).toEqual(['notes (2).txt', 'notes.txt', 'report (2).txt', 'report.txt']);
    await clearUploads();
  });

  it('with several taken names, "apply to all" is one answer; unticked, each file is asked about by name (skip, keep both)', async () => {
    await choose(
      { name: 'notes.txt', text: 'notes, second\n' },
      { name: 'report.txt', text: 'report, fourth\n' },
      { name: 'fresh.txt', text: 'new\n' },
    );
    const batch = page.getByRole('dialog', { name: '2 files with these names are already there' });
    await batch.waitFor();
    const all = batch.getByRole('checkbox', { name: 'Apply to all 2 files' });
    expect(await all.isChecked()).toBe(true);
    await shots(page, 'upload-conflicts', () => batch.waitFor());
    expect(await axeProblems(page)).toEqual([]);
    await all.click();
    const first = page.getByRole('dialog', { name: '“notes.txt” is already in ana' });
    await first.getByText('Taken name 1 of 2').waitFor();
    // Two taken names already: the kept copy would be notes (3).txt.
    expect(await first.textContent()).toContain('uploaded as “notes\u00a0(3).txt”');
    await shots(page, 'upload-conflict-each', () => first.waitFor());
    expect(await axeProblems(page)).toEqual([]);
    await first.getByRole('button', { name: 'Skip' }).click();
    const second = page.getByRole('dialog', { name: '“report.txt” is already in ana' });
    await second.getByText('Taken name 2 of 2').waitFor();
    await second.getByRole('button', { name: 'Keep both' }).click();
    await expect.poll(() => names()).toEqual(['fresh.txt', 'notes (2).txt', 'notes.txt', 'report (2).txt', 'report (3).txt', 'report.txt']);
    expect(await content('notes.txt')).toBe('notes, first\n');
    expect(await content('report (3).txt')).toBe('report, fourth\n');
    await clearUploads();
  });

  it('keep both checks the name again when it was taken after the listing (409): the next free name, nothing replaced', async () => {
    // The listing the question is asked from misses notes (2).txt, as if it had just been made elsewhere.
    const stale = (url: URL) => url.pathname === '/api/files' && url.searchParams.get('username') === 'ana';
    await page.route(stale, async (route) => {
      try {
        const response = await route.fetch();
        const listed = (await response.json()) as { files: { name: string }[] };
        await route.fulfill({ response, json: { ...listed, files: listed.files.filter((file) => file.name !== 'notes (2).txt') } });
      } catch {
        // A listing still in flight when the test unroutes (or the page moves on) is let go: its
        // route is no longer this handler's to fulfil (Playwright: "Route is already handled").
      }
    });
    try {
      await choose({ name: 'notes.txt', text: 'notes, raced\n' });
      const ask = page.getByRole('dialog', { name: '“notes.txt” is already in ana' });
      expect(await ask.textContent()).toContain('uploaded as “notes\u00a0(2).txt”');
      await ask.getByRole('button', { name: 'Keep both' }).click();
      await expect.poll(() => names()).toContain('notes (3).txt');
    } finally {
      await page.unroute(stale);
    }
    expect(await content('notes (3).txt')).toBe('notes, raced\n');
    expect(await content('notes (2).txt')).toBe('notes, a copy made earlier\n');
    expect(await content('notes.txt')).toBe('notes, first\n');
    await clearUploads();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  });

  it('promoting a user to admin asks first, naming them and what an admin can do; Cancel keeps the role', async () => {
    await signIn(page, 'ada');
    await page.getByRole('navigation', { name: 'Users and settings' }).getByText('bob', { exact: true }).click();
    await page.getByRole('heading', { name: 'bob', level: 1 }).waitFor();
    const role = page.getByRole('combobox', { name: 'Role' });
    const roleOf = async () => ((await t.api('GET', '/api/user', { username: 'bob' })).body as { role: string }).role;

    await role.selectOption('admin');
    const ask = page.getByRole('dialog', { name: 'Make bob an administrator?' });
    await ask.waitFor();
    const text = await ask.textContent();
    expect(text).toContain('bob will be able to do everything an administrator can');
    expect(text).toContain('every user’s files');
    expect(text).toContain('passwords');
    // Cancel has the focus: an Enter meant for the role list does not confirm.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await shots(page, 'promote', () => ask.waitFor());
    expect(await axeProblems(page)).toEqual([]);
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await ask.waitFor({ state: 'detached' });
    expect(await role.inputValue()).toBe('user');
    expect(await roleOf()).toBe('user');

    await role.selectOption('admin');
    await ask.getByRole('button', { name: 'Make administrator' }).click();
    await expect.poll(roleOf).toBe('admin');
    await expect.poll(() => role.inputValue()).toBe('admin');
    expect(pageErrors).toEqual([]);
  });
});
