/**
 * The session cookie's header (docs/accounts.md, "Sessions"): HttpOnly (no script reads it),
 * SameSite=Strict, Path=/, 30 days; Secure when the daemon's public URL is https.
 */
import { SESSION_COOKIE, SESSION_LIFETIME_MS } from '../services/sessions.js';

const secure = (publicUrl: string | null) => (publicUrl?.toLowerCase().startsWith('https://') ? '; Secure' : '');

/** `Set-Cookie` that stores the session's cookie value in the browser. */
export function sessionCookie(token: string, publicUrl: string | null): string {
  return `${SESSION_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_LIFETIME_MS / 1000}${secure(publicUrl)}`;
}

/** `Set-Cookie` that removes it (sign-out, an ended session). */
export function clearSessionCookie(publicUrl: string | null): string {
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0${secure(publicUrl)}`;
}
