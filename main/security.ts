import type { Session } from 'electron';
import { originOf } from './navigation.js';

/**
 * Used only when a daemon response carries no CSP of its own (the daemon sends one; this
 * is the belt to its braces). Badge images may come from any http(s) host.
 */
export const FALLBACK_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: http: https:",
  "connect-src 'self'",
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

type Headers = Record<string, string[] | string> | undefined;

/** The response headers with a CSP added when the response has none. */
export function withFallbackCsp(headers: Headers): Record<string, string[] | string> {
  const out = { ...(headers ?? {}) };
  const hasCsp = Object.keys(out).some((name) => name.toLowerCase() === 'content-security-policy');
  if (!hasCsp) out['Content-Security-Policy'] = [FALLBACK_CSP];
  return out;
}

/** Only writing to the clipboard (the UI copies share links) is granted, and only to the daemon's pages. */
export function isPermissionAllowed(permission: string, requestingUrl: string, daemonOrigin: string): boolean {
  return permission === 'clipboard-sanitized-write' && originOf(requestingUrl) === daemonOrigin;
}

/** Applies the CSP fallback to the daemon's responses and denies every permission the UI does not need. */
export function setupSessionSecurity(
  session: Pick<Session, 'webRequest' | 'setPermissionRequestHandler' | 'setPermissionCheckHandler'>,
  daemonUrl: string,
): void {
  const origin = new URL(daemonUrl).origin;
  session.webRequest.onHeadersReceived({ urls: [`${origin}/*`] }, (details, callback) => {
    // Shared-file downloads carry their own strict CSP; everything else gets one if missing.
    callback({ responseHeaders: withFallbackCsp(details.responseHeaders) });
  });
  session.setPermissionRequestHandler((contents, permission, callback, details) => {
    callback(isPermissionAllowed(permission, details.requestingUrl ?? contents.getURL(), origin));
  });
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) => isPermissionAllowed(permission, requestingOrigin, origin));
}
