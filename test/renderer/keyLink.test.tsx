/**
 * A key in the URL fragment (`#key=…`) never silently replaces the identity a page already has
 * (issue 22, item 7): a signed-in page stays as it is, drops the fragment at once and asks;
 * only "Switch" switches. A page that is not signed in still signs in with the fragment's key.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { KEY_STORAGE_ITEM } from '../../renderer/api/connection';
import { Session } from '../../renderer/components/Session/Session';
import { useClient, useSession } from '../../renderer/components/Session/sessionContext';
import { ToastProvider } from '../../renderer/components/Toasts/ToastProvider';
import { UploadsProvider } from '../../renderer/upload/UploadsProvider';
import { useUploadQueue } from '../../renderer/upload/uploadsContext';
import { json, stubFetch } from './harness';

const ADMIN_KEY = 'admin-key-0123456789abcdef';
const BOB_KEY = 'bob-personal-key-0123456789';
const ANA_KEY = 'ana-personal-key-0123456789';
const record = (username: string) => ({
  username,
  email: `${username}@example.com`,
  role: 'user',
  emailVerified: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  usage: { usedBytes: 0, maxBytes: -1, overQuota: false },
});
const UNAUTHORIZED = () => json(401, { error: 'Missing or wrong API key', code: 'unauthorized' });

/** Who each key is, as the daemon's auth.me answers; a key wins over the cookie, as in the daemon. */
const KEYS: Record<string, { user: ReturnType<typeof record> | null; admin: boolean }> = {
  [ADMIN_KEY]: { user: null, admin: true },
  [BOB_KEY]: { user: record('bob'), admin: false },
  [ANA_KEY]: { user: record('ana'), admin: false },
};
let cookie: string | null = null;
let fetchStub: ReturnType<typeof stubFetch>;

function daemon() {
  const who = (init: RequestInit) => {
    const key = new Headers(init.headers).get('API-Key');
    if (key !== null) return KEYS[key] ?? null;
    return cookie === null ? null : { user: record(cookie), admin: false };
  };
  fetchStub = stubFetch({
    'GET /api/auth/me': (_url, init) => {
      const me = who(init);
      return me ? json(200, me) : UNAUTHORIZED();
    },
    'GET /api/files': (_url, init) => {
      const me = who(init);
      return me ? json(200, { files: [] }) : UNAUTHORIZED();
    },
    'POST /api/auth/logout': () => {
      cookie = null;
      return json(200, { msg: 'Signed out' });
    },
  });
}

