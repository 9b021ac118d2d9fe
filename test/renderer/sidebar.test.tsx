import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Role, User } from '../../shared/types';
import { Sidebar } from '../../renderer/components/Sidebar/Sidebar';
import { fakeLayout } from './harness';

const user = (username: string): User => ({
  username,
  email: `${username}@example.org`,
  role: 'user',
  emailVerified: true,
  createdAt: '2025-01-01T00:00:00Z',
  usage: { usedBytes: 0, maxBytes: 128 * 2 ** 20, overQuota: false },
});
const ROLES: Role[] = [{ name: 'user', maxStorage: 128, badge: 'https://example.org/badge.png', builtIn: true }];
const MANY = Array.from({ length: 5_000 }, (_, i) => user(`u${String(i).padStart(5, '0')}`));

/** A user row's name: the username it is labelled by. */
const nameOf = (element: Element | null) => {
  const id = element?.getAttribute('aria-labelledby');
  return id ? (document.getElementById(id)?.textContent ?? null) : null;
};

function renderSidebar(users: User[], onSelectUser = vi.fn(), selectedUser: string | null = users[0]?.username ?? null) {
  render(
    <Sidebar
      users={users}
      roles={ROLES}
      loading={false}
      selectedUser={selectedUser}
      rolesSelected={false}
      overviewSelected={false}
      onSelectUser={onSelectUser}
      onSelectRoles={() => {}}
      onSelectOverview={() => {}}
      onNewUser={() => {}}
    />,
  );
  return { list: screen.getByRole('list', { name: 'Users' }), onSelectUser };
}

let restore: () => void;
beforeAll(() => {
  restore = fakeLayout(264, 600);
});
afterAll(() => restore());
afterEach(cleanup);

describe('Sidebar', () => {
  it('puts only the users in view in the DOM, even for 5,000 users, and says how many there are', () => {
    const { list } = renderSidebar(MANY);
    const items = within(list).getAllByRole('listitem');
    expect(items.length).toBeGreaterThan(5);
    expect(items.length).toBeLessThan(40);
    expect(items[0].getAttribute('aria-setsize')).toBe('5000');
    expect(within(list).getByRole('button', { name: 'u00000' }).getAttribute('aria-current')).toBe('page');
    expect(within(list).queryByRole('button', { name: 'u04999' })).toBeNull();
  });

  it('finds a user far down the list by name and opens them', async () => {
    const { list, onSelectUser } = renderSidebar(MANY);
    await userEvent.type(screen.getByRole('searchbox', { name: 'Find a user' }), 'u04999');
    const found = await within(list).findByRole('button', { name: 'u04999' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(1);
    await userEvent.click(found);
    expect(onSelectUser).toHaveBeenCalledWith('u04999');
  });

  it('opens the first match with Enter in the search field, and says when nothing matches', async () => {
    const { onSelectUser } = renderSidebar(MANY);
    const search = screen.getByRole('searchbox', { name: 'Find a user' });
    await userEvent.type(search, 'u0420{Enter}');
    expect(onSelectUser).toHaveBeenCalledWith('u04200');
    await userEvent.clear(search);
    await userEvent.type(search, 'nobody');
    await screen.findByText('No user matches “nobody”');
  });

  it('is one tab stop; End, Home and the arrows move focus through all 5,000, Enter opens', async () => {
    const { list, onSelectUser } = renderSidebar(MANY, vi.fn(), 'u00002');
    const tabbable = within(list)
      .getAllByRole('button')
      .filter((button) => button.tabIndex === 0);
    expect(tabbable.map(nameOf)).toEqual(['u00002']);
    tabbable[0].focus();
    await userEvent.keyboard('{End}');
    await waitFor(() => expect(nameOf(document.activeElement)).toBe('u04999'));
    await userEvent.keyboard('{ArrowUp}');
    await waitFor(() => expect(nameOf(document.activeElement)).toBe('u04998'));
    await userEvent.keyboard('{Enter}');
    expect(onSelectUser).toHaveBeenCalledWith('u04998');
    await userEvent.keyboard('{Home}{ArrowDown}');
    await waitFor(() => expect(nameOf(document.activeElement)).toBe('u00001'));
    expect(within(list).getAllByRole('listitem').length).toBeLessThan(40);
  });

  it('keeps the open user reachable with Tab while it is scrolled out of view', () => {
    const { list } = renderSidebar(MANY, vi.fn(), 'u03000');
    const open = within(list).getByRole('button', { name: 'u03000' });
    expect(open.tabIndex).toBe(0);
    expect(open.getAttribute('aria-current')).toBe('page');
  });
});
