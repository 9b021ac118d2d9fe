/**
 * Who a plain browser page is when it opens (README, "Accounts": a key in a link): a key this
 * tab holds, else the session cookie, else a key from the URL fragment (`#key=…`).
 *
 * The fragment comes last on purpose. A link can carry anyone's key, so opening
 * `<daemon>/#key=<someone else's key>` in a signed-in browser must not move the page, and what
 * the person uploads next, to that account (issue 22). Such a key is only offered: the page
 * stays as it is and asks (KeyLinkPrompt). A page with no identity signs in with it, as such
 * a link always did.
 */
import i18next from 'i18next';
import { ApiError, NimbusClient, errorMessage } from '../../api/client';
import { forgetKey, readStoredKey, storeKey, takeKeyFromFragment } from '../../api/connection';
import type { SignInForm } from '../SignIn/SignIn';
import type { Me } from './sessionContext';

/** Checks a key against the daemon serving this page: who it signs in as, or an error message. */
export async function checkKey(baseUrl: string, apiKey: string): Promise<Me | string> {
  try {
    return await new NimbusClient({ baseUrl, apiKey }).call('auth.me');
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return i18next.t('shell:session.rejected');
    return errorMessage(error);
  }
}

/** Whether this page's cookie is a live session: who it is, null when signed out, or an error message. */
async function checkCookie(baseUrl: string): Promise<Me | null | string> {
  try {
    return await new NimbusClient({ baseUrl, apiKey: null }).call('auth.me');
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    return errorMessage(error);
  }
}

/**
 * How the page starts. `offer`: a key from the fragment that was not applied because the page
 * already had an identity; the person decides (KeyLinkPrompt).
 */
export type BrowserStart =
  | { kind: 'key'; key: string; me: Me; offer: string | null }
  | { kind: 'session'; me: Me; offer: string | null }
  | { kind: 'signed-out'; form: SignInForm; message: string | null };

/**
 * Decides who the page is. The fragment's key leaves the address bar before anything is
 * asked, and goes with no request but `auth.me` until the person chooses it.
 */
export async function startBrowser(origin: string, win: Pick<Window, 'location' | 'history' | 'sessionStorage'>): Promise<BrowserStart> {
  const fragmentKey = takeKeyFromFragment(win.location, win.history);
  const storedKey = readStoredKey(win.sessionStorage);
  if (storedKey !== null) {
    const me = await checkKey(origin, storedKey);
    if (typeof me !== 'string') return { kind: 'key', key: storedKey, me, offer: fragmentKey === storedKey ? null : fragmentKey };
    forgetKey(win.sessionStorage);
    if (fragmentKey === null) return { kind: 'signed-out', form: 'key', message: me };
  }
  const cookie = await checkCookie(origin);
  if (cookie !== null && typeof cookie !== 'string') return { kind: 'session', me: cookie, offer: fragmentKey };
  // Whether a session is live is unknown (the daemon did not answer): the fragment's key is not tried.
  if (typeof cookie === 'string') return { kind: 'signed-out', form: 'password', message: cookie };
  if (fragmentKey === null) return { kind: 'signed-out', form: 'password', message: null };
  return signInWithKey(origin, win.sessionStorage, fragmentKey);
}

/** A page with no identity signs in with `key` (kept for the tab), or shows why it cannot. */
export async function signInWithKey(origin: string, storage: Storage, key: string): Promise<BrowserStart> {
  const me = await checkKey(origin, key);
  if (typeof me === 'string') return { kind: 'signed-out', form: 'key', message: me };
  storeKey(storage, key);
  return { kind: 'key', key, me, offer: null };
}
