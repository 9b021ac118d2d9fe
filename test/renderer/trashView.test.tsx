import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { TrashItem } from '../../shared/types';
import { keysForEvent, queryKeys } from '../../renderer/api/queryKeys';
import { TrashView } from '../../renderer/components/TrashView/TrashView';
import { daysLeft } from '../../renderer/components/TrashView/trashDates';
import { useLiveEvents } from '../../renderer/hooks/useLiveEvents';
import { TRASH_PAGE } from '../../renderer/hooks/useTrash';
import { json, renderWithSession, stubFetch, type Route } from './harness';

const DAY = 24 * 60 * 60 * 1000;
const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString();

let serial = 0;
function item(name: string, over: Partial<TrashItem> = {}): TrashItem {
  serial += 1;
  return {
    id: serial.toString(16).padStart(32, '0'),
    kind: 'file',
    name,
    folder: null,
    size: 2048,
    fileCount: 1,
    deletedAt: new Date(Date.now() - DAY).toISOString(),
    purgeAt: inDays(29),
    ...over,
  };
}

const bodyOf = (init: RequestInit) => JSON.parse(String(init.body)) as Record<string, string>;

/** A daemon's trash in memory: list, restore (409 for names in `taken`), delete, empty. */
function fakeTrash(items: TrashItem[], taken: string[] = []) {
  let list = [...items];
  const routes: Record<string, Route> = {
    'GET /api/trash': (url) => {
      const offset = Number(url.searchParams.get('offset') ?? 0);
      const limit = Number(url.searchParams.get('limit') ?? 100_000);
      return json(200, { items: list.slice(offset, offset + limit) });
    },
    'POST /api/trash/restore': (_url, init) => {
      const { id, rename } = bodyOf(init);
      const found = list.find((i) => i.id === id);
      if (!found) return json(404, { error: 'Trash item not found', code: 'trash_item_not_found' });
      if (taken.includes(found.name) && rename !== 'true') return json(409, { error: 'File already exists', code: 'file_exists' });
      list = list.filter((i) => i.id !== id);
      const name = rename === 'true' ? found.name.replace(/(\.[^.]*)?$/, ' (restored)$1') : found.name;
      return json(201, { msg: 'Restored', restored: { kind: found.kind, name, folder: found.folder } });
    },
    'POST /api/trash/delete': (_url, init) => {
      const { id } = bodyOf(init);
      if (!list.some((i) => i.id === id)) return json(404, { error: 'Trash item not found', code: 'trash_item_not_found' });
      list = list.filter((i) => i.id !== id);
      return json(200, { msg: 'Deleted' });
    },
    'POST /api/trash/empty': () => {
      const removed = list.length;
      list = [];
      return json(200, { msg: 'Emptied', removed });
    },
  };
  return { routes, current: () => list, add: (more: TrashItem) => (list = [more, ...list]) };
}

function renderTrash(items: TrashItem[], taken: string[] = [], extra: Record<string, Route> = {}) {
  const trash = fakeTrash(items, taken);
  const stub = stubFetch({ ...trash.routes, ...extra });
  renderWithSession(<TrashView username="ana" />);
  return { ...stub, trash, posts: (path: string) => stub.calls.filter((c) => c.method === 'POST' && c.url.pathname === path) };
}

