import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { SearchHit } from '../../shared/types';
import { keysForEvent, queryKeys } from '../../renderer/api/queryKeys';
import type { ActionCommands } from '../../renderer/components/FileBrowser/fileActions';
import { SearchView, type SearchActions } from '../../renderer/components/SearchView/SearchView';
import { matchRange } from '../../renderer/components/SearchView/highlight';
import { useSearchSummary } from '../../renderer/components/SearchView/searchSummary';
import { SEARCH_PAGE } from '../../renderer/hooks/useSearch';
import { json, renderWithSession, stubFetch, type Route } from './harness';

const hit = (name: string, folder: string | null, mimeType = 'application/octet-stream'): SearchHit => ({
  name,
  folder,
  size: 4096,
  modifiedAt: '2026-03-01T10:00:00.000Z',
  mimeType,
  shared: false,
  shareUrl: null,
});

const HITS = [
  hit('Résumé.pdf', 'Docs', 'application/pdf'),
  hit('resume-notes.txt', null, 'text/plain'),
  hit('old resume.png', 'Archive', 'image/png'),
];

/** The folder view's actions, as spies (searchActions.test.tsx has the real ones). */
function fakeActions(): SearchActions {
  const commands = Object.fromEntries(
    ['open', 'download', 'downloadLink', 'rename', 'move', 'copy', 'share', 'uploadLink', 'versions', 'reveal', 'openFolder', 'remove'].map(
      (name) => [name, vi.fn(() => null)],
    ),
  ) as unknown as ActionCommands;
  return { commands, inShell: false, editingKey: null, onRenameCommit: vi.fn(), onRenameCancel: vi.fn(), onChoose: vi.fn() };
}

/** The status bar's line (FileBrowser shows it under the results). */
function Summary({ query }: { query: string }) {
  return <output aria-label="Summary">{useSearchSummary('ana', query)}</output>;
}

function renderSearch(query: string, files: SearchHit[] | Route = HITS) {
  const route: Route =
    typeof files === 'function'
      ? files
      : (url) => {
          const offset = Number(url.searchParams.get('offset') ?? 0);
          const limit = Number(url.searchParams.get('limit') ?? 100_000);
          return json(200, { files: files.slice(offset, offset + limit) });
        };
  const stub = stubFetch({ 'GET /api/files/search': route });
  const onOpenFolder = vi.fn();
  const onPreview = vi.fn();
  const actions = fakeActions();
  const view = renderWithSession(
    <>
      <SearchView username="ana" query={query} onOpenFolder={onOpenFolder} onPreview={onPreview} actions={actions} />
      <Summary query={query} />
    </>,
  );
  const searches = () => stub.calls.filter((c) => c.url.pathname === '/api/files/search');
  return { ...stub, view, onOpenFolder, onPreview, searches, actions };
}

