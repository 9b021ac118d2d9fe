/**
 * Sessions of signed-in users (docs/accounts.md, "Sessions"). The browser holds a random
 * cookie; the store keeps only its SHA-256, with a public id. A session lasts 30 days from
 * sign-in and ends after 7 days unused. Its last use is updated in memory on every request
 * and written with the store's next write, or at the latest every 10 minutes.
 *
 * Ending a session deletes it (it is refused from then on) and announces `session:<id>`
 * through Revocations, so the connections and event streams it opened close.
 */
import { randomBytes } from 'node:crypto';
import type { Revocations } from './revocations.js';
import { hashPresented, hashSecret, newSecret } from '../keys/secrets.js';
import type { StoredSession } from '../store/schema.js';
import type { Store } from '../store/store.js';

export const SESSION_COOKIE = 'nimbus_session';
export const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;
export const SESSION_IDLE_MS = 7 * 24 * 60 * 60 * 1000;
/** The longest a changed "last used" waits in memory for a write of the store. */
const SAVE_EVERY_MS = 10 * 60 * 1000;
/** A session's last use is moved on only when it is older than this (saves work on every request). */
const TOUCH_GRANULARITY_MS = 1000;

/** What Revocations calls a session: the caller's `credential`. */
export const sessionCredential = (id: string): string => `session:${id}`;

export class Sessions {
  readonly #store: Store;
  readonly #revocations: Revocations;
  readonly #timer: NodeJS.Timeout;
  /** Last uses changed in memory since the store last wrote. */
  #dirty = false;

  constructor(store: Store, revocations: Revocations) {
    this.#store = store;
    this.#revocations = revocations;
    // The store's every write carries the sessions as they are in memory, last uses included.
    store.beforeWrite = () => {
      this.#dirty = false;
    };
    this.#timer = setInterval(() => void this.#housekeeping().catch(() => undefined), SAVE_EVERY_MS);
    this.#timer.unref();
  }

  /** Signs `username` in: the cookie value (shown only here) and the stored session. */
  async create(username: string, device: string, address: string, now = Date.now()): Promise<{ token: string; session: StoredSession }> {
    const token = newSecret(32);
    const at = new Date(now).toISOString();
    const session: StoredSession = {
      id: randomBytes(16).toString('hex'),
      hash: hashSecret(token),
      username,
      createdAt: at,
      lastUsedAt: at,
      expiresAt: new Date(now + SESSION_LIFETIME_MS).toISOString(),
      device,
      address,
    };
    this.#store.sessions.set(session.hash, session);
    await this.#store.commit();
    return { token, session };
  }

  /** Whether a session with this cookie value is in the store (alive or not). */
  has(token: string): boolean {
    return token.length > 0 && token.length <= 256 && this.#store.sessions.has(hashPresented(token));
  }

  /**
   * The live session a cookie value names, its last use moved to now; null for an unknown,
   * expired or idle one (an expired one is ended here) or one whose user is gone. The lookup
   * is by the value's SHA-256 in a Map: the hash, not the value, is what is compared.
   */
  authenticate(token: string, now = Date.now()): StoredSession | null {
    if (token.length === 0 || token.length > 256) return null;
    const session = this.#store.sessions.get(hashPresented(token));
    if (!session) return null;
    if (!this.#alive(session, now) || !this.#store.users.has(session.username)) {
      this.#drop(session);
      void this.#store.commit().catch(() => undefined);
      return null;
    }
    if (now - Date.parse(session.lastUsedAt) >= TOUCH_GRANULARITY_MS) {
      session.lastUsedAt = new Date(now).toISOString();
      // Changed in place: PostgreSQL writes only the records marked changed.
      this.#store.sessions.touch(session.hash);
      this.#dirty = true;
    }
    return session;
  }

  /** The user's live sessions, newest first. */
  listOf(username: string, now = Date.now()): StoredSession[] {
    return [...this.#store.sessions.values()]
      .filter((s) => s.username === username && this.#alive(s, now))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  /** Ends the user's session `id`; false when the user has no such session. The caller commits. */
  endOne(username: string, id: string): boolean {
    for (const session of this.#store.sessions.values()) {
      if (session.id !== id || session.username !== username) continue;
      this.#drop(session);
      return true;
    }
    return false;
  }

  /** Ends every session of the user (but `exceptId`); the caller commits. */
  endAllOf(username: string, exceptId: string | null = null): number {
    let ended = 0;
    for (const session of [...this.#store.sessions.values()]) {
      if (session.username !== username || session.id === exceptId) continue;
      this.#drop(session);
      ended++;
    }
    return ended;
  }

  /** Writes last uses still only in memory (a clean stop), and stops the timer. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    if (this.#dirty) await this.#store.commit().catch(() => undefined);
  }

  #alive(session: StoredSession, now: number): boolean {
    return Date.parse(session.expiresAt) > now && now - Date.parse(session.lastUsedAt) < SESSION_IDLE_MS;
  }

  /** Deletes the session, so it is refused from now on, then closes what it opened. */
  #drop(session: StoredSession): void {
    this.#store.sessions.delete(session.hash);
    this.#revocations.revoke(sessionCredential(session.id));
  }

  /** Every 10 minutes: ends sessions past their time, and saves last uses no write has carried. */
  async #housekeeping(now = Date.now()): Promise<void> {
    let changed = this.#dirty;
    for (const session of [...this.#store.sessions.values()]) {
      if (this.#alive(session, now)) continue;
      this.#drop(session);
      changed = true;
    }
    for (const [hash, reset] of this.#store.resets) {
      if (Date.parse(reset.expiresAt) > now) continue;
      this.#store.resets.delete(hash);
      changed = true;
    }
    if (changed) await this.#store.commit();
  }
}

/** A short name for the browser of a User-Agent: "Firefox on Linux", "curl", or "Unknown device". */
export function describeDevice(userAgent: string | undefined): string {
  const ua = userAgent ?? '';
  if (!ua) return 'Unknown device';
  const browser = /Electron\//.test(ua)
    ? 'Nimbus desktop'
    : /Edg\//.test(ua)
      ? 'Edge'
      : /OPR\/|Opera/.test(ua)
        ? 'Opera'
        : /Firefox\//.test(ua)
          ? 'Firefox'
          : /Chrome\/|Chromium\//.test(ua)
            ? 'Chrome'
            : /Safari\//.test(ua)
              ? 'Safari'
              : null;
  const os = /Windows/.test(ua)
    ? 'Windows'
    : /Android/.test(ua)
      ? 'Android'
      : /iPhone|iPad|iOS/.test(ua)
        ? 'iOS'
        : /Mac OS X|Macintosh/.test(ua)
          ? 'macOS'
          : /Linux|X11/.test(ua)
            ? 'Linux'
            : null;
  if (browser && os) return `${browser} on ${os}`;
  if (browser) return browser;
  // A tool: its first product token ("curl/8.5.0" → "curl"), kept short and printable.
  const product = /^[A-Za-z][A-Za-z0-9._-]{0,40}/.exec(ua)?.[0];
  return product ?? 'Unknown device';
}
