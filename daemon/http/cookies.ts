/**
 * The session cookie's header (docs/accounts.md, "Sessions"): HttpOnly (no script reads it),
 * SameSite=Strict, Path=/, 30 days; Secure when the daemon's public URL is https.
 */
import { SESSION_COOKIE, SESSION_LIFETIME_MS } from '../services/sessions.js';
import { UNLOCK_COOKIE, UNLOCK_LIFETIME_MS } from '../services/share-options.js';

const secure = (publicUrl: string | null) => (publicUrl?.toLowerCase().startsWith('https://') ? '; Secure' : '');

/** `Set-Cookie` that stores the session's cookie value in the browser. */
export function sessionCookie(token: string, publicUrl: string | null): string {
  return `${SESSION_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_LIFETIME_MS / 1000}${secure(publicUrl)}`;
}

/** `Set-Cookie` that removes it (sign-out, an ended session). */
export function clearSessionCookie(publicUrl: string | null): string {
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0${secure(publicUrl)}`;
}

/**
 * `Set-Cookie` that remembers a share link's password was given (docs/sharing.md): for the
 * link's own path only, SameSite=Lax so that the link opened again from a mail or a chat
 * still carries it.
 */
export function shareUnlockCookie(token: string, value: string, publicUrl: string | null): string {
  return `${UNLOCK_COOKIE}=${value}; HttpOnly; SameSite=Lax; Path=/s/${encodeURIComponent(token)}; Max-Age=${UNLOCK_LIFETIME_MS / 1000}${secure(publicUrl)}`;
}
