import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { defaultRangeExtractor, useVirtualizer, type Range } from '@tanstack/react-virtual';
import { useTranslation } from 'react-i18next';
import { Search } from 'lucide-react';
import type { Role, User } from '../../../shared/types';
import { UserRow } from './UserRow';

/** Each entry's height in px, gap included (Sidebar.css `.sidebar__item`). */
export const USER_ROW_HEIGHT = 62;

const NO_USERS: readonly User[] = [];

interface UserListProps {
  users: readonly User[] | undefined;
  roles: readonly Role[] | undefined;
  loading: boolean;
  selectedUser: string | null;
  onSelectUser: (username: string) => void;
}

const matches = (user: User, needle: string) => user.username.toLowerCase().includes(needle) || user.email.toLowerCase().includes(needle);

/**
 * The users, with a search field and a virtualised list: only the entries in view are in
 * the DOM. One tab stop (roving tabindex): arrows, Page Up/Down, Home and End move focus.
 */
export function UserList({ users, roles, loading, selectedUser, onSelectUser }: UserListProps) {
  const { t } = useTranslation();
  const [query, setQuery] = useState('');
  const needle = useDeferredValue(query).trim().toLowerCase();
  const all = users ?? NO_USERS;
  const shown = useMemo(() => (needle ? all.filter((user) => matches(user, needle)) : all), [all, needle]);
  const indexOf = useMemo(() => new Map(shown.map((user, index) => [user.username, index])), [shown]);
  const badgeOf = useMemo(() => new Map(roles?.map((role) => [role.name, role.badge])), [roles]);

  // The tab stop follows focus, else the open user, else the first entry.
  const [focusName, setFocusName] = useState<string | null>(null);
  const tabStop =
    (focusName !== null ? indexOf.get(focusName) : undefined) ?? (selectedUser !== null ? indexOf.get(selectedUser) : undefined) ?? 0;

  const scrollRef = useRef<HTMLDivElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  // The tab stop is always rendered, even scrolled out of view, so Tab can reach the list.
  const rangeExtractor = useCallback(
    (range: Range) => {
      const indexes = defaultRangeExtractor(range);
      if (tabStop < range.count && !indexes.includes(tabStop)) return [...indexes, tabStop].sort((a, b) => a - b);
      return indexes;
    },
    [tabStop],
  );
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => USER_ROW_HEIGHT,
    overscan: 6,
    getItemKey: (index) => shown[index].username,
    rangeExtractor,
  });

  // A user opened from elsewhere (created, renamed, the first on start) is scrolled into view.
  const indexOfRef = useRef(indexOf);
  indexOfRef.current = indexOf;
  useEffect(() => {
    const index = selectedUser === null ? undefined : indexOfRef.current.get(selectedUser);
    if (index !== undefined) virtualizer.scrollToIndex(index, { align: 'auto' });
  }, [selectedUser, virtualizer]);

  // A new search starts at the top; clearing it goes back to the open user.
  const selectedRef = useRef(selectedUser);
  selectedRef.current = selectedUser;
  useEffect(() => {
    const open = needle || selectedRef.current === null ? undefined : indexOfRef.current.get(selectedRef.current);
    if (open === undefined) virtualizer.scrollToOffset(0);
    else virtualizer.scrollToIndex(open, { align: 'center' });
  }, [needle, virtualizer]);

  // Focus moved by key waits until its entry has been rendered.
  const pendingFocus = useRef<number | null>(null);
  useEffect(() => {
    const index = pendingFocus.current;
    if (index === null) return;
    const button = listRef.current?.querySelector<HTMLElement>(`[data-index="${index}"] > button`);
    if (button) {
      pendingFocus.current = null;
      button.focus();
    }
  });

  function moveFocus(index: number) {
    if (shown.length === 0) return;
    const target = Math.min(Math.max(index, 0), shown.length - 1);
    pendingFocus.current = target;
    setFocusName(shown[target].username);
    virtualizer.scrollToIndex(target, { align: 'auto' });
  }

  function onListKeyDown(event: KeyboardEvent<HTMLUListElement>) {
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 400) / USER_ROW_HEIGHT) - 1);
    const moves: Record<string, number> = {
      ArrowDown: tabStop + 1,
      ArrowUp: tabStop - 1,
      PageDown: tabStop + page,
      PageUp: tabStop - page,
      Home: 0,
      End: shown.length - 1,
    };
    if (!(event.key in moves) || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    moveFocus(moves[event.key]);
  }

  function onSearchKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'Escape') setQuery('');
    else if (event.key === 'ArrowDown') moveFocus(0);
    else if (event.key === 'Enter' && query.trim() && shown.length > 0) onSelectUser(shown[0].username);
    else return;
    event.preventDefault();
  }

  const onFocusUser = useCallback((username: string) => setFocusName(username), []);

  let empty = null;
  if (loading && !users) empty = t('shell:users.loading');
  else if (users?.length === 0) empty = t('shell:users.none');
  else if (shown.length === 0) empty = t('shell:users.noMatch', { query: query.trim() });

  return (
    <>
      {all.length > 0 ? (
        <div className="sidebar__search">
          <Search size={14} aria-hidden="true" />
          <input
            type="search"
            className="input sidebar__filter"
            placeholder={t('shell:users.find')}
            aria-label={t('shell:users.find')}
            value={query}
            onChange={(event) => setQuery(event.target.value)}
            onKeyDown={onSearchKeyDown}
          />
          <p className="visually-hidden" aria-live="polite">
            {needle ? t('shell:users.found', { count: shown.length, total: all.length }) : ''}
          </p>
        </div>
      ) : null}
      <div ref={scrollRef} className="sidebar__scroll">
        {empty ? <p className="sidebar__empty">{empty}</p> : null}
        <ul
          ref={listRef}
          className="sidebar__list"
          aria-labelledby="sidebar-users"
          style={{ height: virtualizer.getTotalSize() }}
          onKeyDown={onListKeyDown}
        >
          {virtualizer.getVirtualItems().map((item) => {
            const user = shown[item.index];
            return (
              <UserRow
                key={user.username}
                user={user}
                index={item.index}
                count={shown.length}
                top={item.start}
                current={user.username === selectedUser}
                tabbable={item.index === tabStop}
                badge={badgeOf.get(user.role)}
                onSelect={onSelectUser}
                onFocusUser={onFocusUser}
              />
            );
          })}
        </ul>
      </div>
    </>
  );
}
