/** What the accessibility and any-screen journeys share: axe-core in the page, a seeded daemon, signing in. */
import sharp from 'sharp';
import type { Page } from 'playwright-core';

import { upload, type TestDaemon } from './daemon.js';
import { axeFindings } from './axe.js';

/** axe-core's serious and critical findings on the whole page as it is now. */
export const axeProblems = (page: Page): Promise<string[]> => axeFindings(page);

export const PASSWORD = 'correct horse battery';

/** ana (a user) with files at the root and in a folder, one shared, one in the trash; bob beside her. */
export async function seedUsers(t: TestDaemon): Promise<void> {
  for (const username of ['ana', 'bob']) {
    const created = await t.api('POST', '/api/user/create', { username, email: `${username}@example.com`, password: PASSWORD });
    if (created.status !== 201) throw new Error(`creating ${username}: ${created.status}`);
  }
  const picture = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3b82f6' } })
    .png()
    .toBuffer();
  await upload(t, 'ana', 'beach.png', picture);
  await upload(t, 'ana', 'notes.txt', 'ana’s notes\n');
  await upload(t, 'ana', 'old.txt', 'to the trash\n');
  await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'Photos' });
  await upload(t, 'ana', 'inside.txt', 'in a folder\n', { folder: 'Photos' });
  await t.api('POST', '/api/files/share', { username: 'ana', file: 'notes.txt' });
  await t.api('POST', '/api/files/delete', { username: 'ana', file: 'old.txt' });
}

export async function signInAs(page: Page, baseUrl: string, username: string): Promise<void> {
  await page.goto(baseUrl);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: username, level: 1 }).waitFor();
}

/** Whether the focus sits on nothing (the page's body), as it must never after moving between views. */
export const focusOnBody = (page: Page): Promise<boolean> =>
  page.evaluate(() => document.activeElement === null || document.activeElement === document.body);

/**
 * Every control a person can act on that Tab should reach, by a readable name, and the ones
 * that pressing Tab (up to twice their number) never focused. A roving list (tabindex -1
 * rows) counts as its one tab stop.
 */
export async function unreachableByTab(page: Page, scope = 'body'): Promise<string[]> {
  await page.evaluate((selector) => {
    const focusable =
      ':is(a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex="0"]):not([tabindex="-1"])';
    let n = 0;
    for (const element of document.querySelectorAll<HTMLElement>(`${selector} :is(${focusable})`)) {
      const rect = element.getBoundingClientRect();
      const hidden = rect.width === 0 || rect.height === 0 || element.closest('[inert], [hidden], [aria-hidden="true"]');
      // A radio group is one tab stop: its checked radio.
      const otherRadio = element instanceof HTMLInputElement && element.type === 'radio' && !element.checked;
      if (!hidden && !otherRadio) element.dataset.tabCheck = String(n++);
    }
    (document.activeElement as HTMLElement | null)?.blur();
  }, scope);
  const expected = await page.locator('[data-tab-check]').count();
  const seen = new Set<string>();
  for (let i = 0; i < expected * 2 + 10 && seen.size < expected; i += 1) {
    await page.keyboard.press('Tab');
    const id = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.tabCheck ?? null);
    if (id !== null) seen.add(id);
  }
  return page.evaluate(
    (reached) => {
      const missed: string[] = [];
      for (const element of document.querySelectorAll<HTMLElement>('[data-tab-check]')) {
        if (!reached.includes(element.dataset.tabCheck!))
          missed.push(element.getAttribute('aria-label') ?? element.textContent?.trim() ?? element.tagName);
        delete element.dataset.tabCheck;
      }
      return missed;
    },
    [...seen],
  );
}
