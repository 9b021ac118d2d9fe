import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { LANGUAGE_STORAGE_ITEM, chooseLanguage, currentLanguage } from '../../renderer/i18n';
import { NimbusClient } from '../../renderer/api/client';
import { accountOf, chooseTheme, enterAccount, leaveAccount } from '../../renderer/lib/appearance';
import { LAST_APPEARANCE_ITEM, applyTheme, lastTheme } from '../../renderer/lib/theme';
import { Settings } from '../../renderer/components/Settings/Settings';
import { BASE, renderWithSession } from './harness';
// The script as index.html loads it, unbundled.
import startScript from '../../renderer/public/theme-start.js?raw';

const theme = () => document.documentElement.dataset.theme;
const stored = (item: string) => JSON.parse(localStorage.getItem(item) ?? 'null') as unknown;

afterEach(async () => {
  cleanup();
  leaveAccount('user.ana');
  leaveAccount('user.bob');
  leaveAccount('key');
  applyTheme('system');
  await chooseLanguage('en');
  localStorage.clear();
});

describe('appearance, per account in this browser', () => {
  it('names a user by their username and every key session (no user) as one account', () => {
    const user = {
      username: 'ana',
      email: '',
      role: 'user',
      emailVerified: true,
      createdAt: '',
      usage: { usedBytes: 0, maxBytes: -1, overQuota: false },
    };
    expect(accountOf({ user, admin: false, canWrite: true })).toBe('user.ana');
    expect(accountOf({ user: null, admin: true, canWrite: true })).toBe('key');
  });

  it('gives each account its own theme and language, and the last one in effect to the next start', async () => {
    await enterAccount('user.ana');
    chooseTheme('dark');
    expect(theme()).toBe('dark');
    expect(stored('nimbus.appearance.user.ana')).toEqual({ theme: 'dark' });
    leaveAccount('user.ana');

    // bob chose nothing: the device's theme and the browser's language, not ana's.
    await enterAccount('user.bob');
    expect(theme()).toBe('system');
    expect(lastTheme()).toBe('system');
    leaveAccount('user.bob');

    await enterAccount('user.ana');
    expect(theme()).toBe('dark');
    expect(stored(LAST_APPEARANCE_ITEM)).toEqual({ theme: 'dark' });
  });

  it('keeps the language the page is in for an account that chose none, and puts back a chosen one', async () => {
    localStorage.setItem(LANGUAGE_STORAGE_ITEM, 'cs');
    await chooseLanguage('cs');
    await enterAccount('user.ana');
    expect(currentLanguage()).toBe('cs');
    leaveAccount('user.ana');
    localStorage.setItem('nimbus.appearance.user.bob', JSON.stringify({ language: 'ja' }));
    await enterAccount('user.bob');
    expect(currentLanguage()).toBe('ja');
    // The next start (the sign-in page, a reload) is in it.
    expect(localStorage.getItem(LANGUAGE_STORAGE_ITEM)).toBe('ja');
  });

  it('ignores a stored entry that is not an appearance', async () => {
    localStorage.setItem('nimbus.appearance.user.ana', '{"theme":"purple","language":"xx"}');
    localStorage.setItem(LAST_APPEARANCE_ITEM, 'not json');
    expect(lastTheme()).toBe('system');
    await enterAccount('user.ana');
    expect(theme()).toBe('system');
  });
});

describe('Settings with the admin key', () => {
  it('has the Appearance section only, and the theme applies at once', async () => {
    await enterAccount('key');
    renderWithSession(<Settings user={null} live="live" />, {
      client: new NimbusClient({ baseUrl: BASE, apiKey: 'k' }, () => {}),
      auth: 'key',
      me: { user: null, admin: true, canWrite: true },
    });
    expect(screen.getByText('You are signed in with a key, not as a user: there is no account to manage here.')).toBeTruthy();
    expect(screen.getAllByRole('heading', { level: 2 }).map((heading) => heading.textContent)).toEqual(['Appearance']);
    const themes = screen.getByRole('group', { name: 'Theme' });
    expect(within(themes).getByRole('radio', { name: 'System' })).toHaveProperty('checked', true);
    await userEvent.click(within(themes).getByRole('radio', { name: 'Dark' }));
    expect(theme()).toBe('dark');
    expect(within(themes).getByRole('radio', { name: 'Dark' })).toHaveProperty('checked', true);
    expect(stored('nimbus.appearance.key')).toEqual({ theme: 'dark' });

    await userEvent.click(within(screen.getByRole('group', { name: 'Language' })).getByRole('radio', { name: 'Čeština' }));
    expect(await screen.findByRole('group', { name: 'Motiv' })).toBeTruthy();
    expect(stored('nimbus.appearance.key')).toEqual({ theme: 'dark', language: 'cs' });
  });
});

describe('index.html’s first script (public/theme-start.js)', () => {
  it.each([
    ['{"theme":"dark"}', 'dark'],
    ['{"theme":"light"}', 'light'],
    ['{"theme":"purple"}', 'system'],
    ['not json', 'system'],
    [null, 'system'],
  ])('reads %s as the app does (%s), before the first frame', (entry, expected) => {
    if (entry === null) localStorage.removeItem(LAST_APPEARANCE_ITEM);
    else localStorage.setItem(LAST_APPEARANCE_ITEM, entry);
    delete document.documentElement.dataset.theme;
    new Function(startScript)();
    expect(theme()).toBe(expected);
    expect(lastTheme()).toBe(expected);
  });
});
