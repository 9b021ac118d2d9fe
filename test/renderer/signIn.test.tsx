import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import i18next from 'i18next';
import { KEY_STORAGE_ITEM, takeKeyFromFragment } from '../../renderer/api/connection';
import { Session } from '../../renderer/components/Session/Session';
import { useClient, useSession } from '../../renderer/components/Session/sessionContext';
import { RESET_SENT } from '../../renderer/components/SignIn/ForgotForm';
import { ToastProvider } from '../../renderer/components/Toasts/ToastProvider';
import { json, stubFetch, type Route } from './harness';

const GOOD = 'good-key-0123456789abcdef';
const ANA = {
  username: 'ana',
  email: 'ana@example.com',
  role: 'user',
  emailVerified: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  usage: { usedBytes: 0, maxBytes: -1, overQuota: false },
};
const UNAUTHORIZED = () => json(401, { error: 'Missing or wrong API key', code: 'unauthorized' });

function SignedIn() {
  const session = useSession();
  const client = useClient();
  return (
    <div>
      <p>
        Signed in as {session.me.user?.username ?? 'no user'} by {session.auth}
        {session.client.connection.apiKey ? ` with ${session.client.connection.apiKey}` : ''}
      </p>
      <button type="button" onClick={session.signOut}>
        Sign out
      </button>
      <button type="button" onClick={() => void client.call('user.all').catch(() => undefined)}>
        Load users
      </button>
    </div>
  );
}

const renderApp = () =>
  render(
    <ToastProvider>
      <Session>
        <SignedIn />
      </Session>
    </ToastProvider>,
  );

/** The daemon's auth.me: a key wins; else the cookie this fake browser holds. */
let cookie: string | null = null;
const me: Route = (_url, init) => {
  const key = new Headers(init.headers).get('API-Key');
  if (key !== null) return key === GOOD ? json(200, { user: null, admin: true }) : UNAUTHORIZED();
  return cookie === 'ana' ? json(200, { user: ANA, admin: false }) : UNAUTHORIZED();
};
const bodyOf = (init: RequestInit) => JSON.parse(String(init.body)) as Record<string, string>;

let fetchStub: ReturnType<typeof stubFetch>;
function daemon(extra: Record<string, Route> = {}) {
  fetchStub = stubFetch({
    'GET /api/auth/me': me,
    'POST /api/auth/login': (_url, init) => {
      const { username, password } = bodyOf(init);
      if (username === 'ana' && password === 'correct horse battery') {
        cookie = 'ana';
        return json(200, { user: ANA, admin: false });
      }
      return json(401, { error: 'Wrong username or password', code: 'invalid_credentials' });
    },
    'POST /api/auth/logout': () => {
      cookie = null;
      return json(200, { msg: 'Signed out' });
    },
    ...extra,
  });
}

beforeEach(() => {
  cookie = null;
  window.sessionStorage.clear();
  window.history.replaceState(null, '', '/');
  daemon();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the key in the URL fragment', () => {
  it('is taken and removed from the address bar, keeping the rest of the URL', () => {
    window.history.replaceState(null, '', '/files?x=1#key=abc%2Bdef&view=grid');
    expect(takeKeyFromFragment(window.location, window.history)).toBe('abc+def');
    expect(window.location.pathname + window.location.search + window.location.hash).toBe('/files?x=1#view=grid');
  });
});