const row = (name: string) => screen.getByRole('rowheader', { name: new RegExp(name) }).closest('tr')!;

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('TrashView: the list', () => {
  it('shows each item with where it was, its size, when it was deleted and the days it has left', async () => {
    renderTrash([
      item('report.pdf', { folder: 'Work', size: 3 * 1024 * 1024, purgeAt: inDays(29.5) }),
      item('Photos', { kind: 'folder', size: 10 * 1024, fileCount: 12, purgeAt: inDays(0.5) }),
      item('old.txt', { purgeAt: inDays(-0.01) }),
    ]);
    const report = await screen.findByRole('rowheader', { name: /report\.pdf/ });
    const cells = within(report.closest('tr')!);
    expect(cells.getByText('Work')).toBeTruthy();
    expect(cells.getByText(/^3(\.0)? Mi?B$/)).toBeTruthy();
    expect(cells.getByText('30 days')).toBeTruthy();
    expect(within(row('Photos')).getByText('12 files')).toBeTruthy();
    expect(within(row('Photos')).getByText('Root')).toBeTruthy();
    expect(within(row('Photos')).getByText('1 day')).toBeTruthy();
    expect(within(row('old.txt')).getByText('Today')).toBeTruthy();
  });

  it('says when the trash is empty, and Empty trash is disabled', async () => {
    renderTrash([]);
    expect(await screen.findByText('The trash is empty')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Empty trash' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('asks for the next page when there is one', { timeout: 60_000 }, async () => {
    const many = Array.from({ length: TRASH_PAGE + 5 }, (_, i) => item(`file-${String(i).padStart(3, '0')}.txt`));
    const { calls } = renderTrash(many);
    // Text queries: role queries over 200 rows are slow in jsdom.
    await screen.findByText('file-000.txt', {}, { timeout: 30_000 });
    expect(screen.queryByText(`file-${TRASH_PAGE}.txt`)).toBeNull();
    await userEvent.click(screen.getByText('Load more'));
    await screen.findByText(`file-${TRASH_PAGE + 4}.txt`, {}, { timeout: 30_000 });
    const pages = calls.filter((c) => c.url.pathname === '/api/trash').map((c) => c.url.searchParams.get('offset'));
    expect(pages).toEqual(['0', String(TRASH_PAGE)]);
    expect(screen.queryByText('Load more')).toBeNull();
  });

  it('days left: rounded up, never negative', () => {
    const now = Date.parse('2026-03-01T12:00:00Z');
    expect(daysLeft('2026-03-31T12:00:00Z', now)).toBe(30);
    expect(daysLeft('2026-03-01T13:00:00Z', now)).toBe(1);
    expect(daysLeft('2026-02-28T00:00:00Z', now)).toBe(0);
    expect(daysLeft('not a date', now)).toBeNull();
  });
});

describe('TrashView: restore', () => {
  it('puts an item back and says where', async () => {
    const { posts, trash } = renderTrash([item('a.txt', { folder: 'Docs' })]);
    await userEvent.click(await screen.findByRole('button', { name: 'Restore a.txt' }));
    expect(await screen.findByText('Restored “a.txt” to Docs')).toBeTruthy();
    expect(posts('/api/trash/restore')).toHaveLength(1);
    expect(trash.current()).toEqual([]);
    expect(await screen.findByText('The trash is empty')).toBeTruthy();
  });

  it('on 409 offers “Restore as a copy”, which restores with rename=true', async () => {
    const { posts } = renderTrash([item('a.txt')], ['a.txt']);
    await userEvent.click(await screen.findByRole('button', { name: 'Restore a.txt' }));
    const dialog = await screen.findByRole('dialog', { name: '“a.txt” is there again' });
    expect(within(dialog).getByText(/Something named “a\.txt” is in Root now/)).toBeTruthy();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Restore as a copy' }));
    expect(await screen.findByText('Restored as “a (restored).txt” in Root')).toBeTruthy();
    const sent = posts('/api/trash/restore').map((c) => c.url);
    expect(sent).toHaveLength(2);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('on 409, Cancel leaves the item in the trash', async () => {
    const { posts, trash } = renderTrash([item('a.txt')], ['a.txt']);
    await userEvent.click(await screen.findByRole('button', { name: 'Restore a.txt' }));
    const dialog = await screen.findByRole('dialog');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(posts('/api/trash/restore')).toHaveLength(1);
    expect(trash.current()).toHaveLength(1);
  });

  it('another error is shown, and nothing is offered', async () => {
    renderTrash([item('a.txt')], [], {
      'POST /api/trash/restore': () => json(404, { error: 'Trash item not found', code: 'trash_item_not_found' }),
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Restore a.txt' }));
    expect(await screen.findByText('Could not restore “a.txt”')).toBeTruthy();
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

describe('TrashView: delete for good and empty', () => {
  it('deletes one item for good after asking', async () => {
    const { posts } = renderTrash([item('a.txt'), item('b.txt')]);
    await userEvent.click(await screen.findByRole('button', { name: 'Delete a.txt for good' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete “a.txt” for good?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete for good' }));
    expect(await screen.findByText('Deleted “a.txt” for good')).toBeTruthy();
    expect(posts('/api/trash/delete')).toHaveLength(1);
    await waitFor(() => expect(screen.queryByRole('rowheader', { name: /a\.txt/ })).toBeNull());
    expect(screen.getByRole('rowheader', { name: /b\.txt/ })).toBeTruthy();
  });

  it('empties the trash after a confirmation; Cancel changes nothing', async () => {
    const { posts } = renderTrash([item('a.txt'), item('b.txt')]);
    await userEvent.click(await screen.findByRole('button', { name: 'Empty trash' }));
    let dialog = await screen.findByRole('dialog', { name: 'Empty the trash?' });
    expect(within(dialog).getByText(/All 2 items in the trash will be deleted for good/)).toBeTruthy();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(posts('/api/trash/empty')).toHaveLength(0);
    await userEvent.click(screen.getByRole('button', { name: 'Empty trash' }));
    dialog = await screen.findByRole('dialog', { name: 'Empty the trash?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Empty trash' }));
    expect(await screen.findByText('Emptied the trash: 2 items deleted for good')).toBeTruthy();
    expect(posts('/api/trash/empty')).toHaveLength(1);
    expect(await screen.findByText('The trash is empty')).toBeTruthy();
  });
});

describe('TrashView: several at once', () => {
  it('restores the selected items, and asks once about those whose names are taken', async () => {
    const { posts, trash } = renderTrash([item('a.txt'), item('b.txt'), item('c.txt'), item('keep.txt')], ['b.txt', 'c.txt']);
    await userEvent.click(await screen.findByRole('checkbox', { name: 'Select a.txt' }));
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select b.txt' }));
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select c.txt' }));
    const bar = screen.getByRole('toolbar', { name: 'Selected items' });
    expect(within(bar).getByText('3 selected')).toBeTruthy();
    await userEvent.click(within(bar).getByRole('button', { name: 'Restore' }));
    const dialog = await screen.findByRole('dialog', { name: '2 names are taken again' });
    expect(within(dialog).getByText('b.txt')).toBeTruthy();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Restore as a copy' }));
    await waitFor(() => expect(trash.current().map((i) => i.name)).toEqual(['keep.txt']));
    const renamed = posts('/api/trash/restore').length;
    expect(renamed).toBe(5); // a, b (409), c (409), then b and c as copies
    expect(screen.queryByRole('toolbar', { name: 'Selected items' })).toBeNull();
  });

  it('selects all, and deletes the selection for good after asking', async () => {
    const { posts } = renderTrash([item('a.txt'), item('b.txt')]);
    await userEvent.click(await screen.findByRole('checkbox', { name: 'Select all' }));
    const bar = screen.getByRole('toolbar', { name: 'Selected items' });
    await userEvent.click(within(bar).getByRole('button', { name: 'Delete for good' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete 2 items for good?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete for good' }));
    expect(await screen.findByText('Deleted 2 items for good')).toBeTruthy();
    expect(posts('/api/trash/delete')).toHaveLength(2);
  });
});

describe('TrashView: live', () => {
  it('trash.changed makes the trash stale (and the usage with it)', () => {
    const keys = keysForEvent({ type: 'trash.changed', username: 'ana', folder: null, file: null });
    expect(keys).toContainEqual(queryKeys.trash('ana'));
    expect(keys).toContainEqual(queryKeys.users);
  });

  it('refreshes when the event stream says the trash changed', async () => {
    let push: (text: string) => void = () => {};
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        push = (text) => controller.enqueue(new TextEncoder().encode(text));
      },
    });
    const trash = fakeTrash([item('a.txt')]);
    stubFetch({
      ...trash.routes,
      'GET /api/events': () => new Response(stream, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
    });
    function WithEvents() {
      useLiveEvents();
      return <TrashView username="ana" />;
    }
    renderWithSession(<WithEvents />);
    await screen.findByRole('rowheader', { name: /a\.txt/ });
    // Another window deletes b.txt: the daemon puts it in the trash and says so.
    trash.add(item('b.txt'));
    push('event: trash.changed\ndata: {"type":"trash.changed","username":"ana"}\n\n');
    expect(await screen.findByRole('rowheader', { name: /b\.txt/ })).toBeTruthy();
  });
});
