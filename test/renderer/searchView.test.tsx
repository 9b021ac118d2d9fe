import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { SearchHit } from '../../shared/types';
import { keysForEvent, queryKeys } from '../../renderer/api/queryKeys';
import { SearchView } from '../../renderer/components/SearchView/SearchView';
import { matchRange } from '../../renderer/components/SearchView/highlight';
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
  const view = renderWithSession(<SearchView username="ana" query={query} onOpenFolder={onOpenFolder} onPreview={onPreview} />);
  const searches = () => stub.calls.filter((c) => c.url.pathname === '/api/files/search');
  return { ...stub, view, onOpenFolder, onPreview, searches };
}

/** The explorer's side: a search box whose text the view follows. */
function renderSearchTyping(route: Route) {
  const stub = stubFetch({ 'GET /api/files/search': route });
  function Typing() {
    const [query, setQuery] = useState('res');
    return (
      <>
        <input aria-label="Search" value={query} onChange={(event) => setQuery(event.target.value)} />
        <SearchView username="ana" query={query} onOpenFolder={() => {}} onPreview={() => {}} />
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
    expect(screen.getByText('3 files found')).toBeTruthy();
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
    const second = await screen.findByRole('button', { name: /resume-notes\.txt/ });
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
    expect(await screen.findByText('Could not search')).toBeTruthy();
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
    expect(screen.getByText(`First ${SEARCH_PAGE} results`)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Load more results' }));
    await screen.findByText(`${SEARCH_PAGE + 10} files found`, {}, { timeout: 20_000 });
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
});
