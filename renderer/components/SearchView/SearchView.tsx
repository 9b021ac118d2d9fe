import { useCallback, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { SearchX } from 'lucide-react';
import type { FileEntry } from '../../../shared/types';
import { searchText, useSearch } from '../../hooks/useSearch';
import type { Row } from '../../lib/rows';
import { FileContextMenu } from '../FileBrowser/FileContextMenu';
import type { ActionCommands } from '../FileBrowser/fileActions';
import { menuPositionOf } from '../FileTable/rowEvents';
import { ListState } from '../ListState/ListState';
import { HitRow, hitRow } from './HitRow';
import './SearchView.css';

/** The folder view's file actions, lent to the results (FileBrowser.tsx): each acts on a file in its own folder. */
export interface SearchActions {
  commands: ActionCommands;
  /** Inside Electron (Show in file manager). */
  inShell: boolean;
  /** The result being renamed in place (its row's key), and where its editor reports. */
  editingKey: string | null;
  onRenameCommit(row: Row, name: string): void;
  onRenameCancel(): void;
  /** The result the toolbar acts on: the one last focused, or none. */
  onChoose(row: Row | null): void;
}

export interface SearchViewProps {
  username: string;
  query: string;
  onOpenFolder(folder: string | null): void;
  onPreview(files: FileEntry[], index: number): void;
  actions: SearchActions;
}

/**
 * Search results across a user's storage (docs/explorer.md, "Search"): each hit with its folder
 * as a link, the matched text marked, more pages by scrolling to the end or the "Load more"
 * button. ↑ ↓ Home End move between results, Enter (or a double click) previews one; the row
 * menu (right-click, Shift+F10, the menu key, "⋯"), F2 and Delete act as in a folder.
 */
export function SearchView({ username, query, onOpenFolder, onPreview, actions }: SearchViewProps) {
  const { t } = useTranslation();
  // The explorer sends the text once typing pauses; a newer text cancels the request of an older one.
  const q = searchText(query);
  const search = useSearch(username, q);
  const { hits } = search;
  const rows = useMemo(() => hits.map(hitRow), [hits]);
  const [active, setActive] = useState(0);
  const [chosen, setChosen] = useState<string | null>(null);
  const [menu, setMenu] = useState<{ row: Row; position: { x: number; y: number } } | null>(null);
  const list = useRef<HTMLTableSectionElement>(null);
  const end = useRef<HTMLDivElement>(null);
  const headingId = useId();
  const { commands, editingKey, onChoose } = actions;

  // A new search starts at its first result, with none chosen.
  useEffect(() => {
    setActive(0);
    setChosen(null);
  }, [q]);

  // The toolbar acts on the chosen result as it is now: renamed, moved or gone, it is another row or none.
  useEffect(() => onChoose(rows.find((row) => row.key === chosen) ?? null), [rows, chosen, onChoose]);

  // The next page comes when the end of the list scrolls into view.
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = search;
  useEffect(() => {
    const sentinel = end.current;
    if (!sentinel || !hasNextPage || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting) && !isFetchingNextPage) void fetchNextPage();
    });
    observer.observe(sentinel);
    return () => observer.disconnect();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  const focusHit = useCallback(
    (index: number) => {
      const to = Math.max(0, Math.min(rows.length - 1, index));
      setActive(to);
      list.current?.querySelector<HTMLElement>(`[data-hit="${to}"]`)?.focus();
    },
    [rows.length],
  );

  // A result renamed, moved or deleted leaves the list, and the focus it had (or its dialog gives
  // back) would drop to the page: it comes back to the nearest result instead. Only then: a
  // focus the person put elsewhere stays there.
  const lastFocused = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const lost = lastFocused.current !== null && !lastFocused.current.isConnected;
    if (lost && document.activeElement === document.body && rows.length > 0) focusHit(active);
  });

  const choose = (index: number) => {
    setActive(index);
    setChosen(rows[index]?.key ?? null);
  };
  const openMenu = (index: number, position: { x: number; y: number }) => {
    choose(index);
    setMenu({ row: rows[index], position });
  };
  const preview = (row: Row) => {
    const index = rows.findIndex((other) => other.key === row.key);
    if (index >= 0) onPreview(hits, index);
  };
  // "Open" on a result previews it among the results, not among the open folder's files.
  const hitCommands: ActionCommands = { ...commands, open: preview };

  /** The folder list's keys (FileTable/listKeys.ts), on the one result that has the focus. */
  function onKeyDown(event: KeyboardEvent<HTMLTableSectionElement>) {
    if (editingKey !== null || event.altKey || event.ctrlKey || event.metaKey) return;
    const at = Math.min(active, rows.length - 1);
    const moves: Record<string, number> = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: rows.length - 1 };
    if (event.key in moves) focusHit(moves[event.key]);
    else if (event.key === 'ContextMenu' || (event.key === 'F10' && event.shiftKey)) {
      openMenu(at, menuPositionOf(list.current?.querySelector(`[data-row="${at}"]`) ?? null));
    } else if (event.key === 'F2') commands.rename(rows[at]);
    else if (event.key === 'Delete') commands.remove([rows[at]]);
    else return;
    event.preventDefault();
  }

  const results = (
    <ListState
      icon={SearchX}
      loading={search.isPending ? t('search:searching') : null}
      failed={search.error && hits.length === 0 ? { title: t('search:failed'), error: search.error } : null}
      empty={hits.length === 0 ? { title: t('search:noResults', { query: q }), text: t('search:noResultsHint') } : null}
    >
      <div className="list-scroll search__scroll">
        <table className="list-table search__table" aria-labelledby={headingId} aria-busy={search.isPlaceholderData || search.isFetching}>
          <thead>
            <tr>
              <th scope="col">{t('search:name')}</th>
              <th scope="col">{t('search:folder')}</th>
              <th scope="col" className="search__num">
                {t('search:size')}
              </th>
              <th scope="col" className="search__when">
                {t('search:modified')}
              </th>
              <th scope="col" className="search__more">
                <span className="visually-hidden">{t('explorer:table.column.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody ref={list} onKeyDown={onKeyDown} onFocus={(event) => (lastFocused.current = event.target)}>
            {rows.map((row, index) => (
              <HitRow
                key={row.key}
                row={row}
                index={index}
                query={q}
                tabbable={index === Math.min(active, rows.length - 1)}
                editing={editingKey === row.key}
                events={actions}
                onFocus={() => choose(index)}
                onPreview={() => preview(row)}
                onOpenFolder={() => onOpenFolder(row.file.folder)}
                onMenu={(position) => openMenu(index, position)}
              />
            ))}
          </tbody>
        </table>
        <div ref={end} className="search__end">
          {search.hasNextPage ? (
            <button type="button" className="button" disabled={search.isFetchingNextPage} onClick={() => void search.fetchNextPage()}>
              {search.isFetchingNextPage ? t('search:loadingMore') : t('search:loadMore')}
            </button>
          ) : null}
        </div>
      </div>
    </ListState>
  );

  return (
    <section className="search" aria-labelledby={headingId}>
      {/* The breadcrumb says what this is and the status bar how many (as for a folder); the heading names the list. */}
      <h2 id={headingId} className="visually-hidden">
        {q.length > 0 ? t('search:resultsFor', { query: q }) : t('search:title')}
      </h2>
      {q.length === 0 ? <p className="search__hint">{t('search:typeToSearch')}</p> : results}
      {menu ? (
        <FileContextMenu
          target={{ rows: [menu.row], everything: false, inShell: actions.inShell, search: true }}
          commands={hitCommands}
          position={menu.position}
          onClose={() => {
            setMenu(null);
            focusHit(active);
          }}
        />
      ) : null}
    </section>
  );
}
