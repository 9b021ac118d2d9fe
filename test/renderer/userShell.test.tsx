import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { FileEntry, ShareInfo, User } from '../../shared/types';
import { NimbusClient } from '../../renderer/api/client';
import { UserShell } from '../../renderer/components/UserShell/UserShell';
import { UploadsProvider } from '../../renderer/upload/UploadsProvider';
import { BASE, fakeLayout, json, renderWithSession, shareInfo, stubFetch } from './harness';

const ANA: User = {
  username: 'ana',
  email: 'ana@example.com',
  role: 'user',
  emailVerified: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  usage: { usedBytes: 2048, maxBytes: 128 * 2 ** 20, overQuota: false },
};
const file = (name: string, folder: string | null, shared: boolean): FileEntry => ({
  name,
  folder,
  size: 1024,
  modifiedAt: '2026-01-02T00:00:00.000Z',
  mimeType: 'text/plain',
  shared,
  shareUrl: shared ? `${BASE}/s/${name}-token-0123456789abcdef` : null,
});
const link = (name: string, folder: string | null): ShareInfo =>
  shareInfo({ url: `${BASE}/s/${name}-token-0123456789abcdef`, folder, file: name });
const ADMIN_ONLY = ['/api/user/all', '/api/role/all', '/api/dash', '/api/dash/rescan'];

function renderUserShell() {
  const stub = stubFetch({
    'GET /api/user': () => json(200, ANA),
    'GET /api/role': () => json(200, { name: 'user', maxStorage: 128, badge: '/badges/user.svg', builtIn: true }),
    'GET /api/folders': () =>
      json(200, { folders: [{ name: 'Photos', fileCount: 1, sizeBytes: 1024, modifiedAt: '2026-01-02T00:00:00Z' }] }),
    'GET /api/files': () => json(200, { files: [file('notes.txt', null, true), file('todo.txt', null, false)] }),
    'GET /api/folders/files': () => json(200, { files: [file('beach.jpg', 'Photos', true)] }),
    // The event stream stays open and quiet.
    'GET /api/events': () => new Response(new ReadableStream(), { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
    'GET /api/auth/sessions': () => json(200, { sessions: [] }),
    'GET /api/keys': () => json(200, { keys: [] }),
    'GET /api/usage': () =>
      json(200, {
        usage: {
          ...ANA.usage,
          fileBytes: 2048,
          trashBytes: 0,
          versionBytes: 0,
          fileCount: 3,
          byKind: { images: 1024, documents: 1024, media: 0, other: 0 },
        },
      }),
    'GET /api/trash': () => json(200, { items: [] }),
    'GET /api/shares': () => json(200, { shares: [link('notes.txt', null), link('beach.jpg', 'Photos')] }),
  });
  renderWithSession(
    <UploadsProvider>
      <UserShell username="ana" />
    </UploadsProvider>,
    { client: new NimbusClient({ baseUrl: BASE, apiKey: null }), auth: 'session', me: { user: ANA, admin: false, canWrite: true } },
  );
  return stub;
}

let restore: () => void;
beforeAll(() => {
  restore = fakeLayout();
});
afterAll(() => restore());
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('a signed-in user’s window', () => {
  it('opens on their own storage, with no user list or roles, and asks nothing only admins may ask', async () => {
    const { calls } = renderUserShell();
    expect(await screen.findByRole('heading', { name: 'ana', level: 1 })).toBeTruthy();
    expect(await screen.findByText('notes.txt')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'My files' }).getAttribute('aria-current')).toBe('page');
    expect(screen.queryByRole('searchbox', { name: 'Find a user' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Roles' })).toBeNull();
    // A user sees their role, but cannot choose it, edit or delete the account.
    expect(screen.queryByRole('combobox', { name: 'Role' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Delete user' })).toBeNull();
    expect((await screen.findByRole('status', { name: /Connected/ })).textContent).toContain('Connected');
    await userEvent.click(screen.getByRole('button', { name: 'Settings' }));
    expect(await screen.findByRole('heading', { name: 'Settings', level: 1 })).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Trash' }));
    expect(await screen.findByRole('heading', { name: 'Trash', level: 1 })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Trash' }).getAttribute('aria-current')).toBe('page');
    expect(calls.filter((call) => ADMIN_ONLY.includes(call.url.pathname))).toEqual([]);
    expect(calls.every((call) => !call.headers.has('API-Key'))).toBe(true);
    // Nothing failed: no error toast.
    expect(within(screen.getByRole('region', { name: 'Notifications' })).queryByText(/Could not/)).toBeNull();
  });

  it('lists every shared file, at the root and in folders, under "Shared by me"', async () => {
    renderUserShell();
    await userEvent.click(await screen.findByRole('button', { name: 'Shared by me' }));
    const table = await screen.findByRole('table', { name: 'Your share links' });
    const names = await vi.waitFor(() => {
      const rows = within(table).getAllByRole('row').slice(1);
      expect(rows).toHaveLength(2);
      return rows.map((row) => within(row).getByRole('rowheader').querySelector('[title]')?.textContent);
    });
    expect(names).toEqual(['notes.txt', 'beach.jpg']);
    expect(within(table).queryByText('todo.txt')).toBeNull();
    // The folder button opens the file's folder in My files.
    await userEvent.click(within(table).getByRole('button', { name: 'Photos' }));
    expect(await screen.findByRole('grid', { name: 'Files in ana › Photos' })).toBeTruthy();
  });
});
