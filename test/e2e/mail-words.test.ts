/**
 * Mails and pages in the reader's language (issue 29, item 4), in Chromium against a real daemon
 * with no SMTP: a person who chose Čeština in Settings signs out, asks "Zapomněli jste heslo?"
 * and the reset mail written to the outbox is in Czech, although the browser itself asks for
 * English (the explorer sends its own language). The daemon's address-confirmation page, and its
 * used link, are in the browser's language: screenshots of both in English and Czech at
 * 1400×900, 800×600 and 390×844, light and dark; axe-core checks each.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, browserAvailable, ensureRendererBuilt, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { readOutbox, resetLink, verifyLink } from '../helpers/mail.js';
import { readMail } from '../helpers/mail-text.js';
import { axeProblems, PASSWORD } from '../helpers/ui-shell.js';

const runUi = browserAvailable();
const SHOTS_DIR = path.join(ARTIFACTS_DIR, 'mail-words');
const SIZES = { desktop: { width: 1400, height: 900 }, small: { width: 800, height: 600 }, phone: { width: 390, height: 844 } } as const;

/** Screenshots of `page` at every size, light and dark, each checked by axe-core. */
async function shots(page: Page, name: string): Promise<void> {
  for (const [size, viewport] of Object.entries(SIZES)) {
    await page.setViewportSize(viewport);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: path.join(SHOTS_DIR, `${name}-${size}-${scheme}.png`), animations: 'disabled', fullPage: true });
      expect(await axeProblems(page), `${name} ${size} ${scheme}`).toEqual([]);
    }
  }
}

/** The newest outbox mail to `to` with a `kind` link, read as a mail program shows it. */
async function newestMail(t: TestDaemon, to: string, kind: 'reset' | 'verify') {
  const link = kind === 'reset' ? resetLink : verifyLink;
  let raw: string | undefined;
  await expect
    .poll(async () => {
      raw = (await readOutbox(t.dataDir)).filter((mail) => readMail(mail).headers.get('to') === to && link(mail)).at(-1);
      return raw;
    })
    .toBeTruthy();
  return { mail: readMail(raw!), link: link(raw!)! };
}

describe.skipIf(!runUi)('mails and pages in the reader’s language (Chromium, real daemon)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    await ensureRendererBuilt();
    await mkdir(SHOTS_DIR, { recursive: true });
    t = await startTestDaemon();
    for (const username of ['ana', 'eva']) {
      const created = await t.api('POST', '/api/user/create', { username, email: `${username}@example.com`, password: PASSWORD });
      expect(created.status).toBe(201);
    }
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.setViewportSize(SIZES.desktop);
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('mails the reset asked for on the Czech sign-in page in Czech, though the browser asks for English', async () => {
    await page.goto(t.url);
    expect(await page.evaluate(() => navigator.language)).toMatch(/^en/);
    await page.getByLabel('Username').fill('ana');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('radio', { name: 'Čeština' }).check();
    await page.getByRole('heading', { name: 'Nastavení', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Odhlásit se' }).click();

    await page.getByRole('button', { name: 'Zapomněli jste heslo?' }).click();
    await page.getByLabel('Uživatelské jméno nebo e-mail').fill('ana');
    await page.getByRole('button', { name: 'Vyžádat odkaz' }).click();
    await page.getByText('odkaz pro obnovení hesla byl zapsán do složky outbox na serveru').waitFor();

    const { mail, link } = await newestMail(t, 'ana@example.com', 'reset');
    expect(mail.subject).toBe('Obnovení hesla k Nimbusu');
    expect(mail.headers.get('content-language')).toBe('cs');
    expect(mail.text).toContain('Dobrý den, ana,');
    expect(mail.text).toContain(link.href);
    expect(mail.html).toContain('Zvolit nové heslo');
    expect(pageErrors).toEqual([]);
  });

  it('shows the address-confirmation page, and its used link, in the browser’s language', async () => {
    for (const [lang, acceptLanguage, confirmed, used] of [
      ['en', 'en-US,en;q=0.9', 'E-mail address confirmed', 'Link expired or already used'],
      ['cs', 'cs-CZ,cs;q=0.9', 'E-mailová adresa potvrzena', 'Odkaz vypršel nebo už byl použit'],
    ] as const) {
      expect((await t.api('POST', '/api/user/verify', { username: 'eva' })).status).toBe(200);
      const { link } = await newestMail(t, 'eva@example.com', 'verify');
      const reader = await browser.context.newPage();
      try {
        await reader.setExtraHTTPHeaders({ 'Accept-Language': acceptLanguage });
        await reader.goto(`${t.url}${link.pathname}${link.search}`);
        await reader.getByRole('heading', { name: confirmed }).waitFor();
        expect(await reader.getAttribute('html', 'lang')).toBe(lang);
        await shots(reader, `verified-${lang}`);
        await reader.reload();
        await reader.getByRole('heading', { name: used }).waitFor();
        await shots(reader, `used-link-${lang}`);
      } finally {
        await reader.close();
      }
    }
  });
});
