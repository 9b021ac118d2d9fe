/**
 * Appearance (issue 29, item 2) in Chromium against a real daemon: Settings → Appearance has a
 * theme (System, Light, Dark) and the language; a choice applies at once, a reload starts in it
 * with no frame of the other theme, each account on one browser has its own, the sign-in page
 * wears the last one, and the admin signed in with the key has Settings too (in the sidebar and
 * at /settings). Screenshots at three sizes, light and dark, English and Czech.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, browserAvailable, ensureRendererBuilt, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { axeProblems, PASSWORD } from '../helpers/ui-shell.js';

const runUi = browserAvailable();
const SHOTS_DIR = path.join(ARTIFACTS_DIR, 'appearance');
const SIZES = { wide: { width: 1400, height: 900 }, medium: { width: 800, height: 600 }, phone: { width: 390, height: 844 } } as const;
/** global.css's `--bg`, as the browser computes it. */
const LIGHT_BG = 'rgb(245, 246, 248)';
const DARK_BG = 'rgb(21, 24, 30)';
const WORDS = {
  en: {
    username: 'Username',
    password: 'Password',
    signIn: 'Sign in',
    signOut: 'Sign out',
    settings: 'Settings',
    light: 'Light',
    dark: 'Dark',
  },
  cs: {
    username: 'Uživatelské jméno',
    password: 'Heslo',
    signIn: 'Přihlásit se',
    signOut: 'Odhlásit se',
    settings: 'Nastavení',
    light: 'Světlý',
    dark: 'Tmavý',
  },
} as const;
type Words = (typeof WORDS)[keyof typeof WORDS];

/** What the page looked like when it started: `<html data-theme>` and the page's background at DOMContentLoaded and at its first frame. */
interface FirstLook {
  loaded?: { theme: string | null; background: string };
  firstFrame?: { theme: string | null; background: string };
}

