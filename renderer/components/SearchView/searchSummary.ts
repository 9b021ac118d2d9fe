import { useTranslation } from 'react-i18next';
import { searchText, useSearch } from '../../hooks/useSearch';

/**
 * The status bar's line while search results replace the listing: how many were found ("12 files
 * found"), not what the open folder holds. The same query as the results' (one request for both).
 */
export function useSearchSummary(username: string, query: string): string {
  const { t } = useTranslation();
  const q = searchText(query);
  const search = useSearch(username, q);
  const count = search.hits.length;
  // While it searches, or when it could not, the results' own place says so (once is enough).
  if (q.length === 0 || search.isPending || (search.error && count === 0)) return '';
  return search.hasNextPage ? t('search:countMore', { count }) : t('search:count', { count });
}
