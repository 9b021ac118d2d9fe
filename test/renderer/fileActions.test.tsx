/**
 * The explorer's file actions as the toolbar and the context menu show them, for each kind of
 * selection (issue 24, item 5: one table of actions renders both). The toolbar keeps every
 * button in place and disables what does not apply; the menu lists only what applies. Show in
 * file manager is the toolbar's only, inside Electron, for one file; Open is the menu's only.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { FileEntry, Folder } from '../../shared/types';
import type { NimbusBridge } from '../../shared/ipc';
import { NimbusClient } from '../../renderer/api/client';
import { FileBrowser } from '../../renderer/components/FileBrowser/FileBrowser';
import { UploadsProvider } from '../../renderer/upload/UploadsProvider';
import { BASE, fakeLayout, json, renderWithSession, stubFetch } from './harness';

const entry = (name: string): FileEntry => ({
  name,
  folder: null,
  size: 100,
  modifiedAt: '2026-01-02T00:00:00.000Z',
  mimeType: 'text/plain',
  shared: false,
  shareUrl: null,
});
const folder = (name: string): Folder => ({
  name,
  path: name,
  fileCount: 0,
  folderCount: 0,
  sizeBytes: 0,
  modifiedAt: '2026-01-02T00:00:00Z',
});

/** A folder `photos` holding the folder `photos/2024` and a file, as folders.list and folders.files answer at depth. */
function renderNested() {
  const stub = stubFetch({
    'GET /api/folders': (url) =>
      json(200, {
        folders:
          url.searchParams.get('folder') === 'photos'
            ? [{ ...folder('2024'), path: 'photos/2024', folderCount: 0 }]
            : [{ ...folder('photos'), path: 'photos', folderCount: 1 }],
      }),
    'GET /api/folders/files': () => json(200, { files: [{ ...entry('cover.txt'), folder: 'photos' }] }),
    'GET /api/events': () => new Response(new ReadableStream(), { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
    'GET /api/shares': () => json(200, { shares: [] }),
    'POST /api/folders/delete': () => json(200, { msg: 'Folder deleted', trashId: 'f'.repeat(32) }),
    'POST /api/folders/copy': () => json(201, { msg: 'Folder copied', folder: { ...folder('2024'), path: '2024', folderCount: 0 } }),
  });
  renderWithSession(
    <UploadsProvider>
      <FileBrowser username="ana" folder="photos" live="live" onOpenFolder={() => {}} />
    </UploadsProvider>,
    { client: new NimbusClient({ baseUrl: BASE, apiKey: null }), auth: 'session' },
  );
  return stub;
}

function renderBrowser(bridge: Partial<NimbusBridge> | null = null) {
  stubFetch({
    'GET /api/folders': () => json(200, { folders: [folder('Docs'), folder('Photos')] }),
    'GET /api/files': () => json(200, { files: [entry('a.txt'), entry('b.txt'), entry('c.txt')] }),
    'GET /api/events': () => new Response(new ReadableStream(), { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
    'GET /api/shares': () => json(200, { shares: [] }),
  });
  renderWithSession(
    <UploadsProvider>
      <FileBrowser username="ana" folder={null} live="live" onOpenFolder={() => {}} />
    </UploadsProvider>,
    { client: new NimbusClient({ baseUrl: BASE, apiKey: null }), auth: 'session', bridge: bridge as NimbusBridge | null },
  );
}

const grid = () => screen.getByRole('grid', { name: /^Files in ana/ });
/** Each button of the toolbar's group of file actions: its name, tooltip, icon and whether it can be pressed. */
function toolbarActions() {
  const group = document.querySelector('.toolbar__group');
  if (!group) throw new Error('no toolbar group');
  return [...group.querySelectorAll('button')].map((button) => ({
    name: button.getAttribute('aria-label'),
    title: button.getAttribute('title'),
    icon: iconOf(button),
    enabled: !button.disabled,
    danger: button.classList.contains('icon-button--danger'),
  }));
}
/** The Lucide icon's own class (its last: Trash2 also carries its alias `lucide-trash`). */
function iconOf(element: Element): string | undefined {
  return [...(element.querySelector('svg')?.classList ?? [])].filter((name) => name.startsWith('lucide-')).pop();
}
/** The context menu of `name` (after selecting what the test selected): its items, their icons, and which are links. */
async function menuFor(name: string) {
  await userEvent.pointer({ keys: '[MouseRight]', target: within(grid()).getByText(name) });
  const items = within(screen.getByRole('menu'))
    .getAllByRole('menuitem')
    .map((item) => ({
      name: item.textContent,
      icon: iconOf(item),
      link: item.tagName === 'A',
      danger: item.classList.contains('menu__item--danger'),
    }));
  await userEvent.keyboard('{Escape}');
  return items;
}
async function select(...names: string[]) {
  const user = userEvent.setup();
  await user.click(await screen.findByText(names[0]));
  await user.keyboard('{Control>}');
  for (const name of names.slice(1)) await user.click(within(grid()).getByText(name));
  await user.keyboard('{/Control}');
}

const tool = (name: string, title: string, icon: string, enabled: boolean, danger = false) => ({ name, title, icon, enabled, danger });
const item = (name: string, icon: string, link = false, danger = false) => ({ name, icon, link, danger });

let restoreLayout: () => void;
beforeAll(() => {
  restoreLayout = fakeLayout(900, 600);
});
afterAll(() => restoreLayout());
beforeEach(() => localStorage.clear());
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('file actions: the toolbar and the context menu', () => {
  it('a folder inside a folder: open, download, rename, move, copy and delete, by its path', async () => {
    const { fake } = renderNested();
    await select('2024');
    expect(toolbarActions()).toEqual([
      tool('Download as zip', 'Download as zip', 'lucide-download', true),
      tool('Rename', 'Rename (F2)', 'lucide-pencil', true),
      tool('Move to…', 'Move to…', 'lucide-folder-input', true),
      tool('Copy to…', 'Copy to…', 'lucide-copy', true),
      tool('Share link…', 'Share the folder by link', 'lucide-link-2', true),
      tool('Upload link…', 'Upload link: others can upload files into this folder', 'lucide-inbox', true),
      tool('Delete', 'Delete (Del)', 'lucide-trash-2', true, true),
    ]);
    expect(await menuFor('2024')).toEqual([
      item('Open', 'lucide-folder-open'),
      item('Download as zip', 'lucide-download', true),
      item('Rename', 'lucide-pencil'),
      item('Move to…', 'lucide-folder-input'),
      item('Copy to…', 'lucide-copy'),
      item('Share link…', 'lucide-link-2'),
      item('Upload link…', 'lucide-inbox'),
      item('Delete', 'lucide-trash-2', false, true),
    ]);
    // F2 opens the name editor; Escape leaves it.
    await select('2024');
    await userEvent.keyboard('{F2}');
    expect(screen.getByRole('textbox')).toBeTruthy();
    await userEvent.keyboard('{Escape}');
    // The Delete key asks, then deletes the folder by its path (its name alone would be a folder at the root).
    await select('2024');
    await userEvent.keyboard('{Delete}');
    const confirm = await screen.findByRole('dialog');
    await userEvent.click(within(confirm).getByRole('button', { name: 'Delete' }));
    await vi.waitFor(() => {
      // A POST sends its parameters as a JSON body.
      const deleted = fake.mock.calls.find(([input]) => String(input).includes('/api/folders/delete'));
      expect(JSON.parse(String(deleted?.[1]?.body ?? '{}'))).toMatchObject({ username: 'ana', folder: 'photos/2024' });
    });
  });

  it('with nothing selected, the toolbar shows every action disabled', async () => {
    renderBrowser();
    await screen.findByText('a.txt');
    expect(toolbarActions()).toEqual([
      tool('Download', 'Download', 'lucide-download', false),
      tool('Rename', 'Rename (F2)', 'lucide-pencil', false),
      tool('Move to…', 'Move to…', 'lucide-folder-input', false),
      tool('Copy to…', 'Copy to…', 'lucide-copy', false),
      tool('Share', 'Share link', 'lucide-link-2', false),
      tool('Delete', 'Delete (Del)', 'lucide-trash-2', false, true),
    ]);
  });

  it('one file: every action, the download as the file itself (a plain link in the menu), and its versions', async () => {
    renderBrowser();
    await select('b.txt');
    expect(toolbarActions()).toEqual([
      tool('Download', 'Download', 'lucide-download', true),
      tool('Rename', 'Rename (F2)', 'lucide-pencil', true),
      tool('Move to…', 'Move to…', 'lucide-folder-input', true),
      tool('Copy to…', 'Copy to…', 'lucide-copy', true),
      tool('Share', 'Share link', 'lucide-link-2', true),
      // Versions is there only for one file.
      tool('Versions…', 'Versions: what uploads replaced of this file', 'lucide-history', true),
      tool('Delete', 'Delete (Del)', 'lucide-trash-2', true, true),
    ]);
    expect(await menuFor('b.txt')).toEqual([
      item('Open', 'lucide-eye'),
      item('Download', 'lucide-download', true),
      // A text file (issue 29, item 9).
      item('Edit', 'lucide-file-signature'),
      item('Rename', 'lucide-pencil'),
      item('Move to…', 'lucide-folder-input'),
      item('Copy to…', 'lucide-copy'),
      item('Share', 'lucide-link-2'),
      item('Versions…', 'lucide-history'),
      item('Delete', 'lucide-trash-2', false, true),
    ]);
  });

  it('one folder: open, download as zip, rename, move, copy, its share link and upload link, delete', async () => {
    renderBrowser();
    await select('Photos');
    expect(toolbarActions()).toEqual([
      tool('Download as zip', 'Download as zip', 'lucide-download', true),
      tool('Rename', 'Rename (F2)', 'lucide-pencil', true),
      tool('Move to…', 'Move to…', 'lucide-folder-input', true),
      tool('Copy to…', 'Copy to…', 'lucide-copy', true),
      // The share button shares the folder's tree; the upload link is there only for one folder.
      tool('Share link…', 'Share the folder by link', 'lucide-link-2', true),
      tool('Upload link…', 'Upload link: others can upload files into this folder', 'lucide-inbox', true),
      tool('Delete', 'Delete (Del)', 'lucide-trash-2', true, true),
    ]);
    expect(await menuFor('Photos')).toEqual([
      item('Open', 'lucide-folder-open'),
      item('Download as zip', 'lucide-download', true),
      item('Rename', 'lucide-pencil'),
      item('Move to…', 'lucide-folder-input'),
      item('Copy to…', 'lucide-copy'),
      item('Share link…', 'lucide-link-2'),
      item('Upload link…', 'lucide-inbox'),
      item('Delete', 'lucide-trash-2', false, true),
    ]);
  });

  it('several files: a zip, move, copy and delete; rename and share take one file', async () => {
    renderBrowser();
    await select('a.txt', 'c.txt');
    expect(toolbarActions()).toEqual([
      tool('Download as zip', 'Download as zip', 'lucide-download', true),
      tool('Rename', 'Rename (F2)', 'lucide-pencil', false),
      tool('Move to…', 'Move to…', 'lucide-folder-input', true),
      tool('Copy to…', 'Copy to…', 'lucide-copy', true),
      tool('Share', 'Share link', 'lucide-link-2', false),
      tool('Delete', 'Delete (Del)', 'lucide-trash-2', true, true),
    ]);
    expect(await menuFor('c.txt')).toEqual([
      item('Download as zip', 'lucide-download', true),
      item('Move to…', 'lucide-folder-input'),
      item('Copy to…', 'lucide-copy'),
      item('Delete', 'lucide-trash-2', false, true),
    ]);
  });

  it('a folder with a file: downloads (as one zip each, so no single link), moves, copies and deletes', async () => {
    renderBrowser();
    await select('Docs', 'a.txt');
    expect(toolbarActions().map(({ name, enabled }) => [name, enabled])).toEqual([
      ['Download as zip', true],
      ['Rename', false],
      ['Move to…', true],
      ['Copy to…', true],
      ['Share', false],
      ['Delete', true],
    ]);
    expect(await menuFor('a.txt')).toEqual([
      item('Download as zip', 'lucide-download'),
      item('Move to…', 'lucide-folder-input'),
      item('Copy to…', 'lucide-copy'),
      item('Delete', 'lucide-trash-2', false, true),
    ]);
  });

  it('inside Electron, one file adds Show in file manager to the toolbar (not to the menu), which reveals it', async () => {
    const revealFile = vi.fn(async () => {});
    renderBrowser({ revealFile });
    await select('b.txt');
    expect(toolbarActions().map(({ name }) => name)).toEqual([
      'Download',
      'Rename',
      'Move to…',
      'Copy to…',
      'Share',
      'Versions…',
      'Show in file manager',
      'Delete',
    ]);
    expect(toolbarActions()[6]).toEqual(tool('Show in file manager', 'Show in file manager', 'lucide-folder-open', true));
    expect((await menuFor('b.txt')).map(({ name }) => name)).not.toContain('Show in file manager');
    await userEvent.click(screen.getByRole('button', { name: 'Show in file manager' }));
    expect(revealFile).toHaveBeenCalledWith('ana', null, 'b.txt');
  });

  it('inside Electron, a folder or several files have no Show in file manager', async () => {
    renderBrowser({ revealFile: vi.fn(async () => {}) });
    await select('Photos');
    expect(toolbarActions().map(({ name }) => name)).not.toContain('Show in file manager');
    await select('a.txt', 'b.txt');
    expect(toolbarActions().map(({ name }) => name)).not.toContain('Show in file manager');
  });

  it('Copy to… on a folder inside a folder copies it by its path through folders.copy', async () => {
    const { fake } = renderNested();
    await userEvent.pointer({ keys: '[MouseRight]', target: await screen.findByText('2024') });
    await userEvent.click(screen.getByRole('menuitem', { name: 'Copy to…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Copy “2024” to…' });
    // The dialog opens in photos, where the folder is; the root is one crumb up.
    const crumbs = within(within(dialog).getByRole('navigation', { name: 'Target folder path' })).getByRole('list');
    await userEvent.click(within(crumbs).getByRole('button', { name: 'ana' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Copy here' }));
    await vi.waitFor(() => {
      const copied = fake.mock.calls.filter(([input]) => String(input).includes('/api/folders/copy'));
      expect(copied.map(([, init]) => JSON.parse(String(init?.body ?? '{}')))).toEqual([{ username: 'ana', folder: 'photos/2024' }]);
    });
    await screen.findByText('Copied “2024” to ana');
  });

  it('the toolbar’s Rename edits the selected row’s name in place', async () => {
    renderBrowser();
    await select('b.txt');
    await userEvent.click(screen.getByRole('button', { name: 'Rename' }));
    expect(screen.getByRole('textbox', { name: /b\.txt/ })).toBeTruthy();
  });
});
