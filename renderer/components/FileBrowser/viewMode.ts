import { useCallback, useState } from 'react';

export type ViewMode = 'list' | 'grid';

const storageItem = (username: string) => `nimbus.view.${username}`;

function readViewMode(username: string): ViewMode {
  try {
    return globalThis.localStorage?.getItem(storageItem(username)) === 'grid' ? 'grid' : 'list';
  } catch {
    return 'list';
  }
}

/** List or grid, remembered per user on this device (each user of a shared browser keeps their own). */
export function useViewMode(username: string): [ViewMode, (view: ViewMode) => void] {
  const [view, setView] = useState(() => readViewMode(username));
  const choose = useCallback(
    (next: ViewMode) => {
      setView(next);
      try {
        globalThis.localStorage?.setItem(storageItem(username), next);
      } catch {
        // storage disabled: the choice lasts while the page is open
      }
    },
    [username],
  );
  return [view, choose];
}
