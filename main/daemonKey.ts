import type { OnBeforeSendHeadersListenerDetails, Session } from 'electron';
import { originOf } from './navigation.js';

type RequestHeaders = Record<string, string>;

/**
 * The request's headers with the admin key added when the request goes to the daemon's own
 * origin (scheme, host and port exactly) and carries no credential of its own. Plain links
 * (downloads, <img>, <video>, the PDF viewer, zips) then reach the daemon as the window's
 * fetches do (docs/explorer.md, "Links"); every other host never sees the key.
 */
export function withDaemonKey(url: string, headers: RequestHeaders, daemonOrigin: string, key: string): RequestHeaders {
  if (originOf(url) !== daemonOrigin) return headers;
  // A request that names its own credential (the UI's fetches send the same key) keeps it.
  const names = Object.keys(headers).map((name) => name.toLowerCase());
  if (names.includes('api-key') || names.includes('authorization')) return headers;
  return { ...headers, 'API-Key': key };
}

/**
 * Adds the admin key to every request the app's session makes to its own daemon. `adminKey`
 * is read per request, so a rotated key is used from the next request on. Electron keeps one
 * onBeforeSendHeaders listener per session: this is it.
 */
export function setupDaemonKey(session: Pick<Session, 'webRequest'>, daemonUrl: string, adminKey: () => string): void {
  const origin = new URL(daemonUrl).origin;
  session.webRequest.onBeforeSendHeaders({ urls: [`${origin}/*`] }, (details: OnBeforeSendHeadersListenerDetails, callback) => {
    // The filter's pattern is the first gate; the exact origin check is the one that counts.
    callback({ requestHeaders: withDaemonKey(details.url, details.requestHeaders, origin, adminKey()) });
  });
}
