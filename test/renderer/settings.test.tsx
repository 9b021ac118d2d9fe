import { afterEach, describe, expect, it, vi } from 'vitest';
import { LANGUAGE_STORAGE_ITEM, chooseLanguage } from '../../renderer/i18n';
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { User } from '../../shared/types';
import { NimbusClient } from '../../renderer/api/client';
import { Settings } from '../../renderer/components/Settings/Settings';
import { PASSWORD_CHANGED } from '../../renderer/components/Settings/PasswordSection';
import { BASE, json, renderWithSession, stubFetch, type Route } from './harness';

const ANA: User = {
  username: 'ana',
  email: 'ana@example.com',
  role: 'user',
  emailVerified: false,
  createdAt: '2026-01-01T00:00:00.000Z',
  usage: { usedBytes: 0, maxBytes: -1, overQuota: false },
};
const SESSIONS = [
  {
    id: 'a1',
    device: 'Chrome on Linux',
    address: '127.0.0.1',
    createdAt: '2026-01-01T00:00:00Z',
    lastUsedAt: '2026-01-02T00:00:00Z',
    current: true,
  },
  {
    id: 'b2',
    device: 'Firefox on Windows',
    address: '10.0.0.7',
    createdAt: '2026-01-01T00:00:00Z',
    lastUsedAt: '2026-01-03T00:00:00Z',
    current: false,
  },
];
const key = (label: string, username: string | null, scope = 'write') => ({
  label,
  scope,
  username,
  createdAt: '2026-01-01T00:00:00Z',
  builtIn: false,
  dialect: 'nimbus',
});
const bodyOf = (init: RequestInit) => JSON.parse(String(init.body)) as Record<string, string>;

