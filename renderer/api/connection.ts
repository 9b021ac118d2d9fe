/**
 * Where the API key comes from in a plain browser: the URL fragment `#key=…` (removed
 * from the address bar at once), else this tab's sessionStorage. Inside Electron the
 * bridge supplies it instead.
 */
export const KEY_STORAGE_ITEM = 'nimbus.apiKey';

/** Takes `key` out of the URL fragment, rewriting the address without it. */
export function takeKeyFromFragment(location: Location, history: History): string | null {
  const hash = location.hash.replace(/^#/, '');
  if (!hash) return null;
  const params = new URLSearchParams(hash);
  const key = params.get('key');
  if (key === null) return null;
  params.delete('key');
  const rest = params.toString();
  history.replaceState(history.state, '', `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`);
  const trimmed = key.trim();
  return trimmed || null;
}

export function readStoredKey(storage: Storage): string | null {
  try {
    return storage.getItem(KEY_STORAGE_ITEM);
  } catch {
    return null;
  }
}

export function storeKey(storage: Storage, key: string): void {
  try {
    storage.setItem(KEY_STORAGE_ITEM, key);
  } catch {
    // storage disabled: the key lives only in memory for this page
  }
}

export function forgetKey(storage: Storage): void {
  try {
    storage.removeItem(KEY_STORAGE_ITEM);
  } catch {
    // nothing stored
  }
}

/** The key to try first on start-up in browser mode: the fragment's wins over the stored one. */
export function initialBrowserKey(win: Pick<Window, 'location' | 'history' | 'sessionStorage'>): {
  key: string | null;
  fromFragment: boolean;
} {
  const fromFragment = takeKeyFromFragment(win.location, win.history);
  if (fromFragment) return { key: fromFragment, fromFragment: true };
  return { key: readStoredKey(win.sessionStorage), fromFragment: false };
}
