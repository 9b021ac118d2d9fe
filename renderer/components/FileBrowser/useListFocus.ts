import { useCallback, useEffect, useRef } from 'react';

/**
 * The keyboard focus of the file browser's section: `refocusList` puts it back on the list
 * after a menu, a preview or a dialog, so it never drops to the page. With `focusList`, the
 * list takes it once it shows: opening a folder replaces the list that had it, which would
 * leave it on <body> and the keyboard dead (with no list to show, the section takes it).
 */
export function useListFocus(focusList: boolean, loading: boolean) {
  const sectionRef = useRef<HTMLElement>(null);
  const refocusList = useCallback(() => {
    const section = sectionRef.current;
    // The list, or while a search is shown, its result that takes the Tab stop (SearchView).
    (section?.querySelector<HTMLElement>('[role="grid"], [data-hit][tabindex="0"]') ?? section)?.focus({ preventScroll: true });
  }, []);
  const focusPending = useRef(focusList);
  useEffect(() => {
    if (!focusPending.current || loading) return;
    focusPending.current = false;
    const focused = document.activeElement;
    if (focused && focused !== document.body) return; // the person already moved on
    refocusList();
  }, [loading, refocusList]);
  return { sectionRef, refocusList };
}