function renderSettings(routes: Record<string, Route>) {
  const stub = stubFetch({
    'GET /api/auth/sessions': () => json(200, { sessions: SESSIONS }),
    'GET /api/keys': () => json(200, { keys: [key('laptop', 'ana'), key('bob-script', 'bob'), key('ci', null, 'read')] }),
    ...routes,
  });
  const signOut = vi.fn();
  const onUnauthorized = vi.fn();
  renderWithSession(<Settings user={ANA} live="live" />, {
    client: new NimbusClient({ baseUrl: BASE, apiKey: null }, onUnauthorized),
    auth: 'session',
    me: { user: ANA, admin: false, canWrite: true },
    signOut,
  });
  return { ...stub, signOut, onUnauthorized };
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('Settings: password', () => {
  const password = () => screen.getByRole('region', { name: 'Password' });
  async function change(current: string, next: string, again = next) {
    const section = password();
    await userEvent.type(within(section).getByLabelText('Current password'), current);
    await userEvent.type(within(section).getByLabelText('New password'), next);
    await userEvent.type(within(section).getByLabelText('New password again'), again);
    await userEvent.click(within(section).getByRole('button', { name: 'Change password' }));
  }

  it('says a wrong current password is wrong, and stays signed in (that 401 is a typo, not an ended session)', async () => {
    const { onUnauthorized } = renderSettings({
      'POST /api/auth/password': () => json(401, { error: 'Wrong username or password', code: 'invalid_credentials' }),
    });
    await change('wrong one', 'correct horse battery');
    expect(await within(password()).findByText('The current password is wrong.')).toBeTruthy();
    expect(onUnauthorized).not.toHaveBeenCalled();
  });

  it('shows the daemon’s weak_password message under the new password', async () => {
    renderSettings({
      'POST /api/auth/password': () =>
        json(400, { error: 'The password is one of the 10,000 most common passwords', code: 'weak_password' }),
    });
    await change('old password', 'iloveyou1');
    expect(await within(password()).findByText('The password is one of the 10,000 most common passwords')).toBeTruthy();
  });

  it('checks length, the username and the repeat before sending; then changes it through auth.password', async () => {
    const sent: Record<string, string>[] = [];
    const { calls } = renderSettings({
      'POST /api/auth/password': (_url, init) => {
        sent.push(bodyOf(init));
        return json(200, { msg: 'Password changed' });
      },
    });
    await change('old password', 'ANA');
    expect(within(password()).getByText('The password must be at least 8 characters long.')).toBeTruthy();
    await userEvent.clear(within(password()).getByLabelText('Current password'));
    await userEvent.clear(within(password()).getByLabelText('New password'));
    await userEvent.clear(within(password()).getByLabelText('New password again'));
    await change('old password', 'correct horse battery', 'correct horse');
    expect(within(password()).getByText('The two new passwords differ.')).toBeTruthy();
    expect(sent).toEqual([]);
    await userEvent.clear(within(password()).getByLabelText('Current password'));
    await userEvent.clear(within(password()).getByLabelText('New password'));
    await userEvent.clear(within(password()).getByLabelText('New password again'));
    await change('old password', 'correct horse battery');
    expect((await within(password()).findByRole('status')).textContent).toBe(PASSWORD_CHANGED);
    expect(sent).toEqual([{ password: 'old password', newpassword: 'correct horse battery' }]);
    // Passwords never travel in a URL.
    expect(calls.filter((call) => call.url.pathname === '/api/auth/password').every((call) => call.url.search === '')).toBe(true);
  });
});

describe('Settings: sessions', () => {
  it('lists each session with device, address and this browser marked, and ends another one', async () => {
    const ended: Record<string, string>[] = [];
    const { signOut } = renderSettings({
      'POST /api/auth/sessions/delete': (_url, init) => {
        ended.push(bodyOf(init));
        return json(200, { msg: 'Session ended' });
      },
    });
    const list = await screen.findByRole('list', { name: 'Sessions' });
    const items = within(list).getAllByRole('listitem');
    expect(items).toHaveLength(2);
    expect(items[0].textContent).toContain('Chrome on Linux');
    expect(items[0].textContent).toContain('This browser');
    expect(items[1].textContent).toContain('10.0.0.7');
    await userEvent.click(within(items[1]).getByRole('button', { name: 'Sign out Firefox on Windows' }));
    await vi.waitFor(() => expect(ended).toEqual([{ id: 'b2' }]));
    expect(signOut).not.toHaveBeenCalled();
    await userEvent.click(within(items[0]).getByRole('button', { name: 'Sign out Chrome on Linux (this browser)' }));
    expect(signOut).toHaveBeenCalledOnce();
  });
});

describe('Settings: personal keys', () => {
  it('lists only the user’s own keys, and shows a new key once, ready to copy', async () => {
    const created: Record<string, string>[] = [];
    renderSettings({
      'POST /api/keys/create': (_url, init) => {
        created.push(bodyOf(init));
        return json(201, { msg: 'Created', ...key('backup', 'ana', 'read'), key: 'nbk_secret_value' });
      },
    });
    const list = await screen.findByRole('list', { name: 'Your API keys' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([expect.stringContaining('laptop')]);
    const section = screen.getByRole('region', { name: 'Personal API keys' });
    await userEvent.type(within(section).getByLabelText('Key label'), 'backup');
    await userEvent.selectOptions(within(section).getByLabelText('Access'), 'read');
    await userEvent.type(within(section).getByLabelText('Current password'), 'my passphrase');
    await userEvent.click(within(section).getByRole('button', { name: 'Create key' }));
    const dialog = await screen.findByRole('dialog', { name: 'Your new key “backup”' });
    expect((within(dialog).getByLabelText('API key') as HTMLInputElement).value).toBe('nbk_secret_value');
    expect(within(dialog).getByText(/shown only this once/)).toBeTruthy();
    expect(created).toEqual([{ label: 'backup', scope: 'read', password: 'my passphrase' }]);
  });

  it('asks for the current password first, and says a wrong one under its field', async () => {
    const created: Record<string, string>[] = [];
    renderSettings({
      'POST /api/keys/create': (_url, init) => {
        created.push(bodyOf(init));
        return json(401, { error: 'Wrong username or password', code: 'invalid_credentials' });
      },
    });
    const section = await screen.findByRole('region', { name: 'Personal API keys' });
    await userEvent.type(within(section).getByLabelText('Key label'), 'backup');
    await userEvent.click(within(section).getByRole('button', { name: 'Create key' }));
    expect(await within(section).findByText('Enter your current password.')).toBeTruthy();
    expect(created).toEqual([]);
    await userEvent.type(within(section).getByLabelText('Current password'), 'a typo');
    await userEvent.click(within(section).getByRole('button', { name: 'Create key' }));
    expect(await within(section).findByText('The current password is wrong.')).toBeTruthy();
    expect(created).toEqual([{ label: 'backup', scope: 'write', password: 'a typo' }]);
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

describe('Settings: e-mail', () => {
  const emailSection = () => screen.getByRole('region', { name: 'E-mail' });
  it('changes only the address (the name stays), and offers the verification mail while unverified', async () => {
    const edits: Record<string, string>[] = [];
    const verified: Record<string, string>[] = [];
    renderSettings({
      'POST /api/user/edit': (_url, init) => {
        edits.push(bodyOf(init));
        return json(201, { msg: 'Saved', user: { ...ANA, email: 'ana@new.example' } });
      },
      'POST /api/user/verify': (_url, init) => {
        verified.push(bodyOf(init));
        return json(200, { msg: 'Sent', delivery: 'smtp' });
      },
    });
    await userEvent.type(screen.getByLabelText('New e-mail address'), 'not-an-address');
    await userEvent.click(screen.getByRole('button', { name: 'Change e-mail' }));
    expect(edits).toEqual([]);
    await userEvent.clear(screen.getByLabelText('New e-mail address'));
    await userEvent.type(screen.getByLabelText('New e-mail address'), 'ana@new.example');
    await userEvent.type(within(emailSection()).getByLabelText('Current password'), 'ana-secret-pw');
    await userEvent.click(screen.getByRole('button', { name: 'Change e-mail' }));
    await vi.waitFor(() =>
      expect(edits).toEqual([{ username: 'ana', newusername: 'ana', newemail: 'ana@new.example', password: 'ana-secret-pw' }]),
    );
    await userEvent.click(screen.getByRole('button', { name: 'Send verification e-mail' }));
    await vi.waitFor(() => expect(verified).toEqual([{ username: 'ana' }]));
  });

  it('asks for the current password before sending, and says when it is wrong (still signed in)', async () => {
    const edits: Record<string, string>[] = [];
    const { onUnauthorized } = renderSettings({
      'POST /api/user/edit': (_url, init) => {
        const body = bodyOf(init);
        edits.push(body);
        if (body.password !== 'ana-secret-pw') return json(401, { error: 'The current password is wrong', code: 'invalid_credentials' });
        return json(201, { msg: 'Saved', user: { ...ANA, email: 'ana@new.example' } });
      },
    });
    const section = emailSection();
    await userEvent.type(within(section).getByLabelText('New e-mail address'), 'ana@new.example');
    await userEvent.click(within(section).getByRole('button', { name: 'Change e-mail' }));
    expect(within(section).getByText('Enter your current password.')).toBeTruthy();
    expect(edits).toEqual([]);
    await userEvent.type(within(section).getByLabelText('Current password'), 'a typo');
    await userEvent.click(within(section).getByRole('button', { name: 'Change e-mail' }));
    await within(section).findByText('The current password is wrong.');
    expect(onUnauthorized).not.toHaveBeenCalled();
    await userEvent.clear(within(section).getByLabelText('Current password'));
    await userEvent.type(within(section).getByLabelText('Current password'), 'ana-secret-pw');
    await userEvent.click(within(section).getByRole('button', { name: 'Change e-mail' }));
    await vi.waitFor(() => expect(edits.at(-1)).toMatchObject({ newemail: 'ana@new.example', password: 'ana-secret-pw' }));
    await vi.waitFor(() => expect((within(section).getByLabelText('Current password') as HTMLInputElement).value).toBe(''));
  });
});

describe('Settings: language', () => {
  afterEach(async () => {
    await chooseLanguage('en');
    localStorage.clear();
  });

  it('lists the five languages by their own names and switches the whole page at once, remembering the choice', async () => {
    renderSettings({});
    const card = screen.getByRole('group', { name: 'Language' });
    const names = within(card)
      .getAllByRole('radio')
      .map((radio) => radio.closest('label')?.textContent);
    expect(names).toEqual(['English', 'Čeština', 'Español', '日本語', 'Norsk bokmål']);
    expect(within(card).getByRole('radio', { name: 'English' })).toHaveProperty('checked', true);
    await userEvent.click(within(card).getByRole('radio', { name: 'Čeština' }));
    expect(await screen.findByRole('heading', { name: 'Nastavení', level: 1 })).toBeTruthy();
    expect(screen.getByRole('region', { name: 'Heslo' })).toBeTruthy();
    expect(document.documentElement.lang).toBe('cs');
    expect(localStorage.getItem(LANGUAGE_STORAGE_ITEM)).toBe('cs');
    expect(screen.getByRole('radio', { name: 'Čeština' })).toHaveProperty('checked', true);
    await userEvent.click(screen.getByRole('radio', { name: '日本語' }));
    expect(await screen.findByRole('heading', { name: '設定', level: 1 })).toBeTruthy();
  });
});
