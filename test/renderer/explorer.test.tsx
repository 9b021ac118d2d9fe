/**
 * The explorer's context menu, move dialog, multi-select actions, Undo and grid view, in jsdom
 * against a scripted daemon (the rows answer as docs/explorer.md says).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { FileEntry, Folder } from '../../shared/types';
import { NimbusClient } from '../../renderer/api/client';
import { FileBrowser } from '../../renderer/components/FileBrowser/FileBrowser';
import { planDownload } from '../../renderer/hooks/useDownloads';
import { fileRow, folderRow } from '../../renderer/lib/rows';
import { UploadsProvider } from '../../renderer/upload/UploadsProvider';
import { BASE, fakeLayout, json, renderWithSession, stubFetch } from './harness';

const entry = (name: string, folder: string | null = null, mimeType = 'text/plain'): FileEntry => ({
  name,
  folder,
  size: 100,
  modifiedAt: '2026-01-02T00:00:00.000Z',
  mimeType,
  shared: false,
  shareUrl: null,
});
const photos: Folder = { name: 'Photos', path: 'Photos', fileCount: 0, folderCount: 0, sizeBytes: 0, modifiedAt: '2026-01-02T00:00:00Z' };
const docs: Folder = { ...photos, name: 'Docs', path: 'Docs' };
const TRASH_ID = (n: number) => n.toString(16).padStart(32, '0');

interface Scripted {
  root: FileEntry[];
  posts: { path: string; body: Record<string, string> }[];
}

function renderBrowser(opts: { session?: boolean; root?: FileEntry[]; folders?: Folder[] } = {}) {
  const state: Scripted = { root: opts.root ?? [entry('a.txt'), entry('b.txt'), entry('c.txt')], posts: [] };
  let trashCounter = 0;
  const post = (path: string, answer: (body: Record<string, string>) => Response) => async (_url: URL, init: RequestInit) => {
    const body = JSON.parse(String(init.body ?? '{}')) as Record<string, string>;
    state.posts.push({ path, body });
    return answer(body);
  };
  const stub = stubFetch({
    'GET /api/folders': (url) => json(200, { folders: url.searchParams.has('folder') ? [] : (opts.folders ?? [photos]) }),
    'GET /api/files': () => json(200, { files: state.root }),
    'GET /api/folders/files': () => json(200, { files: [] }),
    'GET /api/events': () => new Response(new ReadableStream(), { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
    'POST /api/files/move': post('move', (body) => {
      state.root = state.root.filter((file) => file.name !== body.file);
      return json(201, { msg: 'moved', file: entry(body.file, body.to ?? null) });
    }),
    'POST /api/folders/move': post('folder-move', (body) =>
      json(201, { msg: 'moved', folder: { ...photos, name: body.folder, path: `${body.to}/${body.folder}` } }),
    ),
    'POST /api/files/copy': post('copy', (body) => json(201, { msg: 'copied', file: entry(body.file, body.to ?? null) })),
    'POST /api/files/delete': post('delete', (body) => {
      state.root = state.root.filter((file) => file.name !== body.file);
      trashCounter += 1;
      return json(200, { msg: 'deleted', trashId: TRASH_ID(trashCounter) });
    }),
    'POST /api/trash/restore': post('restore', () => json(201, { msg: 'restored', restored: { kind: 'file', name: 'x', folder: null } })),
  });
  renderWithSession(
    <UploadsProvider>
      <FileBrowser username="ana" folder={null} live="live" onOpenFolder={() => {}} />
    </UploadsProvider>,
    opts.session === false ? {} : { client: new NimbusClient({ baseUrl: BASE, apiKey: null }), auth: 'session' },
  );
  return { state, stub };
}

const grid = () => screen.getByRole('grid', { name: 'Files in ana' });
const selectedNames = () =>
  within(grid())
    .getAllByRole('row')
    .filter((row) => row.getAttribute('aria-selected') === 'true')
    .map((row) => row.querySelector('.ft__name-text')?.textContent);

let restore: () => void;
beforeAll(() => {
  restore = fakeLayout(900, 600);
});
afterAll(() => restore());
beforeEach(() => localStorage.clear());
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('context menu', () => {
  it('opens for the active row with Shift+F10, moves with the arrows, and Escape gives the focus back to the list', async () => {
    renderBrowser();
    await screen.findByText('a.txt');
    grid().focus();
    await userEvent.keyboard('{ArrowDown}{ArrowDown}{ArrowDown}'); // Photos, a.txt, b.txt
    await userEvent.keyboard('{Shift>}{F10}{/Shift}');
    const menu = screen.getByRole('menu', { name: 'Actions for b.txt' });
    const items = within(menu).getAllByRole('menuitem');
    expect(items.map((item) => item.textContent)).toEqual([
      'Open',
      'Download',
      'Edit',
      'Rename',
      'Move to…',
      'Copy to…',
      'Share',
      'Versions…',
      'Delete',
    ]);
    expect(document.activeElement).toBe(items[0]);
    await userEvent.keyboard('{ArrowDown}');
    expect(document.activeElement).toBe(items[1]);
    await userEvent.keyboard('{ArrowUp}{ArrowUp}');
    expect(document.activeElement).toBe(items[items.length - 1]); // wraps
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).toBeNull();
    expect(document.activeElement).toBe(grid());
    expect(selectedNames()).toEqual(['b.txt']);
  });

  it('offers a signed-in user the download as a plain link to the daemon, never a blob', async () => {
    renderBrowser();
    await userEvent.pointer({ keys: '[MouseRight]', target: await screen.findByText('a.txt') });
    const download = within(screen.getByRole('menu')).getByRole('menuitem', { name: 'Download' });
    expect(download.tagName).toBe('A');
    const href = new URL(download.getAttribute('href')!);
    expect(href.origin + href.pathname).toBe(`${BASE}/api/files/download`);
    expect(Object.fromEntries(href.searchParams)).toEqual({ username: 'ana', file: 'a.txt' });
    expect(download.getAttribute('download')).toBe('a.txt');
  });

  it('acts on the whole selection when right-clicking a selected row: a zip of the files, move, copy, delete', async () => {
    renderBrowser();
    const user = userEvent.setup();
    await user.click(await screen.findByText('a.txt'));
    await user.keyboard('{Shift>}');
    await user.click(within(grid()).getByText('c.txt'));
    await user.keyboard('{/Shift}');
    expect(selectedNames()).toEqual(['a.txt', 'b.txt', 'c.txt']);
    await userEvent.pointer({ keys: '[MouseRight]', target: within(grid()).getByText('b.txt') });
    const menu = screen.getByRole('menu', { name: 'Actions for 3 items' });
    expect(
      within(menu)
        .getAllByRole('menuitem')
        .map((item) => item.textContent),
    ).toEqual(['Download as zip', 'Move to…', 'Copy to…', 'Delete']);
    const zip = new URL(within(menu).getByRole('menuitem', { name: 'Download as zip' }).getAttribute('href')!);
    expect(zip.pathname).toBe('/api/folders/download');
    expect(zip.searchParams.get('files')).toBe('a.txt/b.txt/c.txt');
  });

  it('opens from the row’s "⋯" button (touch), selecting that row', async () => {
    renderBrowser();
    await screen.findByText('c.txt');
    await userEvent.click(screen.getByRole('button', { name: 'More actions for c.txt' }));
    expect(screen.getByRole('menu', { name: 'Actions for c.txt' })).toBeTruthy();
    expect(selectedNames()).toEqual(['c.txt']);
  });
});

describe('move and copy', () => {
  it('moves the selected files to the folder picked in the dialog, one call per file', async () => {
    const { state } = renderBrowser();
    await screen.findByText('a.txt');
    await userEvent.click(within(grid()).getByText('a.txt'));
    await userEvent.keyboard('{Shift>}{ArrowDown}{/Shift}');
    await userEvent.click(screen.getByRole('button', { name: 'Move to…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Move 2 files to…' });
    // The root is where they are: not a target. Photos, opened, is.
    expect((within(dialog).getByRole('button', { name: 'Move here' }) as HTMLButtonElement).disabled).toBe(true);
    await userEvent.click(await within(dialog).findByRole('button', { name: 'Photos' }));
    await within(dialog).findByText('Moves into Photos.');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Move here' }));
    await waitFor(() => expect(state.posts.filter((p) => p.path === 'move')).toHaveLength(2));
    expect(state.posts.map((p) => p.body)).toEqual([
      { username: 'ana', file: 'a.txt', to: 'Photos' },
      { username: 'ana', file: 'b.txt', to: 'Photos' },
    ]);
    await screen.findByText('Moved 2 files to Photos');
    await waitFor(() => expect(within(grid()).queryByText('a.txt')).toBeNull());
  });

  it('copies one file from its context menu', async () => {
    const { state } = renderBrowser();
    await userEvent.pointer({ keys: '[MouseRight]', target: await screen.findByText('c.txt') });
    await userEvent.click(screen.getByRole('menuitem', { name: 'Copy to…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Copy “c.txt” to…' });
    await userEvent.click(await within(dialog).findByRole('button', { name: 'Photos' }));
    await within(dialog).findByText('Copies into Photos.');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Copy here' }));
    await waitFor(() => expect(state.posts).toEqual([{ path: 'copy', body: { username: 'ana', file: 'c.txt', to: 'Photos' } }]));
  });
});

describe('moving a folder', () => {
  it('moves a folder with Move to…: greyed in the dialog, moved into the folder picked, by its path', async () => {
    const { state } = renderBrowser({ folders: [docs, photos] });
    await screen.findByText('a.txt');
    await userEvent.click(within(grid()).getByText('Photos'));
    await userEvent.click(screen.getByRole('button', { name: 'Move to…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Move “Photos” to…' });
    const itself = await within(dialog).findByRole('button', { name: 'Photos', description: 'Being moved' });
    expect(itself.getAttribute('aria-disabled')).toBe('true');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Docs' }));
    await within(dialog).findByText('Moves into Docs.');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Move here' }));
    await waitFor(() => expect(state.posts).toEqual([{ path: 'folder-move', body: { username: 'ana', folder: 'Photos', to: 'Docs' } }]));
    await screen.findByText('Moved “Photos” to Docs');
  });

  it('moves folders and files picked together, and says items, not files', async () => {
    const { state } = renderBrowser({ folders: [docs, photos] });
    await screen.findByText('a.txt');
    await userEvent.click(within(grid()).getByText('Photos'));
    await userEvent.keyboard('{Shift>}{ArrowDown}{/Shift}');
    await userEvent.click(screen.getByRole('button', { name: 'Move to…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Move 2 items to…' });
    await userEvent.click(await within(dialog).findByRole('button', { name: 'Docs' }));
    await within(dialog).findByText('Moves into Docs.');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Move here' }));
    await waitFor(() => expect(state.posts.map((p) => p.path)).toEqual(['folder-move', 'move']));
    await screen.findByText('Moved 2 items to Docs');
  });
});

describe('delete and Undo', () => {
  it('deletes the selection to the trash and one Undo restores every item', async () => {
    const { state } = renderBrowser();
    const user = userEvent.setup();
    await user.click(await screen.findByText('a.txt'));
    await user.keyboard('{Control>}');
    await user.click(within(grid()).getByText('c.txt'));
    await user.keyboard('{/Control}{Delete}');
    const confirm = await screen.findByRole('dialog', { name: 'Delete 2 items?' });
    expect(confirm.textContent).toContain('trash');
    await userEvent.click(within(confirm).getByRole('button', { name: 'Delete' }));
    const toast = await screen.findByText('Moved 2 items to the trash');
    const undo = within(toast.closest('.toast') as HTMLElement).getByRole('button', { name: 'Undo' });
    await userEvent.click(undo);
    await waitFor(() => expect(state.posts.filter((p) => p.path === 'restore')).toHaveLength(2));
    expect(state.posts.filter((p) => p.path === 'restore').map((p) => p.body.id)).toEqual([TRASH_ID(1), TRASH_ID(2)]);
  });
});

describe('grid view', () => {
  it('shows cards with lazy thumbnails for images and icons for the rest, and remembers the choice per user', async () => {
    renderBrowser({ root: [entry('beach.jpg', null, 'image/jpeg'), entry('logo.svg', null, 'image/svg+xml'), entry('notes.txt')] });
    await screen.findByText('beach.jpg');
    await userEvent.click(screen.getByRole('button', { name: 'Grid view' }));
    expect(localStorage.getItem('nimbus.view.ana')).toBe('grid');
    const cards = within(grid()).getAllByRole('gridcell');
    expect(cards.map((card) => card.querySelector('.fg__name')?.textContent)).toEqual(['Photos', 'beach.jpg', 'logo.svg', 'notes.txt']);
    const images = grid().querySelectorAll('img');
    expect(images).toHaveLength(1); // SVG is never rasterised: an icon
    expect(images[0].getAttribute('loading')).toBe('lazy');
    expect(new URL(images[0].src).pathname).toBe('/api/files/thumbnail');
    // Keys as in the list: arrows move across, Shift extends.
    grid().focus();
    await userEvent.keyboard('{ArrowRight}{Shift>}{ArrowRight}{/Shift}');
    expect(cards.filter((card) => card.getAttribute('aria-selected') === 'true')).toHaveLength(2);
    cleanup();
    renderBrowser();
    expect(await screen.findByRole('button', { name: 'Grid view', pressed: true })).toBeTruthy();
  });
});

describe('planDownload', () => {
  const rows = [folderRow(photos), fileRow(entry('a.txt')), fileRow(entry('b.txt'))];
  it('downloads one file as itself, several as one zip, a folder as its zip, everything as the storage', () => {
    expect(planDownload([rows[1]], 'ana', null)).toEqual([{ folder: null, file: 'a.txt', saveAs: 'a.txt' }]);
    expect(planDownload(rows.slice(1), 'ana', 'Docs')).toEqual([{ folder: 'Docs', files: ['a.txt', 'b.txt'], saveAs: 'Docs.zip' }]);
    expect(planDownload([rows[0]], 'ana', null)).toEqual([{ folder: 'Photos', saveAs: 'Photos.zip' }]);
    expect(planDownload(rows, 'ana', null, true)).toEqual([{ folder: null, saveAs: 'ana.zip' }]);
    expect(planDownload(rows, 'ana', null, false)).toEqual([
      { folder: 'Photos', saveAs: 'Photos.zip' },
      { folder: null, files: ['a.txt', 'b.txt'], saveAs: 'files.zip' },
    ]);
  });

  it('at depth, zips a subfolder by its path and names each zip after the folder itself', () => {
    const june = folderRow({ ...photos, name: 'june', path: 'photos/2024/june' });
    expect(planDownload([june], 'ana', 'photos/2024')).toEqual([{ folder: 'photos/2024/june', saveAs: 'june.zip' }]);
    expect(planDownload(rows.slice(1), 'ana', 'photos/2024')).toEqual([
      { folder: 'photos/2024', files: ['a.txt', 'b.txt'], saveAs: '2024.zip' },
    ]);
  });
});
