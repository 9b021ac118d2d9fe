/**
 * The sidebar's folder tree (issue 25): lazy (a folder's folders are fetched when it is
 * expanded, a chevron only where folderCount says there are some), the WAI-ARIA tree keys,
 * the open folder highlighted with its parents expanded, live folder events, and drops.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import type { Folder } from '../../shared/types';
import { useOfferRowDrop } from '../../renderer/components/FileBrowser/rowDrop';
import { ROWS_DRAG_TYPE } from '../../renderer/components/FileTable/rowEvents';
import { FolderTree } from '../../renderer/components/Sidebar/FolderTree';
import { useLiveEvents } from '../../renderer/hooks/useLiveEvents';
import { json, renderWithSession, stubFetch } from './harness';

const node = (path: string, folderCount = 0): Folder => ({
  name: path.slice(path.lastIndexOf('/') + 1),
  path,
  fileCount: 0,
  folderCount,
  sizeBytes: 0,
  modifiedAt: '2026-01-02T00:00:00Z',
});

/** An event stream the test writes to. */
function eventStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => (controller = c) });
  return {
    response: () => new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
    send: (type: string, data: object) =>
      controller.enqueue(new TextEncoder().encode(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)),
  };
}

function Live({ children }: { children: ReactNode }) {
  useLiveEvents();
  return <>{children}</>;
}

function renderTree(open: string | null, extra: ReactNode = null) {
  const tree: Record<string, Folder[]> = {
    '': [node('Docs'), node('Photos', 2)],
    Photos: [node('Photos/2024', 1), node('Photos/Old')],
    'Photos/2024': [node('Photos/2024/June')],
  };
  const events = eventStream();
  const { calls } = stubFetch({
    'GET /api/folders': (url) => {
      const folder = url.searchParams.get('folder') ?? '';
      return folder in tree ? json(200, { folders: tree[folder] }) : json(404, { error: 'Folder not found', code: 'folder_not_found' });
    },
    'GET /api/events': () => events.response(),
  });
  const onOpen = vi.fn();
  renderWithSession(
    <Live>
      <FolderTree username="ana" open={open} onOpen={onOpen} />
      {extra}
    </Live>,
  );
  const listed = () => calls.filter((call) => call.url.pathname === '/api/folders').map((call) => call.url.searchParams.get('folder'));
  return { tree, events, onOpen, listed };
}

