import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { DashInfo, User } from '../../shared/types';
import { AdminOverview } from '../../renderer/components/AdminOverview/AdminOverview';
import { ActivityLog, BUCKET_MS, BUCKETS, LATEST } from '../../renderer/components/AdminOverview/activityLog';
import { fillHistogram, rankByFill, topMatching } from '../../renderer/components/AdminOverview/rankUsers';
import { json, renderWithSession, stubFetch } from './harness';

const MiB = 2 ** 20;

const user = (username: string, usedMiB: number, maxMiB: number, overQuota = usedMiB > maxMiB && maxMiB >= 0): User => ({
  username,
  email: `${username}@example.com`,
  role: maxMiB < 0 ? 'unlimited' : 'user',
  emailVerified: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  usage: { usedBytes: usedMiB * MiB, maxBytes: maxMiB < 0 ? -1 : maxMiB * MiB, overQuota },
});

const DASH = {
  version: '1.0.0',
  uptime: 10,
  users: 10_003,
  roles: 2,
  files: 123_456,
  folders: 7,
  shares: 42,
  storage: { usedBytes: 3 * 2 ** 30, dir: '/x', available: true },
  index: { state: 'ready', watcher: 'inotify' },
  orphans: [],
  mail: { delivery: 'outbox' },
  eventStreams: 1,
} as unknown as DashInfo;

/** 10,000 quiet users (under 50 % of 128 MiB), plus a few near and over the quota and one without one. */
function manyUsers(): User[] {
  const users: User[] = [];
  for (let i = 0; i < 10_000; i += 1) users.push(user(`user${String(i).padStart(5, '0')}`, i % 60, 128));
  users.push(user('near', 120, 128), user('over', 200, 128), user('dropped-in', 100, 128, true), user('boss', 5000, -1));
  return users;
}

function eventStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => (controller = c) });
  return {
    response: () => new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
    send: (event: { type: string; username?: string | null; folder?: string | null; file?: string | null }) =>
      controller.enqueue(
        new TextEncoder().encode(
          `event: ${event.type}\ndata: ${JSON.stringify({ username: null, folder: null, file: null, ...event })}\n\n`,
        ),
      ),
  };
}

function renderOverview(users: User[], onOpenUser?: (name: string) => void) {
  const stream = eventStream();
  const stub = stubFetch({
    'GET /api/user/all': () => json(200, users, { 'X-Total-Count': String(users.length) }),
    'GET /api/dash': () => json(200, DASH),
    'GET /api/events': () => stream.response(),
  });
  renderWithSession(<AdminOverview onOpenUser={onOpenUser} />);
  return { ...stub, stream };
}

const listedNames = () =>
  [...screen.getByRole('list', { name: 'Users, fullest first' }).querySelectorAll('li')].map((li) => li.getAttribute('data-username'));

