/**
 * Accounts in the web UI (issue 12), end to end: the built renderer served by a real daemon,
 * driven in Debian's Chromium. A user signs in with a password, uploads, shares, changes their
 * password and signs out; the old password no longer works; a second user cannot reach the
 * first one's files by any URL. Screenshots of the sign-in page, a user's storage and Settings
 * at desktop and phone sizes, light and dark, go to test-artifacts/.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ARTIFACTS_DIR, browserAvailable, ensureRendererBuilt, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { readOutbox, resetLink } from '../helpers/mail.js';

const runUi = browserAvailable();
const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'purple monkey dishwasher';
const CONTENT = 'ana’s private notes\n';
const SIZES = { desktop: { width: 1400, height: 900 }, phone: { width: 390, height: 844 } } as const;

/** Screenshots at both sizes, light and dark; the page goes back to the desktop size and light. */
async function shots(page: Page, name: string): Promise<void> {
  for (const [size, viewport] of Object.entries(SIZES)) {
    await page.setViewportSize(viewport);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({
        path: path.join(ARTIFACTS_DIR, `accounts-${name}-${size}-${scheme}.png`),
        animations: 'disabled',
        caret: 'hide',
      });
    }
  }
  await page.setViewportSize(SIZES.desktop);
  await page.emulateMedia({ colorScheme: 'light' });
}

async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