function SignedIn() {
  const session = useSession();
  const client = useClient();
  return (
    <div>
      <p>
        Signed in as {session.me.user?.username ?? 'no user'} by {session.auth}
        {session.client.connection.apiKey ? ` with ${session.client.connection.apiKey}` : ''}
      </p>
      <button type="button" onClick={() => void client.call('files.list', { username: 'ana' }).catch(() => undefined)}>
        List files
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

/** Every request that carried `key`, as `METHOD /path`. */
const sentWith = (key: string) =>
  fetchStub.calls.filter((call) => call.headers.get('API-Key') === key).map((c) => `${c.method} ${c.url.pathname}`);

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

describe('a key in the fragment on a page that is signed in', () => {
  it('keeps the session, removes the fragment at once and asks, naming both accounts', async () => {
    cookie = 'ana';
    window.history.replaceState(null, '', `/#key=${BOB_KEY}`);
    renderApp();
    // Gone from the address bar before anything else happens.
    expect(window.location.href).not.toContain(BOB_KEY);
    expect(await screen.findByText('Signed in as ana by session')).toBeTruthy();
    const prompt = await screen.findByRole('dialog', { name: 'This link signs you in as bob' });
    expect(within(prompt).getByRole('button', { name: 'Switch to bob' })).toBeTruthy();
    expect(within(prompt).getByRole('button', { name: 'Stay signed in as ana' })).toBeTruthy();
    expect(window.sessionStorage.getItem(KEY_STORAGE_ITEM)).toBeNull();

    // A request the page makes now goes as ana (the cookie), never with bob's key.
    await userEvent.click(screen.getByRole('button', { name: 'List files' }));
    await waitFor(() => expect(fetchStub.calls.some((call) => call.url.pathname === '/api/files')).toBe(true));
    const list = fetchStub.calls.find((call) => call.url.pathname === '/api/files');
    expect(list?.headers.has('API-Key')).toBe(false);
    // The only request bob's key went with: the read-only question of whose key it is.
    expect(sentWith(BOB_KEY)).toEqual(['GET /api/auth/me']);
  });

  it('keeps a key the tab holds from before, and asks', async () => {
    window.sessionStorage.setItem(KEY_STORAGE_ITEM, ADMIN_KEY);
    window.history.replaceState(null, '', `/#key=${BOB_KEY}`);
    renderApp();
    expect(await screen.findByText(`Signed in as no user by key with ${ADMIN_KEY}`)).toBeTruthy();
    const prompt = await screen.findByRole('dialog', { name: 'This link signs you in as bob' });
    expect(within(prompt).getByRole('button', { name: 'Stay signed in with your key' })).toBeTruthy();
    expect(window.sessionStorage.getItem(KEY_STORAGE_ITEM)).toBe(ADMIN_KEY);
    expect(window.location.href).not.toContain(BOB_KEY);
  });

  it('switches only on "Switch": the session is signed out first, then the page is bob by his key', async () => {
    cookie = 'ana';
    window.history.replaceState(null, '', `/#key=${BOB_KEY}`);
    renderApp();
    const prompt = await screen.findByRole('dialog', { name: 'This link signs you in as bob' });
    await userEvent.click(within(prompt).getByRole('button', { name: 'Switch to bob' }));
    expect(await screen.findByText(`Signed in as bob by key with ${BOB_KEY}`)).toBeTruthy();
    expect(cookie).toBeNull();
    expect(fetchStub.calls.some((call) => call.method === 'POST' && call.url.pathname === '/api/auth/logout')).toBe(true);
    expect(window.sessionStorage.getItem(KEY_STORAGE_ITEM)).toBe(BOB_KEY);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('stays on "Stay signed in", forgetting the link’s key', async () => {
    cookie = 'ana';
    window.history.replaceState(null, '', `/#key=${BOB_KEY}`);
    renderApp();
    const prompt = await screen.findByRole('dialog', { name: 'This link signs you in as bob' });
    await userEvent.click(within(prompt).getByRole('button', { name: 'Stay signed in as ana' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.getByText('Signed in as ana by session')).toBeTruthy();
    expect(window.sessionStorage.getItem(KEY_STORAGE_ITEM)).toBeNull();
    expect(cookie).toBe('ana');
  });

  it('drops a key of the same account silently', async () => {
    cookie = 'ana';
    window.history.replaceState(null, '', `/#key=${ANA_KEY}`);
    renderApp();
    expect(await screen.findByText('Signed in as ana by session')).toBeTruthy();
    await waitFor(() => expect(sentWith(ANA_KEY)).toEqual(['GET /api/auth/me']));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(window.location.href).not.toContain(ANA_KEY);
  });

  it('says so when the daemon refuses the link’s key, and stays', async () => {
    cookie = 'ana';
    window.history.replaceState(null, '', '/#key=revoked-key');
    renderApp();
    expect(await screen.findByText('The link’s key was not used')).toBeTruthy();
    expect(screen.getByText('Signed in as ana by session')).toBeTruthy();
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('asks, too, when a key is put in the fragment of the open page', async () => {
    cookie = 'ana';
    renderApp();
    expect(await screen.findByText('Signed in as ana by session')).toBeTruthy();
    window.location.hash = `#key=${BOB_KEY}`;
    expect(await screen.findByRole('dialog', { name: 'This link signs you in as bob' })).toBeTruthy();
    expect(window.location.href).not.toContain(BOB_KEY);
    expect(screen.getByText('Signed in as ana by session')).toBeTruthy();
  });
});

describe('a key in the fragment on a page that is not signed in', () => {
  it('signs in with it, as before, and asks nothing', async () => {
    window.history.replaceState(null, '', `/#key=${BOB_KEY}`);
    renderApp();
    expect(await screen.findByText(`Signed in as bob by key with ${BOB_KEY}`)).toBeTruthy();
    expect(window.location.href).not.toContain(BOB_KEY);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('signs in with it when the key the tab held no longer works and no session is live', async () => {
    window.sessionStorage.setItem(KEY_STORAGE_ITEM, 'revoked-key');
    window.history.replaceState(null, '', `/#key=${BOB_KEY}`);
    renderApp();
    expect(await screen.findByText(`Signed in as bob by key with ${BOB_KEY}`)).toBeTruthy();
    expect(window.sessionStorage.getItem(KEY_STORAGE_ITEM)).toBe(BOB_KEY);
  });
});

/** An upload request that stays open until aborted: what was sent, with which key, and whether it was cancelled. */
class OpenUpload {
  static sent: OpenUpload[] = [];
  readonly upload: { onprogress: ((event: ProgressEvent) => void) | null } = { onprogress: null };
  readonly headers = new Map<string, string>();
  url = '';
  aborted = false;
  onabort: (() => void) | null = null;
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  open(_method: string, url: string) {
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers.set(name, value);
  }
  send() {
    OpenUpload.sent.push(this);
  }
  abort() {
    this.aborted = true;
    this.onabort?.();
  }
}

function Uploader() {
  const queue = useUploadQueue();
  const files = ['a.txt', 'b.txt', 'c.txt', 'd.txt'].map((name) => ({ name, body: new Blob([name]) }));
  return (
    <button type="button" onClick={() => queue.add(files, 'ana', null)}>
      Upload four files
    </button>
  );
}

describe('switching to the link’s key', () => {
  it('cancels what the old key was still uploading, and sends nothing more with it; nothing was sent with the link’s key', async () => {
    OpenUpload.sent = [];
    vi.stubGlobal('XMLHttpRequest', OpenUpload);
    window.sessionStorage.setItem(KEY_STORAGE_ITEM, ADMIN_KEY);
    window.history.replaceState(null, '', `/#key=${BOB_KEY}`);
    render(
      <ToastProvider>
        <Session>
          <UploadsProvider>
            <SignedIn />
            <Uploader />
          </UploadsProvider>
        </Session>
      </ToastProvider>,
    );
    const prompt = await screen.findByRole('dialog', { name: 'This link signs you in as bob' });
    await userEvent.click(screen.getByRole('button', { name: 'Upload four files' }));
    // Three at a time, all with the key the page had, while the question is open.
    await waitFor(() => expect(OpenUpload.sent).toHaveLength(3));
    expect(OpenUpload.sent.map((upload) => upload.headers.get('API-Key'))).toEqual([ADMIN_KEY, ADMIN_KEY, ADMIN_KEY]);
    expect(sentWith(BOB_KEY)).toEqual(['GET /api/auth/me']);

    await userEvent.click(within(prompt).getByRole('button', { name: 'Switch to bob' }));
    expect(await screen.findByText(`Signed in as bob by key with ${BOB_KEY}`)).toBeTruthy();
    expect(OpenUpload.sent.map((upload) => upload.aborted)).toEqual([true, true, true]);
    // The fourth, queued behind them, was never sent.
    expect(OpenUpload.sent).toHaveLength(3);
  });
});
