import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Folder, SearchX } from 'lucide-react';
import type { FileEntry, SearchHit } from '../../../shared/types';
import { SEARCH_MAX, useSearch } from '../../hooks/useSearch';
import { KIND_ICON, fileKind } from '../../lib/fileIcon';
import { formatBytes, formatFullDate, formatModified } from '../../lib/format';
import { ListState } from '../ListState/ListState';
import { matchRange } from './highlight';
import './SearchView.css';

export interface SearchViewProps {
  username: string;
  query: string;
  onOpenFolder(folder: string | null): void;
  onPreview(files: FileEntry[], index: number): void;
}

/**
 * Search results across a user's storage (docs/explorer.md, "Search"): each hit with its
 * folder as a link, the matched text marked, more pages by scrolling to the end or the "Load
 * more" button. ↑ ↓ Home End move between results, Enter (or a double click) previews one.
 */
export function SearchView({ username, query, onOpenFolder, onPreview }: SearchViewProps) {
  const { t } = useTranslation();
  // The explorer sends the text once typing pauses; a newer text cancels the request of an older one.
  const q = query.trim().slice(0, SEARCH_MAX);
  const search = useSearch(username, q);
  const { hits } = search;
  const [active, setActive] = useState(0);
  const list = useRef<HTMLTableSectionElement>(null);
  const end = useRef<HTMLDivElement>(null);
  const headingId = useId();

  // A new search starts at its first result.
  useEffect(() => setActive(0), [q]);

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

  function focusHit(index: number) {
    const to = Math.max(0, Math.min(hits.length - 1, index));
    setActive(to);
    list.current?.querySelector<HTMLElement>(`[data-hit="${to}"]`)?.focus();
  }

  function onKeyDown(event: KeyboardEvent<HTMLTableSectionElement>) {
    const moves: Record<string, number> = { ArrowDown: active + 1, ArrowUp: active - 1, Home: 0, End: hits.length - 1 };
    if (!(event.key in moves) || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    focusHit(moves[event.key]);
  }

  const preview = (index: number) => onPreview(hits, index);

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
            </tr>
          </thead>
          <tbody ref={list} onKeyDown={onKeyDown}>
            {hits.map((hit, index) => (
              <HitRow
                key={`${hit.folder ?? ''}/${hit.name}`}
                hit={hit}
                index={index}
                query={q}
                tabbable={index === Math.min(active, hits.length - 1)}
                onFocus={() => setActive(index)}
                onPreview={() => preview(index)}
                onOpenFolder={() => onOpenFolder(hit.folder)}
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
  const body = q.length === 0 ? <p className="search__hint">{t('search:typeToSearch')}</p> : results;

  const showCount = q.length > 0 && !search.isPending && hits.length > 0;
  return (
    <section className="search" aria-labelledby={headingId}>
      <header className="search__header">
        <h2 id={headingId} className="search__title">
          {q.length > 0 ? t('search:resultsFor', { query: q }) : t('search:title')}
        </h2>
        <p className="search__count" role="status">
          {showCount
            ? search.hasNextPage
              ? t('search:countMore', { count: hits.length })
              : t('search:count', { count: hits.length })
            : ''}
        </p>
      </header>
      {body}
    </section>
  );
}

interface HitRowProps {
  hit: SearchHit;
  index: number;
  query: string;
  /** The one result Tab stops at (the list is one stop; arrows move within it). */
  tabbable: boolean;
  onFocus(): void;
  onPreview(): void;
  onOpenFolder(): void;
}

function HitRow({ hit, index, query, tabbable, onFocus, onPreview, onOpenFolder }: HitRowProps) {
  const { t } = useTranslation();
  const Icon = KIND_ICON[fileKind(hit.name, hit.mimeType)];
  const where = hit.folder ?? t('search:root');
  return (
    <tr className="search__row" onDoubleClick={onPreview}>
      <th scope="row" className="search__name">
        <button
          type="button"
          className="search__open"
          data-hit={index}
          tabIndex={tabbable ? 0 : -1}
          onFocus={onFocus}
          onClick={onPreview}
          title={t('search:previewNamed', { name: hit.name })}
        >
          <Icon size={16} aria-hidden="true" className="search__icon" />
          <Marked name={hit.name} query={query} />
        </button>
      </th>
      <td className="search__folder">
        <button
          type="button"
          className="link-button search__folder-link"
          tabIndex={tabbable ? 0 : -1}
          onFocus={onFocus}
          onClick={onOpenFolder}
          aria-label={hit.folder === null ? t('search:openRoot') : t('search:openFolder', { folder: hit.folder })}
        >
          <Folder size={14} aria-hidden="true" />
          <span>{where}</span>
        </button>
      </td>
      <td className="search__num">{formatBytes(hit.size)}</td>
      <td className="search__when" title={formatFullDate(hit.modifiedAt)}>
        {formatModified(hit.modifiedAt)}
      </td>
    </tr>
  );
}

/** The name with the part that matched the search marked. */
function Marked({ name, query }: { name: string; query: string }) {
  const range = matchRange(name, query);
  if (!range) return <span className="search__text">{name}</span>;
  const [start, stop] = range;
  return (
    <span className="search__text">
      {name.slice(0, start)}
      <mark className="search__mark">{name.slice(start, stop)}</mark>
      {name.slice(stop)}
    </span>
  );
}