describe('signing in with a username and password', () => {
  async function signIn(username: string, password: string) {
    await userEvent.type(await screen.findByLabelText('Username'), username);
    await userEvent.type(screen.getByLabelText('Password'), password);
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
  }

  it('opens on the form when auth.me says nobody is signed in, and signs in by the cookie, sending no key', async () => {
    renderApp();
    expect(screen.queryByLabelText('API key')).toBeNull();
    await signIn('ana', 'correct horse battery');
    expect(await screen.findByText('Signed in as ana by session')).toBeTruthy();
    const login = fetchStub.calls.find((call) => call.url.pathname === '/api/auth/login');
    // The password travels in the body, never the URL; a session sends no API-Key header.
    expect(login?.url.search).toBe('');
    expect(fetchStub.calls.every((call) => !call.headers.has('API-Key'))).toBe(true);
    expect(window.sessionStorage.getItem(KEY_STORAGE_ITEM)).toBeNull();
  });

  it('says the username or password is wrong, without saying which', async () => {
    renderApp();
    await signIn('ana', 'not the password');
    expect((await screen.findByRole('alert')).textContent).toBe('The username or password is wrong.');
  });

  it('shows how long to wait after too many failed sign-ins (Retry-After)', async () => {
    daemon({
      'POST /api/auth/login': () => json(429, { error: 'Too many failed sign-ins', code: 'too_many_attempts' }, { 'Retry-After': '270' }),
    });
    renderApp();
    await signIn('ana', 'correct horse battery');
    expect((await screen.findByRole('alert')).textContent).toBe('Too many failed sign-ins. Try again in 5 minutes.');
  });

  it('skips the form when the cookie is a live session', async () => {
    cookie = 'ana';
    renderApp();
    expect(await screen.findByText('Signed in as ana by session')).toBeTruthy();
  });

  it('signs out through auth.logout and opens the password form again', async () => {
    cookie = 'ana';
    renderApp();
    await userEvent.click(await screen.findByRole('button', { name: 'Sign out' }));
    expect(await screen.findByLabelText('Username')).toBeTruthy();
    expect(fetchStub.calls.some((call) => call.method === 'POST' && call.url.pathname === '/api/auth/logout')).toBe(true);
    expect(cookie).toBeNull();
  });

  it('ignores 401s from calls still under way while signing out: no "session ended", and the form the person opens stays', async () => {
    // The daemon deletes the session before auth.logout's answer arrives; a call in flight then
    // answers 401. That must not read as the session ending elsewhere, nor reopen the sign-in
    // page over the form the person went on to (a CI run met exactly that under load).
    let answerLogout = () => {};
    daemon({
      'POST /api/auth/logout': () => {
        cookie = null;
        return new Promise<Response>((resolve) => {
          answerLogout = () => resolve(json(200, { msg: 'Signed out' }));
        });
      },
      'GET /api/user/all': UNAUTHORIZED,
    });
    cookie = 'ana';
    renderApp();
    await userEvent.click(await screen.findByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(cookie).toBeNull());
    await userEvent.click(screen.getByRole('button', { name: 'Load users' }));
    await waitFor(() => expect(fetchStub.calls.some((call) => call.url.pathname === '/api/user/all')).toBe(true));
    answerLogout();
    await userEvent.click(await screen.findByRole('button', { name: 'Forgot password?' }));
    expect(screen.getByLabelText('Username or e-mail')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('goes back to sign-in, saying why, when a call answers 401 (the session ended elsewhere)', async () => {
    cookie = 'ana';
    daemon({ 'GET /api/user/all': UNAUTHORIZED });
    renderApp();
    await userEvent.click(await screen.findByRole('button', { name: 'Load users' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Your session has ended. Sign in again.');
    expect(screen.getByLabelText('Username')).toBeTruthy();
  });
});

describe('forgot password', () => {
  it('asks for a username or e-mail, sends it to auth.reset, and always says the same', async () => {
    const asked: Record<string, string>[] = [];
    daemon({
      'POST /api/auth/reset': (_url, init) => {
        asked.push(bodyOf(init));
        return json(200, { msg: 'If the account exists, a mail is on its way' });
      },
    });
    renderApp();
    await userEvent.click(await screen.findByRole('button', { name: 'Forgot password?' }));
    await userEvent.type(screen.getByLabelText('Username or e-mail'), 'nobody@example.com');
    await userEvent.click(screen.getByRole('button', { name: 'Send the link' }));
    expect((await screen.findByRole('status')).textContent).toBe(RESET_SENT);
    expect(asked).toEqual([{ email: 'nobody@example.com' }]);
    await userEvent.click(screen.getByRole('button', { name: 'Back to sign in' }));
    await userEvent.click(screen.getByRole('button', { name: 'Forgot password?' }));
    await userEvent.type(screen.getByLabelText('Username or e-mail'), 'ana');
    await userEvent.click(screen.getByRole('button', { name: 'Send the link' }));
    expect((await screen.findByRole('status')).textContent).toBe(RESET_SENT);
    expect(asked[1]).toEqual({ username: 'ana' });
  });
});

describe('creating an account', () => {
  it('signs the new user in when registration is open', async () => {
    daemon({
      'GET /api/auth/options': () => json(200, { registration: 'open', requireVerified: false }),
      'POST /api/auth/register': (_url, init) => {
        cookie = 'ana';
        return json(201, { msg: 'Created', user: { ...ANA, ...bodyOf(init), password: undefined, emailVerified: false } });
      },
    });
    renderApp();
    await userEvent.click(await screen.findByRole('button', { name: 'Create an account' }));
    await userEvent.type(screen.getByLabelText('Username'), 'ana');
    await userEvent.type(screen.getByLabelText('E-mail'), 'ana@example.com');
    await userEvent.type(screen.getByLabelText('Password'), 'ana');
    await userEvent.click(screen.getByRole('button', { name: 'Create account' }));
    expect(screen.getByText('The password must be at least 8 characters long.')).toBeTruthy();
    await userEvent.clear(screen.getByLabelText('Password'));
    await userEvent.type(screen.getByLabelText('Password'), 'correct horse battery');
    await userEvent.click(screen.getByRole('button', { name: 'Create account' }));
    expect(await screen.findByText('Signed in as ana by session')).toBeTruthy();
  });

  it('offers no registration where the daemon takes no new accounts', async () => {
    daemon({ 'GET /api/auth/options': () => json(200, { registration: 'closed', requireVerified: false }) });
    renderApp();
    expect(await screen.findByRole('button', { name: 'Use an API key' })).toBeTruthy();
    await waitFor(() => expect(fetchStub.calls.some((c) => c.method === 'GET' && c.url.pathname === '/api/auth/options')).toBe(true));
    expect(screen.queryByRole('button', { name: 'Create an account' })).toBeNull();
  });

  it('says registration is closed when it closed after the page loaded, and stops offering it', async () => {
    daemon({
      'GET /api/auth/options': () => json(200, { registration: 'open', requireVerified: false }),
      'POST /api/auth/register': () => json(403, { error: 'Registration is closed', code: 'registration_closed' }),
    });
    renderApp();
    await userEvent.click(await screen.findByRole('button', { name: 'Create an account' }));
    await userEvent.type(screen.getByLabelText('Username'), 'ana');
    await userEvent.type(screen.getByLabelText('E-mail'), 'ana@example.com');
    await userEvent.type(screen.getByLabelText('Password'), 'correct horse battery');
    await userEvent.click(screen.getByRole('button', { name: 'Create account' }));
    expect((await screen.findByRole('alert')).textContent).toContain('does not take new accounts');
    expect(screen.getByLabelText('Username')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Create an account' })).toBeNull();
  });

  it('says a name storage already holds cannot be registered, in the UI’s language', async () => {
    daemon({
      'GET /api/auth/options': () => json(200, { registration: 'open', requireVerified: false }),
      'POST /api/auth/register': () => json(409, { error: 'This name cannot be registered; choose another', code: 'name_unavailable' }),
    });
    await i18next.changeLanguage('cs');
    try {
      renderApp();
      await userEvent.click(await screen.findByRole('button', { name: 'Vytvořit účet' }));
      await userEvent.type(screen.getByLabelText('Uživatelské jméno'), 'mallory');
      await userEvent.type(screen.getByLabelText('E-mail'), 'm@example.com');
      await userEvent.type(screen.getByLabelText('Heslo'), 'correct horse battery');
      await userEvent.click(screen.getByRole('button', { name: 'Vytvořit účet' }));
      expect((await screen.findByRole('alert')).textContent).toContain('Toto jméno nelze zaregistrovat');
    } finally {
      await i18next.changeLanguage('en');
    }
  });
});

describe('signing in with an API key (admins)', () => {
  async function useKey(key: string) {
    await userEvent.click(await screen.findByRole('button', { name: 'Use an API key' }));
    await userEvent.type(screen.getByLabelText('API key'), key);
    await userEvent.click(within(screen.getByRole('main')).getByRole('button', { name: 'Sign in' }));
  }

  it('takes the key behind "Use an API key" and keeps it for the tab', async () => {
    renderApp();
    await useKey(GOOD);
    expect(await screen.findByText(`Signed in as no user by key with ${GOOD}`)).toBeTruthy();
    expect(window.sessionStorage.getItem(KEY_STORAGE_ITEM)).toBe(GOOD);
  });

  it('says so when the daemon refuses the key, and stores nothing', async () => {
    renderApp();
    await useKey('wrong-key');
    expect((await screen.findByRole('alert')).textContent).toBe('The daemon did not accept this API key.');
    expect(window.sessionStorage.getItem(KEY_STORAGE_ITEM)).toBeNull();
  });

  it('signs in straight from #key=… and removes it from the address bar', async () => {
    window.history.replaceState(null, '', `/#key=${GOOD}`);
    renderApp();
    expect(await screen.findByText(`Signed in as no user by key with ${GOOD}`)).toBeTruthy();
    expect(window.location.href).not.toContain(GOOD);
    expect(window.sessionStorage.getItem(KEY_STORAGE_ITEM)).toBe(GOOD);
  });

  it('shows the key form with a message when the stored key no longer works', async () => {
    window.sessionStorage.setItem(KEY_STORAGE_ITEM, 'revoked');
    renderApp();
    expect((await screen.findByRole('alert')).textContent).toBe('The daemon did not accept this API key.');
    expect(screen.getByLabelText('API key')).toBeTruthy();
    expect(window.sessionStorage.getItem(KEY_STORAGE_ITEM)).toBeNull();
  });

  it('forgets the key on sign-out and shows the key form again', async () => {
    window.sessionStorage.setItem(KEY_STORAGE_ITEM, GOOD);
    renderApp();
    await userEvent.click(await screen.findByRole('button', { name: 'Sign out' }));
    expect(await screen.findByLabelText('API key')).toBeTruthy();
    expect(window.sessionStorage.getItem(KEY_STORAGE_ITEM)).toBeNull();
  });

  it('uses the Electron bridge’s connection instead of asking, as the admin', async () => {
    const getConnection = vi.fn(async () => ({ baseUrl: 'http://127.0.0.1:9999', apiKey: 'bridge-key' }));
    window.nimbus = {
      getConnection,
      revealFile: vi.fn(),
      openExternal: vi.fn(),
      openStorageFolder: vi.fn(),
      setLanguage: vi.fn(async () => undefined),
      setTheme: vi.fn(async () => undefined),
      platform: 'linux',
    };
    try {
      renderApp();
      expect(await screen.findByText('Signed in as no user by key with bridge-key')).toBeTruthy();
      expect(screen.queryByLabelText('API key')).toBeNull();
      // Exactly as before accounts: no call made to decide who is signed in.
      expect(fetchStub.calls).toEqual([]);
    } finally {
      delete window.nimbus;
    }
  });
});
