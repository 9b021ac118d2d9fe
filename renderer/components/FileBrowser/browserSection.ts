import { useEffect, type KeyboardEvent } from 'react';
import { parentFolder } from '../../lib/places';

/** The window's title names the directory shown (`alice › Photos — Nimbus`). */
export function useDirectoryTitle(location: string): void {
  useEffect(() => {
    document.title = `${location} — Nimbus`;
  }, [location]);
}

/**
 * The keys of the browser's section itself: Backspace or Alt+↑ open the parent folder. The list
 * handles its own keys; this is for an empty folder, where the section has the focus.
 */
export function sectionKeyHandler(folder: string | null, onOpenFolder: (folder: string | null) => void) {
  return (event: KeyboardEvent) => {
    if (event.target !== event.currentTarget || folder === null) return;
    if (event.key === 'Backspace' || (event.key === 'ArrowUp' && event.altKey)) {
      event.preventDefault();
      onOpenFolder(parentFolder(folder));
    }
  };
}