/** The explorer's side: a search box whose text the view follows. */
function renderSearchTyping(route: Route) {
  const stub = stubFetch({ 'GET /api/files/search': route });
  function Typing() {
    const [query, setQuery] = useState('res');
    return (
      <>
        <input aria-label="Search" value={query} onChange={(event) => setQuery(event.target.value)} />
        <SearchView username="ana" query={query} onOpenFolder={() => {}} onPreview={() => {}} actions={fakeActions()} />
      </>
    );
  }
  renderWithSession(<Typing />);
  return { searches: () => stub.calls.filter((c) => c.url.pathname === '/api/files/search') };
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('matchRange', () => {
  it('finds the text ignoring case and accents, on the name as written', () => {
    expect(matchRange('Résumé.pdf', 'resume')).toEqual([0, 6]);
    expect(matchRange('My ÉTÉ.txt', 'été')).toEqual([3, 6]);
    // Decomposed accents (NFD) cover both units of each letter.
    expect(matchRange('Cafe\u0301 menu', 'café')).toEqual([0, 5]);
    expect(matchRange('ﬁle.txt', 'fi')).toEqual([0, 1]);
    expect(matchRange('report.pdf', 'xyz')).toBeNull();
    expect(matchRange('report.pdf', '')).toBeNull();
  });
});

describe('SearchView', () => {
  it('lists each hit with its folder, the match marked', async () => {
    const { searches } = renderSearch('  resume ');
    const row = (await screen.findByRole('rowheader', { name: /Résumé\.pdf/ })).closest('tr')!;
    expect(row.querySelector('mark')!.textContent).toBe('Résumé');
    expect(within(row).getByRole('button', { name: 'Open the folder Docs' })).toBeTruthy();
    const rootRow = screen.getByRole('rowheader', { name: /resume-notes\.txt/ }).closest('tr')!;
    expect(within(rootRow).getByRole('button', { name: 'Open the root folder' }).textContent).toBe('Root');
    expect(screen.getByRole('heading', { name: 'Results for “resume”' })).toBeTruthy();
    expect(screen.getByRole('table', { name: 'Results for “resume”' })).toBeTruthy();
    expect(screen.getByRole('status', { name: 'Summary' }).textContent).toBe('3 files found');
    // The text is sent trimmed.
    expect(searches()[0].url.searchParams.get('q')).toBe('resume');
    expect(searches()[0].url.searchParams.get('username')).toBe('ana');
  });

  it('opens a hit’s folder (null for the root)', async () => {
    const { onOpenFolder } = renderSearch('resume');
    await userEvent.click(await screen.findByRole('button', { name: 'Open the folder Archive' }));
    expect(onOpenFolder).toHaveBeenLastCalledWith('Archive');
    await userEvent.click(screen.getByRole('button', { name: 'Open the root folder' }));
    expect(onOpenFolder).toHaveBeenLastCalledWith(null);
  });

  it('previews a hit by click, by Enter and by double click, with the hits as the listing', async () => {
    const { onPreview } = renderSearch('resume');
    const second = await screen.findByRole('button', { name: /^resume-notes\.txt$/ });
    await userEvent.click(second);
    expect(onPreview).toHaveBeenLastCalledWith(HITS, 1);
    second.focus();
    await userEvent.keyboard('{ArrowDown}{Enter}');
    expect(onPreview).toHaveBeenLastCalledWith(HITS, 2);
    await userEvent.dblClick(screen.getByText('Docs'));
    expect(onPreview).toHaveBeenLastCalledWith(HITS, 0);
  });

  it('is one Tab stop; arrows, Home and End move between hits', async () => {
    renderSearch('resume');
    const names = await screen.findAllByRole('button', { name: /resume|Résumé/i });
    const opens = names.filter((b) => b.hasAttribute('data-hit'));
    expect(opens.map((b) => b.tabIndex)).toEqual([0, -1, -1]);
    await userEvent.tab();
    expect(document.activeElement).toBe(opens[0]);
    await userEvent.keyboard('{ArrowDown}');
    expect(document.activeElement).toBe(opens[1]);
    await userEvent.keyboard('{End}');
    expect(document.activeElement).toBe(opens[2]);
    await userEvent.keyboard('{ArrowDown}');
    expect(document.activeElement).toBe(opens[2]);
    await userEvent.keyboard('{Home}');
    expect(document.activeElement).toBe(opens[0]);
    await userEvent.keyboard('{ArrowUp}');
    expect(document.activeElement).toBe(opens[0]);
    // The folder link of the active hit is the next stop.
    await userEvent.keyboard('{ArrowDown}');
    await userEvent.tab();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Open the root folder' }));
  });

  it('says when nothing matches', async () => {
    renderSearch('zebra', []);
    expect(await screen.findByText('No files match “zebra”')).toBeTruthy();
    expect(screen.getByText(/ignoring case and accents/)).toBeTruthy();
  });

  it('says when the search fails', async () => {
    renderSearch('x', () => json(400, { error: 'Parameter q must be 1–200 characters', code: 'invalid_parameter' }));
    expect(await screen.findByRole('heading', { name: 'Could not search' })).toBeTruthy();
  });

  it('asks nothing for an empty text', async () => {
    const { searches } = renderSearch('   ');
    expect(await screen.findByText('Type a name to search every folder.')).toBeTruthy();
    expect(searches()).toHaveLength(0);
  });

  it('loads the next page with “Load more”, then says how many', async () => {
    const many = Array.from({ length: SEARCH_PAGE + 10 }, (_, i) =>
      hit(`photo-${String(i).padStart(3, '0')}.jpg`, i % 2 ? 'Trips' : null, 'image/jpeg'),
    );
    const { searches } = renderSearch('photo', many);
    await screen.findByTitle('Preview photo-000.jpg', {}, { timeout: 20_000 });
    expect(screen.getByRole('status', { name: 'Summary' }).textContent).toBe(`First ${SEARCH_PAGE} results`);
    await userEvent.click(screen.getByRole('button', { name: 'Load more results' }));
    await waitFor(() => expect(screen.getByRole('status', { name: 'Summary' }).textContent).toBe(`${SEARCH_PAGE + 10} files found`), {
      timeout: 20_000,
    });
    expect(searches().map((c) => c.url.searchParams.get('offset'))).toEqual(['0', String(SEARCH_PAGE)]);
    expect(screen.queryByRole('button', { name: 'Load more results' })).toBeNull();
  }, 60_000);

  it('keeps the last hits while the next text is asked for, then shows the new ones', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const { searches } = renderSearchTyping(async (url) => {
      if (url.searchParams.get('q') !== 'res') await held;
      const q = url.searchParams.get('q')!;
      return json(200, { files: HITS.filter((h) => h.name.toLowerCase().includes(q) || q === 'res') });
    });
    await screen.findByRole('rowheader', { name: /Résumé\.pdf/ });
    await userEvent.type(screen.getByRole('textbox', { name: 'Search' }), 'ume');
    await waitFor(() => expect(searches().at(-1)?.url.searchParams.get('q')).toBe('resume'));
    // The answer is held: the old hits stay (no flash of "no results" between keystrokes).
    expect(screen.getByRole('rowheader', { name: /Résumé\.pdf/ })).toBeTruthy();
    release();
    await waitFor(() => expect(screen.queryByRole('rowheader', { name: /Résumé\.pdf/ })).toBeNull());
    expect(screen.getByRole('rowheader', { name: /resume-notes\.txt/ })).toBeTruthy();
  });

  it('any change of the user’s files makes their searches stale', () => {
    for (const type of ['file.added', 'file.removed', 'file.changed', 'folder.removed'] as const) {
      expect(keysForEvent({ type, username: 'ana', folder: null, file: 'a.txt' })).toContainEqual(queryKeys.searches('ana'));
    }
  });

  it('opens the row menu by right-click, Shift+F10, the menu key and "⋯", with Open containing folder', async () => {
    const { actions } = renderSearch('resume');
    const row = (await screen.findByRole('rowheader', { name: /old resume\.png/ })).closest('tr')!;
    await userEvent.pointer({ keys: '[MouseRight]', target: row });
    const menu = screen.getByRole('menu', { name: 'Actions for old resume.png' });
    expect(
      within(menu)
        .getAllByRole('menuitem')
        .map((item) => item.textContent),
    ).toEqual(['Open', 'Open containing folder', 'Download', 'Rename', 'Move to…', 'Copy to…', 'Share', 'Versions…', 'Delete']);
    await userEvent.click(within(menu).getByRole('menuitem', { name: 'Open containing folder' }));
    expect(actions.commands.openFolder).toHaveBeenCalledWith(expect.objectContaining({ name: 'old resume.png', file: HITS[2] }));
    // The focus is back on the result the menu was for.
    expect(document.activeElement).toBe(within(row).getByRole('button', { name: /^old resume\.png$/ }));

    await userEvent.keyboard('{Shift>}{F10}{/Shift}');
    expect(screen.getByRole('menu', { name: 'Actions for old resume.png' })).toBeTruthy();
    await userEvent.keyboard('{Escape}{ArrowUp}{ContextMenu}');
    expect(screen.getByRole('menu', { name: 'Actions for resume-notes.txt' })).toBeTruthy();
    await userEvent.keyboard('{Escape}');
    await userEvent.click(screen.getByRole('button', { name: 'More actions for Résumé.pdf' }));
    expect(screen.getByRole('menu', { name: 'Actions for Résumé.pdf' })).toBeTruthy();
  });

  it('renames with F2 and deletes with Delete, in the folder view’s editor and dialog', async () => {
    const { actions } = renderSearch('resume');
    await screen.findByRole('rowheader', { name: /Résumé\.pdf/ });
    screen.getByRole('button', { name: /^Résumé\.pdf$/ }).focus();
    await userEvent.keyboard('{F2}');
    expect(actions.commands.rename).toHaveBeenCalledWith(expect.objectContaining({ key: 's:Docs/Résumé.pdf', name: 'Résumé.pdf' }));
    await userEvent.keyboard('{Delete}');
    expect(actions.commands.remove).toHaveBeenCalledWith([expect.objectContaining({ key: 's:Docs/Résumé.pdf' })]);
  });

  it('tells which result the toolbar acts on: the one last focused, none for a new search', async () => {
    const { actions } = renderSearch('resume');
    await screen.findByRole('rowheader', { name: /Résumé\.pdf/ });
    expect(actions.onChoose).toHaveBeenLastCalledWith(null);
    screen.getByRole('button', { name: /^resume-notes\.txt$/ }).focus();
    await waitFor(() => expect(actions.onChoose).toHaveBeenLastCalledWith(expect.objectContaining({ name: 'resume-notes.txt' })));
  });

  it('shows the folder view’s editor on the result being renamed', async () => {
    stubFetch({ 'GET /api/files/search': () => json(200, { files: HITS }) });
    const actions = { ...fakeActions(), editingKey: 's:Archive/old resume.png' };
    renderWithSession(<SearchView username="ana" query="resume" onOpenFolder={() => {}} onPreview={() => {}} actions={actions} />);
    const field = await screen.findByRole('textbox', { name: 'New name for old resume.png' });
    await userEvent.clear(field);
    await userEvent.type(field, 'new resume.png{Enter}');
    expect(actions.onRenameCommit).toHaveBeenCalledWith(expect.objectContaining({ key: 's:Archive/old resume.png' }), 'new resume.png');
  });
});