describe.skipIf(!runUi)('appearance (Chromium, real daemon)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  const pageErrors: string[] = [];
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const themeAttribute = () => page.evaluate(() => document.documentElement.dataset.theme ?? null);
  const firstLook = () => page.evaluate(() => (window as unknown as { firstLook: FirstLook }).firstLook);
  const themes = (name = 'Theme') => page.getByRole('group', { name });

  async function signIn(username: string, words: Words = WORDS.en): Promise<void> {
    await page.getByLabel(words.username).fill(username);
    await page.getByLabel(words.password, { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: words.signIn, exact: true }).click();
  }

  async function signOut(words: Words = WORDS.en): Promise<void> {
    await page.getByRole('button', { name: words.signOut, exact: true }).click();
    await page.getByRole('button', { name: words.signIn, exact: true }).waitFor();
  }

  async function openSettings(words: Words = WORDS.en): Promise<void> {
    await page.getByRole('button', { name: words.settings, exact: true }).click();
    await page.getByRole('heading', { name: words.settings, level: 1 }).waitFor();
  }

  /** Settings at each size, light and dark (chosen with its own radios), as appearance-<name>-<size>-<theme>.png. */
  async function shots(name: string, section: Locator, words: Words): Promise<void> {
    for (const [size, viewport] of Object.entries(SIZES)) {
      await page.setViewportSize(viewport);
      for (const theme of ['light', 'dark'] as const) {
        await section.getByRole('radio', { name: words[theme] }).check();
        await expect.poll(background).toBe(theme === 'dark' ? DARK_BG : LIGHT_BG);
        await section.scrollIntoViewIfNeeded();
        await page.screenshot({
          path: path.join(SHOTS_DIR, `appearance-${name}-${size}-${theme}.png`),
          animations: 'disabled',
          caret: 'hide',
        });
      }
    }
    await page.setViewportSize(SIZES.wide);
  }

  beforeAll(async () => {
    await ensureRendererBuilt();
    await mkdir(SHOTS_DIR, { recursive: true });
    t = await startTestDaemon();
    for (const username of ['ana', 'bob']) {
      const created = await t.api('POST', '/api/user/create', { username, email: `${username}@example.com`, password: PASSWORD });
      expect(created.status).toBe(201);
    }
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.setViewportSize(SIZES.wide);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    // Every load notes how the page looked before anything of the UI could repaint it.
    await page.addInitScript(() => {
      const look: FirstLook = {};
      (window as unknown as { firstLook: FirstLook }).firstLook = look;
      const now = () => ({
        theme: document.documentElement.dataset.theme ?? null,
        background: getComputedStyle(document.body ?? document.documentElement).backgroundColor,
      });
      document.addEventListener('DOMContentLoaded', () => (look.loaded = now()), { once: true });
      requestAnimationFrame(() => (look.firstFrame = now()));
    });
    // The device is light throughout: a dark page is the choice's doing.
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(t.url);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('before any choice, the page follows the device', async () => {
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(await background()).toBe(LIGHT_BG);
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(background).toBe(DARK_BG);
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(background).toBe(LIGHT_BG);
  });

  it('choosing Dark in Settings → Appearance darkens the page at once, form controls included', async () => {
    await signIn('ana');
    await openSettings();
    const appearance = page.getByRole('region', { name: 'Appearance' });
    expect(await themes().getByRole('radio', { name: 'System' }).isChecked()).toBe(true);
    await themes().getByRole('radio', { name: 'Dark' }).check();
    await expect.poll(background).toBe(DARK_BG);
    expect(await themeAttribute()).toBe('dark');
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe('dark');
    // The language is in the same section.
    expect(await appearance.getByRole('group', { name: 'Language' }).getByRole('radio', { name: 'English' }).isChecked()).toBe(true);
    expect(await axeProblems(page)).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('a reload starts dark: the attribute is there at DOMContentLoaded and the first frame is dark', async () => {
    await page.reload();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    const look = await firstLook();
    expect(look.loaded?.theme).toBe('dark');
    expect(look.firstFrame).toEqual({ theme: 'dark', background: DARK_BG });
    expect(await themes().getByRole('radio', { name: 'Dark' }).isChecked()).toBe(true);
  });

  it('the sign-in page wears the last appearance; each user on this browser has their own', async () => {
    await signOut();
    expect(await background()).toBe(DARK_BG);
    await signIn('bob');
    await page.getByRole('heading', { name: 'bob', level: 1 }).waitFor();
    // bob chose nothing: the device's (light) theme, not ana's.
    await expect.poll(background).toBe(LIGHT_BG);
    await openSettings();
    expect(await themes().getByRole('radio', { name: 'System' }).isChecked()).toBe(true);
    await page.getByRole('group', { name: 'Language' }).getByRole('radio', { name: 'Čeština' }).check();
    const appearance = page.getByRole('region', { name: 'Vzhled' });
    await appearance.waitFor();
    expect(await themes('Motiv').getByRole('radio', { name: 'Podle systému' }).isChecked()).toBe(true);
    expect(await axeProblems(page)).toEqual([]);
    await shots('user-cs', appearance, WORDS.cs);
    await themes('Motiv').getByRole('radio', { name: 'Podle systému' }).check();
    await expect.poll(background).toBe(LIGHT_BG);

    // ana chose no language: she keeps the one the page is in (bob's Czech) until she picks English.
    await signOut(WORDS.cs);
    await signIn('ana', WORDS.cs);
    await page.getByRole('heading', { name: 'ana', level: 1 }).waitFor();
    await expect.poll(background).toBe(DARK_BG);
    await openSettings(WORDS.cs);
    await page.getByRole('group', { name: 'Jazyk' }).getByRole('radio', { name: 'English' }).check();
    await shots('user-en', page.getByRole('region', { name: 'Appearance' }), WORDS.en);
    await themes().getByRole('radio', { name: 'Dark' }).check();

    // Each one's choices come back with them.
    const language = () => page.evaluate(() => document.documentElement.lang);
    await signOut();
    await signIn('bob');
    await page.getByRole('heading', { name: 'bob', level: 1 }).waitFor();
    await expect.poll(language).toBe('cs');
    await expect.poll(background).toBe(LIGHT_BG);
    await signOut(WORDS.cs);
    await signIn('ana', WORDS.cs);
    await page.getByRole('heading', { name: 'ana', level: 1 }).waitFor();
    await expect.poll(language).toBe('en');
    await expect.poll(background).toBe(DARK_BG);
    expect(pageErrors).toEqual([]);
  });

  it('the admin signed in with the key has Settings with Appearance, in the sidebar and at /settings', async () => {
    await signOut();
    // At its address first (a new path, so the page loads and takes the key from the fragment).
    await page.goto(`${t.url}/settings#key=${t.key}`);
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    // The key session is an account of its own: ana's dark is not its.
    await expect.poll(background).toBe(LIGHT_BG);
    const nav = page.getByRole('navigation', { name: 'Users and settings' });
    await nav.getByRole('button', { name: 'Overview' }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor({ state: 'detached' });
    await nav.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings');
    expect(await nav.getByRole('button', { name: 'Settings' }).getAttribute('aria-current')).toBe('page');
    await page.getByText('You are signed in with a key, not as a user').waitFor();
    // Only what a key session has: no e-mail, password, sessions or personal keys of a user.
    expect(await page.getByRole('main').getByRole('heading', { level: 2 }).allTextContents()).toEqual(['Appearance']);
    await themes().getByRole('radio', { name: 'Dark' }).check();
    await expect.poll(background).toBe(DARK_BG);
    expect(await axeProblems(page)).toEqual([]);

    await page.reload();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    expect((await firstLook()).firstFrame?.theme).toBe('dark');
    expect(await themes().getByRole('radio', { name: 'Dark' }).isChecked()).toBe(true);
    await page.getByRole('group', { name: 'Language' }).getByRole('radio', { name: 'Čeština' }).check();
    const appearance = page.getByRole('region', { name: 'Vzhled' });
    await appearance.waitFor();
    await shots('key-cs', appearance, WORDS.cs);
    await appearance.getByRole('radio', { name: 'English' }).check();
    await page.getByRole('region', { name: 'Appearance' }).waitFor();
    await shots('key-en', page.getByRole('region', { name: 'Appearance' }), WORDS.en);
    expect(pageErrors).toEqual([]);
  });
});
