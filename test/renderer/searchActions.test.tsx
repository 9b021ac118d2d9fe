/**
 * Search results with the folder view's actions (issue 29, item 7), in the file browser against a
 * scripted daemon: the same row menu (right-click, Shift+F10, the menu key, "⋯"), each action on
 * the file in its own folder, the results asked for again after it, "Open containing folder"
 * (the folder, with the file selected), and a breadcrumb and status bar that say it is a search.
 */
import { useState } from 'react';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { FileEntry, Folder } from '../../shared/types';
import { NimbusClient } from '../../renderer/api/client';
import { FileBrowser } from '../../renderer/components/FileBrowser/FileBrowser';
import { UploadsProvider } from '../../renderer/upload/UploadsProvider';
import { BASE, fakeLayout, json, renderWithSession, stubFetch } from './harness';

const entry = (name: string, folder: string | null, mimeType = 'text/plain'): FileEntry => ({
  name,
  folder,
  size: 2048,
  modifiedAt: '2026-03-01T10:00:00.000Z',
  mimeType,
  shared: false,
  shareUrl: null,
});
const dir = (path: string): Folder => ({
  name: path,
  path,
  fileCount: 1,
  folderCount: 0,
  sizeBytes: 2048,
  modifiedAt: '2026-03-01T10:00:00Z',
});

/** Where the scripted storage's files are: the search answers from the same lists. */
function storage(): Record<string, FileEntry[]> {
  return {
    '': [entry('resume-notes.txt', null), entry('todo.txt', null)],
    Docs: [entry('Résumé.pdf', 'Docs', 'application/pdf'), entry('report.txt', 'Docs')],
    Archive: [entry('old resume.png', 'Archive', 'image/png')],
    Photos: [],
  };
}

interface Place {
  folder: string | null;
  search: string;
  focusList?: boolean;
}

/** The shells' part: the address (a folder, a search), and a file browser keyed by its folder. */
function Explorer({ start, onPlace }: { start: Place; onPlace: (place: Place) => void }) {
  const [place, setPlace] = useState(start);
  const go = (next: Place) => {
    onPlace(next);
    setPlace(next);
  };
  return (
    <FileBrowser
      key={place.folder ?? ''}
      username="ana"
      folder={place.folder}
      focusList={place.focusList}
      search={place.search}
      onSearch={(search) => go({ ...place, search })}
      live="live"
      onOpenFolder={(folder) => go({ folder, search: '', focusList: true })}
    />
  );
}