describe.skipIf(!runUi)('accounts in the web UI (Chromium, real daemon)', () => {
  let t: TestDaemon;
  let browser: TestBrowser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    await ensureRendererBuilt();
    await mkdir(ARTIFACTS_DIR, { recursive: true });
    t = await startTestDaemon();
    for (const username of ['ana', 'bob']) {
      const created = await t.api('POST', '/api/user/create', { username, email: `${username}@example.com`, password: PASSWORD });
      expect(created.status).toBe(201);
    }
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on('pageerror', (error) => pageErrors.push(error.message));
    // A refused request logs "Failed to load resource" (expected here: wrong passwords, the other user's URLs).
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(message.text());
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('opens on the sign-in page: username, password, "Forgot password?" and "Use an API key"', async () => {
    await page.goto(t.url);
    await page.getByRole('heading', { name: 'Sign in to Nimbus' }).waitFor();
    expect(await page.getByRole('button', { name: 'Forgot password?' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Use an API key' }).count()).toBe(1);
    await shots(page, 'sign-in');
    await signIn(page, 'ana', 'wrong password');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('The username or password is wrong.');
    await shots(page, 'sign-in-error');
  });

  it('signs a user in to their own storage, with no user list and no roles page, and no key in the page', async () => {
    await signIn(page, 'ana', PASSWORD);
    await page.getByRole('heading', { name: 'ana', level: 1 }).waitFor();
    await page.getByText('No files yet', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'My files' }).getAttribute('aria-current')).toBe('page');
    expect(await page.getByRole('searchbox', { name: 'Find a user' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Roles' }).count()).toBe(0);
    // The session is an HttpOnly cookie: the page can read neither it nor a key.
    expect(await page.evaluate('document.cookie')).not.toContain('nimbus_session');
    expect(await page.evaluate('sessionStorage.getItem("nimbus.apiKey")')).toBeNull();
    const cookies = await browser.context.cookies(t.url);
    expect(cookies.find((cookie) => cookie.name === 'nimbus_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
  });

  it('uploads a file and shares it; "Shared by me" lists its link', async () => {
    await page
      .getByLabel('Choose files to upload')
      .setInputFiles([{ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from(CONTENT) }]);
    const grid = page.getByRole('grid');
    await grid.getByText('notes.txt').waitFor();
    await page.getByRole('region', { name: 'Uploads' }).getByRole('button', { name: 'Clear' }).click();
    await grid.getByText('notes.txt').click();
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: /Share/ });
    const link = await dialog.getByLabel('Share link').inputValue();
    expect(link).toMatch(new RegExp(`^${t.url}/s/[A-Za-z0-9_-]{22,}$`));
    await dialog.getByRole('button', { name: 'Done' }).click();
    const shared = await fetch(link);
    expect(await shared.text()).toBe(CONTENT);
    // The download goes with the cookie: no key in the page.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download', exact: true }).click(),
    ]);
    expect(await readFile(await download.path(), 'utf8')).toBe(CONTENT);
    await shots(page, 'user-storage');

    await page.getByRole('button', { name: 'Shared by me' }).click();
    await page.getByRole('heading', { name: 'Shared by me', level: 1 }).waitFor();
    await page.getByRole('row', { name: /notes\.txt/ }).waitFor();
    expect(await page.getByRole('button', { name: 'Copy link to notes.txt' }).count()).toBe(1);
    await shots(page, 'shared-by-me');
  });

  it('makes a personal key in Settings, shown once, that acts as the user', async () => {
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await page.getByRole('list', { name: 'Sessions' }).getByText('This browser').waitFor();
    await shots(page, 'settings');
    const keysSection = page.getByRole('region', { name: 'Personal API keys' });
    await keysSection.getByLabel('Key label').fill('backup-script');
    await keysSection.getByLabel('Access').selectOption('read');
    // A key outlives a password change: the daemon asks a session for the current password first.
    await keysSection.getByRole('button', { name: 'Create key' }).click();
    await keysSection.getByText('Enter your current password.').waitFor();
    await keysSection.getByLabel('Current password').fill(PASSWORD);
    await keysSection.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your new key “backup-script”' });
    const key = await dialog.getByLabel('API key').inputValue();
    await shots(page, 'new-key');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('list', { name: 'Your API keys' }).getByText('backup-script').scrollIntoViewIfNeeded();
    await shots(page, 'settings-keys');
    // The key reads ana's files and nobody else's.
    expect((await t.api('GET', '/api/files', { username: 'ana' }, { key })).body.files).toEqual([
      expect.objectContaining({ name: 'notes.txt' }),
    ]);
    expect((await t.api('GET', '/api/files', { username: 'bob' }, { key })).status).toBe(404);
  });

  it('changes the e-mail address in Settings, after asking for the current password (to be verified again)', async () => {
    const section = page.getByRole('region', { name: 'E-mail' });
    await section.getByLabel('New e-mail address').fill('ana@new.example');
    await section.getByRole('button', { name: 'Change e-mail' }).click();
    await section.getByText('Enter your current password.').waitFor();
    await section.getByLabel('Current password').fill('not my password');
    await section.getByRole('button', { name: 'Change e-mail' }).click();
    await section.getByText('The current password is wrong.').waitFor();
    expect((await t.api('GET', '/api/user', { username: 'ana' })).body.email).toBe('ana@example.com');
    await section.getByLabel('Current password').fill(PASSWORD);
    await section.getByRole('button', { name: 'Change e-mail' }).click();
    await section.getByText('ana@new.example', { exact: true }).waitFor();
    const record = await t.api('GET', '/api/user', { username: 'ana' });
    expect(record.body).toMatchObject({ email: 'ana@new.example', emailVerified: false });
  });

  it('changes the password in Settings, after asking for the current one; ana’s other browser is signed out', async () => {
    // A second browser, signed in as ana too, on her storage.
    const other = await launchBrowser();
    const otherPage = other.context.pages()[0] ?? (await other.context.newPage());
    try {
      await otherPage.goto(t.url);
      await signIn(otherPage, 'ana', PASSWORD);
      await otherPage.getByRole('heading', { name: 'ana', level: 1 }).waitFor();
      await changePassword();
      // Its session was revoked: its live stream ends, and the next request sends it back to sign-in.
      await otherPage.getByRole('alert').filter({ hasText: 'Your session has ended. Sign in again.' }).waitFor();
      await otherPage.getByLabel('Username').waitFor();
    } finally {
      await other.close();
    }
  });

  async function changePassword() {
    const section = page.getByRole('region', { name: 'Password' });
    await section.getByLabel('Current password').fill('not my password');
    await section.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await section.getByLabel('New password again').fill(NEW_PASSWORD);
    await section.getByRole('button', { name: 'Change password' }).click();
    await section.getByText('The current password is wrong.').waitFor();
    // A wrong current password is the person's typo: still signed in.
    expect(await page.getByRole('heading', { name: 'Settings', level: 1 }).count()).toBe(1);
    await section.getByLabel('Current password').fill(PASSWORD);
    await section.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => section.getByRole('status').textContent()).toContain('Password changed');
  }

  it('signs out through the server; the old password then fails and the new one works', async () => {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in to Nimbus' }).waitFor();
    expect((await browser.context.cookies(t.url)).some((cookie) => cookie.name === 'nimbus_session')).toBe(false);
    await signIn(page, 'ana', PASSWORD);
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('The username or password is wrong.');
    await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'ana', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in to Nimbus' }).waitFor();
  });

  it('a second user sees only their own storage and cannot reach the first user’s files by any URL', async () => {
    await signIn(page, 'bob', PASSWORD);
    await page.getByRole('heading', { name: 'bob', level: 1 }).waitFor();
    await page.getByText('No files yet', { exact: true }).waitFor();
    expect(await page.getByText('notes.txt').count()).toBe(0);

    // Straight to the API in the address bar, with bob's session cookie.
    const own = await page.goto(`${t.url}/api/files?username=bob`);
    expect(own?.status()).toBe(200);
    const urls = [
      `${t.url}/api/files/download?username=ana&file=notes.txt`,
      `${t.url}/api/files?username=ana`,
      `${t.url}/api/folders?username=ana`,
      `${t.url}/api/user?username=ana`,
    ];
    for (const url of urls) {
      const response = await page.goto(url);
      // Another user's name answers as if there were no such user (existence is not revealed).
      expect(response?.status(), url).toBe(404);
      const body = (await response?.text()) ?? '';
      expect(body, url).not.toContain(CONTENT.trim());
      expect(body, url).not.toContain('notes.txt');
    }
    // An admin-only listing is refused outright.
    expect((await page.goto(`${t.url}/api/user/all`))?.status()).toBe(403);

    // Back in the UI, bob is still signed in to his own storage.
    await page.goto(t.url);
    await page.getByRole('heading', { name: 'bob', level: 1 }).waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('an admin key still opens the full console through "Use an API key"', async () => {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('button', { name: 'Use an API key' }).click();
    await page.getByLabel('API key').fill(t.key);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('searchbox', { name: 'Find a user' }).waitFor();
    await page.getByRole('button', { name: 'Roles' }).waitFor();
    expect(await page.getByRole('button', { name: 'My files' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByLabel('API key').waitFor();
  });

  it('a user whose role is admin gets the console with their own places on top', async () => {
    expect((await t.api('POST', '/api/user/role', { username: 'bob', name: 'admin' })).status).toBe(201);
    await page.getByRole('button', { name: 'Use a username and password' }).click();
    await signIn(page, 'bob', PASSWORD);
    await page.getByRole('searchbox', { name: 'Find a user' }).waitFor();
    // The admin window opens on the Overview (issue 13); their own files are one click away.
    expect(await page.getByRole('button', { name: 'Overview' }).getAttribute('aria-current')).toBe('page');
    await page.getByRole('button', { name: 'My files' }).click();
    await page.getByRole('heading', { name: 'bob', level: 1 }).waitFor();
    expect(await page.getByRole('button', { name: 'My files' }).getAttribute('aria-current')).toBe('page');
    // An admin opens anyone's storage.
    await page.getByRole('navigation', { name: 'Users and settings' }).getByText('ana', { exact: true }).click();
    await page.getByRole('grid').getByText('notes.txt').waitFor();
    await shots(page, 'admin-user');
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('resets a forgotten password from the mailed link', async () => {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('button', { name: 'Forgot password?' }).click();
    await page.getByLabel('Username or e-mail').fill('bob@example.com');
    await page.getByRole('button', { name: 'Request the link' }).click();
    // No SMTP here: the page says where the link went (issue 29, item 8).
    await expect.poll(() => page.getByRole('status').textContent()).toContain('the reset link was written to the outbox on the server');
    let link: string | undefined;
    await expect
      .poll(async () => {
        link = (await readOutbox(t.dataDir)).map((mail) => resetLink(mail)?.href).find(Boolean);
        return link;
      })
      .toBeTruthy();
    const resetUrl = new URL(link!);
    await page.goto(`${t.url}${resetUrl.pathname}${resetUrl.search}`);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await shots(page, 'reset');
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Your password is changed');
    expect(new URL(page.url()).pathname).toBe('/');
    await signIn(page, 'bob', NEW_PASSWORD);
    await page.getByRole('searchbox', { name: 'Find a user' }).waitFor();
    // The link was single use.
    await page.goto(`${t.url}${resetUrl.pathname}${resetUrl.search}`);
    await page.getByLabel('New password', { exact: true }).fill('another fine password');
    await page.getByLabel('New password again').fill('another fine password');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('This link is no longer valid');
    expect(pageErrors).toEqual([]);
  });
});