const items = () => within(screen.getByRole('tree', { name: 'Folders of ana' })).queryAllByRole('treeitem');
const shown = () => items().map((item) => `${'  '.repeat(Number(item.getAttribute('aria-level')) - 1)}${item.textContent}`);
const item = (name: string) => items().find((candidate) => candidate.textContent === name)!;

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the sidebar folder tree', () => {
  it('fetches a folder’s folders only when it is expanded, and moves, expands and collapses by the tree keys', async () => {
    const { onOpen, listed } = renderTree(null);
    await waitFor(() => expect(shown()).toEqual(['Docs', 'Photos']));
    expect(item('Docs').hasAttribute('aria-expanded')).toBe(false);
    expect(item('Photos').getAttribute('aria-expanded')).toBe('false');
    expect(listed()).toEqual([null]);

    await userEvent.tab();
    expect(document.activeElement).toBe(item('Docs'));
    await userEvent.keyboard('{ArrowDown}{ArrowRight}');
    await waitFor(() => expect(shown()).toEqual(['Docs', 'Photos', '  2024', '  Old']));
    expect(item('Photos').getAttribute('aria-expanded')).toBe('true');
    expect(document.activeElement).toBe(item('Photos'));
    expect(listed()).toEqual([null, 'Photos']);

    await userEvent.keyboard('{ArrowRight}');
    expect(document.activeElement).toBe(item('2024'));
    await userEvent.keyboard('{ArrowRight}');
    await waitFor(() => expect(shown()).toEqual(['Docs', 'Photos', '  2024', '    June', '  Old']));
    await userEvent.keyboard('{ArrowDown}');
    expect(document.activeElement).toBe(item('June'));
    // ← on a leaf goes to its parent, then collapses it, then goes to its parent.
    await userEvent.keyboard('{ArrowLeft}');
    expect(document.activeElement).toBe(item('2024'));
    await userEvent.keyboard('{ArrowLeft}');
    expect(shown()).toEqual(['Docs', 'Photos', '  2024', '  Old']);
    await userEvent.keyboard('{ArrowLeft}');
    expect(document.activeElement).toBe(item('Photos'));
    await userEvent.keyboard('{End}');
    expect(document.activeElement).toBe(item('Old'));
    await userEvent.keyboard('{Home}{Enter}');
    expect(onOpen).toHaveBeenLastCalledWith('Docs');
    // A click on a name opens the folder; on the chevron, it only expands or collapses.
    await userEvent.click(item('2024'));
    expect(onOpen).toHaveBeenLastCalledWith('Photos/2024');
    await userEvent.click(item('Photos').querySelector('.folder-tree__chevron')!);
    expect(shown()).toEqual(['Docs', 'Photos']);
    expect(onOpen).toHaveBeenCalledTimes(2);
  });

  it('highlights the open folder, its parents expanded, and makes it the tab stop', async () => {
    renderTree('Photos/2024/June');
    await waitFor(() => expect(shown()).toEqual(['Docs', 'Photos', '  2024', '    June', '  Old']));
    expect(item('June').getAttribute('aria-selected')).toBe('true');
    expect(item('June').getAttribute('aria-current')).toBe('page');
    expect(item('Docs').getAttribute('aria-selected')).toBe('false');
    expect(items().filter((candidate) => candidate.tabIndex === 0)).toEqual([item('June')]);
  });

  it('follows live folder events: a folder added, one moved away, with no error for the one gone', async () => {
    const { tree, events } = renderTree('Photos/2024');
    await waitFor(() => expect(shown()).toEqual(['Docs', 'Photos', '  2024', '  Old']));
    await userEvent.click(item('2024').querySelector('.folder-tree__chevron')!);
    await waitFor(() => expect(shown()).toEqual(['Docs', 'Photos', '  2024', '    June', '  Old']));
    tree[''] = [...tree[''], node('Music')];
    events.send('folder.added', { username: 'ana', folder: 'Music' });
    await waitFor(() => expect(shown()).toEqual(['Docs', 'Photos', '  2024', '    June', '  Old', 'Music']));

    // Photos/2024 moves into Docs: gone from Photos, and its old listing answers 404.
    tree[''] = [node('Docs', 1), node('Photos', 1), node('Music')];
    tree.Photos = [node('Photos/Old')];
    tree.Docs = [node('Docs/2024', 1)];
    delete tree['Photos/2024'];
    events.send('folder.moved', { username: 'ana', folder: 'Docs/2024', from: 'Photos/2024' });
    await waitFor(() => expect(shown()).toEqual(['Docs', 'Photos', '  Old', 'Music']));
    expect(screen.queryByText(/Could not/)).toBeNull();
  });

  it('shows the first 200 folders of a level, then a "Show more" entry that shows the rest', async () => {
    const many = Array.from({ length: 205 }, (_, index) => node(`f${String(index).padStart(3, '0')}`));
    stubFetch({ 'GET /api/folders': () => json(200, { folders: many }) });
    renderWithSession(<FolderTree username="ana" open={null} onOpen={vi.fn()} />);
    await waitFor(() => expect(items()).toHaveLength(201));
    const more = items()[200];
    expect(more.textContent).toBe('Show 5 more folders');
    more.focus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(items()).toHaveLength(205));
    expect(items()[204].textContent).toBe('f204');
    expect(items()[204].getAttribute('aria-setsize')).toBe('205');
  });

  it('moves rows dropped on a folder as the file browser on screen moves them', async () => {
    const dropInto = vi.fn();
    function Browser() {
      useOfferRowDrop('ana', dropInto);
      return null;
    }
    renderTree(null, <Browser />);
    await waitFor(() => expect(shown()).toEqual(['Docs', 'Photos']));
    const dataTransfer = { types: [ROWS_DRAG_TYPE], getData: () => '["a.txt"]', dropEffect: 'none' };
    fireEvent.dragOver(item('Photos'), { dataTransfer });
    expect(item('Photos').classList.contains('is-drop-target')).toBe(true);
    fireEvent.drop(item('Photos'), { dataTransfer });
    expect(dropInto).toHaveBeenCalledTimes(1);
    expect(dropInto.mock.calls[0][0]).toBe('Photos');
    expect(item('Photos').classList.contains('is-drop-target')).toBe(false);
  });
});
