import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { KEY_STORAGE_ITEM, initialBrowserKey, takeKeyFromFragment } from '../../renderer/api/connection';
import { Session } from '../../renderer/components/Session/Session';
import { useSession } from '../../renderer/components/Session/sessionContext';
import { ToastProvider } from '../../renderer/components/Toasts/ToastProvider';
import { json, stubFetch } from './harness';

const GOOD = 'good-key-0123456789abcdef';

function SignedIn() {
  const session = useSession();
  return (
    <div>
      <p>Signed in with {session.client.connection.apiKey}</p>
      <button type="button" onClick={session.signOut}>
        Sign out
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

beforeEach(() => {
  window.sessionStorage.clear();
  window.history.replaceState(null, '', '/');
  stubFetch({
    'GET /api/dash': (_url, init) =>
      new Headers(init.headers).get('API-Key') === GOOD
        ? json(200, { version: '0' })
        : json(401, { error: 'Missing or wrong API key', code: 'unauthorized' }),
  });
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

  it('wins over a key stored for the tab; without one the stored key is used', () => {
    window.sessionStorage.setItem(KEY_STORAGE_ITEM, 'stored');
    window.history.replaceState(null, '', '/#key=fresh');
    expect(initialBrowserKey(window)).toEqual({ key: 'fresh', fromFragment: true });
    expect(window.location.hash).toBe('');
    expect(initialBrowserKey(window)).toEqual({ key: 'stored', fromFragment: false });
  });
});

describe('browser sign-in', () => {
  it('asks for the key in a field labelled "API key" and keeps it for the tab', async () => {
    renderApp();
    const field = await screen.findByLabelText('API key');
    await userEvent.type(field, GOOD);
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText(`Signed in with ${GOOD}`)).toBeTruthy();
    expect(window.sessionStorage.getItem(KEY_STORAGE_ITEM)).toBe(GOOD);
  });

  it('says so when the daemon refuses the key, and stores nothing', async () => {
    renderApp();
    await userEvent.type(await screen.findByLabelText('API key'), 'wrong-key');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect((await screen.findByRole('alert')).textContent).toBe('The daemon did not accept this API key.');
    expect(window.sessionStorage.getItem(KEY_STORAGE_ITEM)).toBeNull();
  });

  it('signs in straight from #key=… and removes it from the address bar', async () => {
    window.history.replaceState(null, '', `/#key=${GOOD}`);
    renderApp();
    expect(await screen.findByText(`Signed in with ${GOOD}`)).toBeTruthy();
    expect(window.location.href).not.toContain(GOOD);
    expect(window.sessionStorage.getItem(KEY_STORAGE_ITEM)).toBe(GOOD);
  });

  it('shows the form with a message when the stored key no longer works', async () => {
    window.sessionStorage.setItem(KEY_STORAGE_ITEM, 'revoked');
    renderApp();
    expect((await screen.findByRole('alert')).textContent).toBe('The daemon did not accept this API key.');
    expect(screen.getByLabelText('API key')).toBeTruthy();
    expect(window.sessionStorage.getItem(KEY_STORAGE_ITEM)).toBeNull();
  });

  it('forgets the key on sign-out', async () => {
    window.sessionStorage.setItem(KEY_STORAGE_ITEM, GOOD);
    renderApp();
    await userEvent.click(await screen.findByRole('button', { name: 'Sign out' }));
    expect(await screen.findByLabelText('API key')).toBeTruthy();
    expect(window.sessionStorage.getItem(KEY_STORAGE_ITEM)).toBeNull();
  });

  it('uses the Electron bridge’s connection instead of asking', async () => {
    const getConnection = vi.fn(async () => ({ baseUrl: 'http://127.0.0.1:9999', apiKey: 'bridge-key' }));
    window.nimbus = { getConnection, revealFile: vi.fn(), openExternal: vi.fn(), openStorageFolder: vi.fn(), platform: 'linux' };
    try {
      renderApp();
      expect(await screen.findByText('Signed in with bridge-key')).toBeTruthy();
      expect(screen.queryByLabelText('API key')).toBeNull();
    } finally {
      delete window.nimbus;
    }
  });
});
