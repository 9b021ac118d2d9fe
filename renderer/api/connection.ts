/**
 * Where the API key comes from in a plain browser: this tab's sessionStorage, or the URL
 * fragment `#key=…` (removed from the address bar at once; who may use it is decided in
 * components/Session/browserStart.ts). Inside Electron the bridge supplies it instead.
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
