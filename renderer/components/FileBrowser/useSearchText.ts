import { useEffect, useRef, useState } from 'react';
import { useDebounced } from './useDebounced';

const SEARCH_DELAY_MS = 200;

/**
 * The search box's text, and the settled query it asks for. The address bar holds the query
 * (`/search?q=…`): `search` is the address's, `onSearch` tells it a new settled query, and a
 * query that changes there (Back, Forward) fills the box.
 */
export function useSearchText(search: string, onSearch: (query: string) => void) {
  const [text, setText] = useState(search);
  const query = useDebounced(text.trim(), SEARCH_DELAY_MS);
  const told = useRef(search);

  // The address moved (Back to the folder, Forward to the search): the box follows it.
  useEffect(() => {
    if (search === told.current) return;
    told.current = search;
    setText(search);
  }, [search]);

  useEffect(() => {
    if (query === told.current) return;
    told.current = query;
    onSearch(query);
  }, [query, onSearch]);

  return { text, setText, query };
}
