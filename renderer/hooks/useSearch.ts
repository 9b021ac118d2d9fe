import { useMemo } from 'react';
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import type { SearchHit } from '../../shared/types';
import { queryKeys } from '../api/queryKeys';
import { useClient } from '../components/Session/sessionContext';

/** Hits per request; more come with "Load more" or by scrolling to the end. */
export const SEARCH_PAGE = 50;

/** The longest text `files.search` takes (shared/endpoints.ts, `searchQuery`). */
export const SEARCH_MAX = 200;

/** The text a search box's `query` asks for: trimmed, at most SEARCH_MAX characters. */
export const searchText = (query: string): string => query.trim().slice(0, SEARCH_MAX);

/**
 * `files.search` for `q` across a user's storage, a page at a time. Nothing is asked for an
 * empty `q`. While a new text is asked for, the last one's hits stay (no flash of nothing
 * between two keystrokes). Any change of the user's files makes every search stale.
 */
export function useSearch(username: string, q: string) {
  const client = useClient();
  const query = useInfiniteQuery({
    queryKey: queryKeys.search(username, q),
    queryFn: async ({ pageParam, signal }) =>
      (await client.call('files.search', { username, q, limit: SEARCH_PAGE, offset: pageParam }, signal)).files,
    initialPageParam: 0,
    getNextPageParam: (last: SearchHit[], pages: SearchHit[][]) => (last.length < SEARCH_PAGE ? undefined : pages.length * SEARCH_PAGE),
    enabled: q.length > 0,
    placeholderData: keepPreviousData,
  });
  const hits = useMemo(() => {
    const seen = new Set<string>();
    const key = (hit: SearchHit) => `${hit.folder ?? ''}/${hit.name}`;
    return (query.data?.pages.flat() ?? []).filter((hit) => (seen.has(key(hit)) ? false : (seen.add(key(hit)), true)));
  }, [query.data]);
  return { ...query, hits };
}