const row = (username: string) =>
  screen.getByRole('list', { name: 'Users, fullest first' }).querySelector<HTMLElement>(`[data-username="${username}"]`)!;

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the admin overview', () => {
  it('shows the totals of the daemon', async () => {
    renderOverview([user('ana', 1, 128)]);
    expect(await screen.findByRole('heading', { name: 'Overview', level: 1 })).toBeTruthy();
    const tile = (label: string) => screen.getByText(label, { selector: 'dt' }).nextElementSibling!.textContent;
    await vi.waitFor(() => expect(tile('Users')).toBe('10,003'));
    expect(tile('Files')).toBe('123,456');
    expect(tile('Stored')).toBe('3 GiB');
    expect(tile('Share links')).toBe('42');
  });

  it('lists the 50 fullest of 10,000 users, over the quota first, and charts all of them', async () => {
    renderOverview(manyUsers());
    await screen.findByRole('list', { name: 'Users, fullest first' });
    const names = listedNames();
    expect(names).toHaveLength(50);
    expect(names.slice(0, 3)).toEqual(['over', 'dropped-in', 'near']);
    expect(names).not.toContain('boss');
    expect(screen.getByText('Showing 50 of 10,004 users, fullest first')).toBeTruthy();
    const over = row('over');
    expect(over.textContent).toContain('200 MiB of 128 MiB (156%)');
    expect(within(over).getByText('Over quota')).toBeTruthy();
    expect(within(row('near')).getByText('Almost full')).toBeTruthy();
    // Every user is in the histogram, said in words.
    expect(screen.getByText('2 users over their quota')).toBeTruthy();
    expect(screen.getByText('1 user without a quota')).toBeTruthy();
    expect(screen.getByText('1 user at 90–100 % of their quota')).toBeTruthy();
    // Counts as the language writes them.
    const quiet = manyUsers().filter((u) => u.usage.maxBytes > 0 && u.usage.usedBytes < u.usage.maxBytes / 10).length;
    expect(quiet).toBeGreaterThan(999);
    expect(screen.getByText(`${quiet.toLocaleString('en')} users at 0–10 % of their quota`)).toBeTruthy();
  }, 20_000);

  it('finds anyone with the filter box, and opens a user’s files from their name', async () => {
    const open = vi.fn();
    renderOverview(manyUsers(), open);
    const filter = await screen.findByRole('searchbox', { name: 'Filter users' });
    await userEvent.click(filter);
    await userEvent.paste('user00007');
    await vi.waitFor(() => expect(listedNames()).toEqual(['user00007']));
    expect(screen.getByText('Showing 1 of 1 user, fullest first')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'user00007' }));
    expect(open).toHaveBeenCalledWith('user00007');
    await userEvent.clear(filter);
    await userEvent.paste('nobody-like-this');
    expect(await screen.findByText('No user matches.')).toBeTruthy();
  }, 20_000);

  it('shows names as plain text when the shell gives no way to open a user', async () => {
    renderOverview([user('ana', 1, 128)]);
    await screen.findByRole('list', { name: 'Users, fullest first' });
    expect(screen.queryByRole('button', { name: 'ana' })).toBeNull();
    expect(listedNames()).toEqual(['ana']);
  });

  it('tells the latest events in words and counts them in the chart', async () => {
    const { stream } = renderOverview([user('ana', 1, 128)]);
    await vi.waitFor(() => expect(screen.getByText('Live')).toBeTruthy());
    stream.send({ type: 'file.added', username: 'ana', file: 'report.pdf' });
    stream.send({ type: 'file.removed', username: 'ana', folder: 'Photos', file: 'beach.jpg' });
    stream.send({ type: 'folder.added', username: 'bob', folder: 'Music' });
    stream.send({ type: 'index.state' });
    stream.send({ type: 'role.changed' });
    const feed = await screen.findByText('ana added report.pdf');
    const items = [...feed.closest('ol')!.querySelectorAll('li')].map((li) => li.querySelector('.overview-activity__words')!.textContent);
    // Newest first; the index's own state is not activity.
    expect(items).toEqual(['A role changed', 'bob created the folder Music', 'ana removed beach.jpg from Photos', 'ana added report.pdf']);
    expect(screen.getByRole('img', { name: /^4 events in the last 10 minutes; at most [1-4] in 10 seconds$/ })).toBeTruthy();
  });
});

describe('ranking users', () => {
  it('puts over-quota users first, then the fullest, unlimited users last (biggest first)', () => {
    const ranked = rankByFill([
      user('a', 10, 128),
      user('b', -0, -1),
      user('c', 300, 128),
      user('d', 127, 128),
      user('e', 9, -1),
      user('f', 0, 0),
    ]);
    expect(ranked.map((u) => u.username)).toEqual(['c', 'd', 'a', 'f', 'e', 'b']);
  });

  it('filters by name or e-mail, ignoring case, and counts every match', () => {
    const ranked = rankByFill([user('Ana', 1, 10), user('bob', 2, 10), user('anabel', 3, 10)]);
    expect(topMatching(ranked, ' ANA ', 1)).toEqual({ shown: [ranked[0]], matching: 2 });
    expect(topMatching(ranked, 'bob@example', 5).shown.map((u) => u.username)).toEqual(['bob']);
  });

  it('counts each user in one column of the histogram', () => {
    const counts = fillHistogram([user('a', 0, 10), user('b', 10, 10), user('c', 11, 10), user('d', 1, -1), user('e', 5, 10)]);
    expect(counts).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1]);
  });
});

describe('the activity log', () => {
  it('counts per 10 s over 10 minutes, forgets older ones, and keeps the latest 20 events', () => {
    const start = 1_000_000 * BUCKET_MS;
    const log = new ActivityLog(start);
    const event = { type: 'file.added' as const, username: 'ana', folder: null, file: 'x' };
    for (let i = 0; i < 25; i += 1) log.add({ ...event, file: `f${i}` }, start + i);
    log.add(event, start + 3 * BUCKET_MS);
    const counts = log.counts(start + 3 * BUCKET_MS);
    expect(counts).toHaveLength(BUCKETS);
    expect(counts.slice(-4)).toEqual([25, 0, 0, 1]);
    expect(log.latest()).toHaveLength(LATEST);
    expect(log.latest()[1].event.file).toBe('f24');
    // Ten minutes on, the burst has left the window.
    expect(log.counts(start + BUCKETS * BUCKET_MS).reduce((a, b) => a + b, 0)).toBe(1);
  });
});
