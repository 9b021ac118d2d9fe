/**
 * Editing a user from the admin view (UserSection → UserDialog): an admin signed in as
 * themselves who changes their OWN e-mail or password is asked for their current password, as
 * the daemon now requires (issue 22, item 2); another user's account needs none.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Role, User } from '../../shared/types';
import { NimbusClient } from '../../renderer/api/client';
import { UserSection } from '../../renderer/components/UserSection/UserSection';
import { BASE, json, renderWithSession, stubFetch } from './harness';

const userNamed = (username: string, role = 'user'): User => ({
  username,
  email: `${username}@example.com`,
  role,
  emailVerified: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  usage: { usedBytes: 0, maxBytes: -1, overQuota: false },
});
const ADA = userNamed('ada', 'admin');
const ROLES: Role[] = [
  { name: 'user', maxStorage: 128, badge: '', builtIn: true },
  { name: 'admin', maxStorage: 256, badge: '', builtIn: true },
];
const bodyOf = (init: RequestInit) => JSON.parse(String(init.body)) as Record<string, string>;

function renderSection(user: User) {
  const edits: Record<string, string>[] = [];
  stubFetch({
    'POST /api/user/edit': (_url, init) => {
      const body = bodyOf(init);
      edits.push(body);
      return json(201, { msg: 'User updated', user: { ...user, email: body.newemail } });
    },
  });
  renderWithSession(<UserSection user={user} roles={ROLES} folderCount={0} onRenamed={() => {}} onDeleted={() => {}} />, {
    client: new NimbusClient({ baseUrl: BASE, apiKey: null }),
    auth: 'session',
    me: { user: ADA, admin: true, canWrite: true },
  });
  return edits;
}

async function openEditor(): Promise<HTMLElement> {
  await userEvent.click(screen.getByRole('button', { name: 'Edit user' }));
  return screen.findByRole('dialog');
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('editing a user as an admin', () => {
  it('asks for the current password when the admin changes their own e-mail, and sends it', async () => {
    const edits = renderSection(ADA);
    const dialog = await openEditor();
    await userEvent.clear(within(dialog).getByLabelText('E-mail'));
    await userEvent.type(within(dialog).getByLabelText('E-mail'), 'ada@new.example');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save changes' }));
    expect(await within(dialog).findByText('Enter your current password.')).toBeTruthy();
    expect(edits).toEqual([]);
    await userEvent.type(within(dialog).getByLabelText('Current password'), 'ada-secret-pw');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save changes' }));
    await vi.waitFor(() =>
      expect(edits).toEqual([{ username: 'ada', newusername: 'ada', newemail: 'ada@new.example', password: 'ada-secret-pw' }]),
    );
  });

  it('asks no password for another user’s account', async () => {
    const edits = renderSection(userNamed('bob'));
    const dialog = await openEditor();
    expect(within(dialog).queryByLabelText('Current password')).toBeNull();
    await userEvent.clear(within(dialog).getByLabelText('E-mail'));
    await userEvent.type(within(dialog).getByLabelText('E-mail'), 'bob@new.example');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save changes' }));
    await vi.waitFor(() => expect(edits).toEqual([{ username: 'bob', newusername: 'bob', newemail: 'bob@new.example' }]));
  });
});