function renderExplorer(start: Place) {
  const files = storage();
  const posts: { path: string; body: Record<string, string> }[] = [];
  const post = (path: string, answer: (body: Record<string, string>) => Response) => async (_url: URL, init: RequestInit) => {
    const body = JSON.parse(String(init.body ?? '{}')) as Record<string, string>;
    posts.push({ path, body });
    return answer(body);
  };
  const take = (body: Record<string, string>) => {
    const list = files[body.folder ?? ''];
    const file = list.find((f) => f.name === body.file)!;
    files[body.folder ?? ''] = list.filter((f) => f !== file);
    return file;
  };
  const stub = stubFetch({
    'GET /api/folders': (url) => json(200, { folders: url.searchParams.has('folder') ? [] : [dir('Archive'), dir('Docs'), dir('Photos')] }),
    'GET /api/files': () => json(200, { files: files[''] }),
    'GET /api/folders/files': (url) => json(200, { files: files[url.searchParams.get('folder') ?? ''] ?? [] }),
    'GET /api/events': () => new Response(new ReadableStream(), { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
    'GET /api/shares': () => json(200, { shares: [] }),
    'GET /api/files/versions': () => json(200, { versions: [] }),
    'GET /api/files/search': (url) => {
      const q = url.searchParams.get('q')!.toLowerCase();
      const fold = (name: string) => name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
      return json(200, { files: ['Docs', '', 'Archive', 'Photos'].flatMap((key) => files[key].filter((f) => fold(f.name).includes(q))) });
    },
    'POST /api/files/rename': post('rename', (body) => {
      const renamed = { ...take(body), name: body.newname };
      files[body.folder ?? ''].push(renamed);
      return json(201, { msg: 'renamed', file: renamed });
    }),
    'POST /api/files/move': post('move', (body) => {
      const moved = { ...take(body), folder: body.to ?? null };
      files[body.to ?? ''].push(moved);
      return json(201, { msg: 'moved', file: moved });
    }),
    'POST /api/files/delete': post('delete', (body) => {
      take(body);
      return json(200, { msg: 'deleted', trashId: 'a'.repeat(32) });
    }),
    'POST /api/files/share': post('share', (body) => {
      const file = files[body.folder ?? ''].find((f) => f.name === body.file)!;
      Object.assign(file, { shared: true, shareUrl: `${BASE}/s/abc` });
      return json(201, { msg: 'shared', file });
    }),
  });
  const places: Place[] = [];
  renderWithSession(
    <UploadsProvider>
      <Explorer start={start} onPlace={(place) => places.push(place)} />
    </UploadsProvider>,
    { client: new NimbusClient({ baseUrl: BASE, apiKey: null }), auth: 'session' },
  );
  const searches = () => stub.calls.filter((call) => call.url.pathname === '/api/files/search');
  return { posts, places, searches, calls: stub.calls };
}

const resultRow = async (name: RegExp) => (await screen.findByRole('rowheader', { name })).closest('tr')!;
const menuItems = () =>
  within(screen.getByRole('menu'))
    .getAllByRole('menuitem')
    .map((item) => item.textContent);

async function menuOn(name: RegExp) {
  await userEvent.pointer({ keys: '[MouseRight]', target: await resultRow(name) });
  return screen.getByRole('menu');
}

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

describe('the menu of a search result', () => {
  it('offers what a file’s menu offers in its folder, and Open containing folder', async () => {
    renderExplorer({ folder: 'Docs', search: '' });
    await userEvent.pointer({ keys: '[MouseRight]', target: await screen.findByText('Résumé.pdf') });
    const inFolder = menuItems();
    expect(inFolder).toEqual(['Open', 'Download', 'Rename', 'Move to…', 'Copy to…', 'Share', 'Versions…', 'Delete']);
    await userEvent.keyboard('{Escape}');

    await userEvent.type(screen.getByRole('searchbox', { name: 'Search files' }), 'resume');
    const menu = await menuOn(/Résumé\.pdf/);
    expect(menu.getAttribute('aria-label')).toBe('Actions for Résumé.pdf');
    expect(menuItems()).toEqual(['Open', 'Open containing folder', ...inFolder.slice(1)]);
  });

  it('opens with Shift+F10, the menu key and the "⋯" button, and gives the focus back to the result', async () => {
    renderExplorer({ folder: null, search: 'resume' });
    await resultRow(/old resume\.png/);
    const opens = [...document.querySelectorAll<HTMLElement>('[data-hit]')];
    opens[0].focus();
    await userEvent.keyboard('{ArrowDown}{Shift>}{F10}{/Shift}');
    expect(screen.getByRole('menu', { name: 'Actions for resume-notes.txt' })).toBeTruthy();
    expect(document.activeElement).toBe(within(screen.getByRole('menu')).getAllByRole('menuitem')[0]);
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).toBeNull();
    expect(document.activeElement).toBe(opens[1]);

    await userEvent.keyboard('{ArrowDown}{ContextMenu}');
    expect(screen.getByRole('menu', { name: 'Actions for old resume.png' })).toBeTruthy();
    await userEvent.keyboard('{Escape}');
    expect(document.activeElement).toBe(opens[2]);

    await userEvent.click(screen.getByRole('button', { name: 'More actions for Résumé.pdf' }));
    expect(screen.getByRole('menu', { name: 'Actions for Résumé.pdf' })).toBeTruthy();
  });

  it('previews the result with Open, among the results', async () => {
    renderExplorer({ folder: null, search: 'resume' });
    await menuOn(/resume-notes\.txt/);
    await userEvent.click(screen.getByRole('menuitem', { name: 'Open' }));
    expect(await screen.findByRole('dialog', { name: /resume-notes\.txt/ })).toBeTruthy();
  });
});

describe('actions on a search result', () => {
  it('renames the file in its own folder, then asks for the results again', async () => {
    const { posts, searches } = renderExplorer({ folder: null, search: 'resume' });
    await menuOn(/Résumé\.pdf/);
    await userEvent.click(screen.getByRole('menuitem', { name: 'Rename' }));
    const field = screen.getByRole('textbox', { name: 'New name for Résumé.pdf' });
    const asked = searches().length;
    await userEvent.clear(field);
    await userEvent.type(field, 'resume 2026.pdf{Enter}');
    await waitFor(() => expect(posts).toHaveLength(1));
    expect(posts[0]).toEqual({ path: 'rename', body: { username: 'ana', folder: 'Docs', file: 'Résumé.pdf', newname: 'resume 2026.pdf' } });
    await resultRow(/resume 2026\.pdf/);
    expect(searches().length).toBeGreaterThan(asked);
    expect(screen.queryByRole('rowheader', { name: /Résumé\.pdf/ })).toBeNull();
  });

  it('moves it from its own folder to the one picked', async () => {
    const { posts } = renderExplorer({ folder: null, search: 'resume' });
    await menuOn(/Résumé\.pdf/);
    await userEvent.click(screen.getByRole('menuitem', { name: 'Move to…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Move “Résumé.pdf” to…' });
    // It opens where the file is (Docs): up to the root, then into Photos.
    await userEvent.click(
      within(within(dialog).getByRole('navigation', { name: 'Target folder path' })).getByRole('button', { name: 'ana' }),
    );
    await userEvent.click(await within(dialog).findByRole('button', { name: 'Photos' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Move here' }));
    await waitFor(() => expect(posts).toHaveLength(1));
    expect(posts[0]).toEqual({ path: 'move', body: { username: 'ana', folder: 'Docs', file: 'Résumé.pdf', to: 'Photos' } });
    // The results are asked for again: the file is now in Photos.
    const row = await screen.findByRole('button', { name: 'Open the folder Photos' });
    expect(within(row.closest('tr')!).getByRole('rowheader', { name: /Résumé\.pdf/ })).toBeTruthy();
  });

  it('deletes it (the Delete key on the result) from its own folder', async () => {
    const { posts } = renderExplorer({ folder: null, search: 'resume' });
    await resultRow(/old resume\.png/);
    document.querySelector<HTMLElement>('[data-hit="2"]')!.focus();
    await userEvent.keyboard('{Delete}');
    const dialog = screen.getByRole('dialog', { name: 'Delete “old resume.png”?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(posts).toHaveLength(1));
    expect(posts[0]).toEqual({ path: 'delete', body: { username: 'ana', folder: 'Archive', file: 'old resume.png' } });
    await waitFor(() => expect(screen.queryByRole('rowheader', { name: /old resume\.png/ })).toBeNull());
    // The focus stays in the results, never on the page.
    await waitFor(() => expect(document.activeElement?.hasAttribute('data-hit')).toBe(true));
  });

  it('shares it, downloads it and shows its versions, each in its own folder', async () => {
    const { posts, calls } = renderExplorer({ folder: null, search: 'resume' });
    await menuOn(/Résumé\.pdf/);
    const download = new URL(screen.getByRole('menuitem', { name: 'Download' }).getAttribute('href')!);
    expect(Object.fromEntries(download.searchParams)).toEqual({ username: 'ana', folder: 'Docs', file: 'Résumé.pdf' });
    await userEvent.click(screen.getByRole('menuitem', { name: 'Share' }));
    await waitFor(() => expect(posts).toHaveLength(1));
    expect(posts[0]).toEqual({ path: 'share', body: { username: 'ana', folder: 'Docs', file: 'Résumé.pdf' } });
    await userEvent.keyboard('{Escape}');

    await menuOn(/Résumé\.pdf/);
    await userEvent.click(screen.getByRole('menuitem', { name: 'Versions…' }));
    await waitFor(() => expect(calls.some((call) => call.url.pathname === '/api/files/versions')).toBe(true));
    const versions = calls.find((call) => call.url.pathname === '/api/files/versions')!;
    expect(versions.url.searchParams.get('folder')).toBe('Docs');
  });

  it('lends the toolbar the result last focused', async () => {
    renderExplorer({ folder: null, search: 'resume' });
    await resultRow(/old resume\.png/);
    const toolbarDelete = () => screen.getByRole('button', { name: 'Delete' }) as HTMLButtonElement;
    expect(toolbarDelete().disabled).toBe(true);
    expect(screen.queryByRole('button', { name: 'Open containing folder' })).toBeNull();
    document.querySelector<HTMLElement>('[data-hit="2"]')!.focus();
    await waitFor(() => expect(toolbarDelete().disabled).toBe(false));
    await userEvent.click(toolbarDelete());
    expect(screen.getByRole('dialog', { name: 'Delete “old resume.png”?' })).toBeTruthy();
  });
});

describe('Open containing folder', () => {
  it('opens the result’s folder with the file selected and the list focused', async () => {
    const { places } = renderExplorer({ folder: null, search: 'resume' });
    await menuOn(/old resume\.png/);
    await userEvent.click(screen.getByRole('menuitem', { name: 'Open containing folder' }));
    expect(places.at(-1)).toMatchObject({ folder: 'Archive', search: '' });
    const grid = await screen.findByRole('grid', { name: 'Files in ana › Archive' });
    const row = (await within(grid).findByText('old resume.png')).closest('[role="row"]')!;
    await waitFor(() => expect(row.getAttribute('aria-selected')).toBe('true'));
    expect(document.activeElement).toBe(grid);
    expect(screen.getByRole('searchbox', { name: 'Search files' })).toHaveProperty('value', '');
  });

  it('selects the file when its folder is the one the search was typed in', async () => {
    renderExplorer({ folder: null, search: 'resume' });
    await menuOn(/resume-notes\.txt/);
    await userEvent.click(screen.getByRole('menuitem', { name: 'Open containing folder' }));
    const grid = await screen.findByRole('grid', { name: 'Files in ana' });
    const row = (await within(grid).findByText('resume-notes.txt')).closest('[role="row"]')!;
    await waitFor(() => expect(row.getAttribute('aria-selected')).toBe('true'));
  });
});

describe('where a search says it is', () => {
  it('has a breadcrumb and a status bar of its own, and the breadcrumb leads back out', async () => {
    const { places } = renderExplorer({ folder: 'Docs', search: 'resume' });
    await resultRow(/old resume\.png/);
    const crumbs = screen.getByRole('navigation', { name: 'Breadcrumb' });
    const here = within(crumbs).getByText('Search results for “resume” in all folders');
    expect(here.closest('[aria-current="page"]')).toBeTruthy();
    // Not the folder it was typed in: the search covers every folder.
    expect(within(crumbs).queryByText('Docs')).toBeNull();
    expect(document.querySelector('.statusbar__summary')!.textContent).toBe('3 files found');

    await userEvent.click(within(crumbs).getByRole('button', { name: 'ana' }));
    expect(places.at(-1)).toMatchObject({ folder: null, search: '' });
    await screen.findByRole('grid', { name: 'Files in ana' });
    expect(document.querySelector('.statusbar__summary')!.textContent).toMatch(/^3 folders · 2 files · /);
  });

  it('says when nothing was found', async () => {
    renderExplorer({ folder: null, search: 'zebra' });
    await screen.findByText('No files match “zebra”');
    expect(document.querySelector('.statusbar__summary')!.textContent).toBe('0 files found');
  });
});
