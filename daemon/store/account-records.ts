/**
 * The store's records of accounts (db.json's `users`, `roles`, `badges`, `keys`, `sessions`,
 * `resets` and `verifications`): who may sign in, with what, and what their role allows.
 * schema.ts gathers them into the whole store.
 */
import type { Dialect, KeyScope } from '../../shared/types.js';

export interface StoredUser {
  username: string;
  email: string;
  role: string;
  emailVerified: boolean;
  createdAt: string;
  /**
   * argon2id, a PHC string `$argon2id$v=19$m=19456,t=2,p=1$salt$hash` (keys/password-hash.ts);
   * hashes stored before issue 28 are `scrypt$N$r$p$salt$hash` (base64) until the user's next
   * sign-in replaces them.
   */
  passwordHash: string;
}

export interface StoredRole {
  name: string;
  maxStorage: number;
  /** An http(s) URL, a path of the daemon's own badges (shared/badges.ts), or '' for no badge. */
  badge: string;
  builtIn: boolean;
}

/** A picture an admin uploaded for a role's badge (issue 29; daemon/services/badges.ts), served at /badges/uploaded/<id>.<type>. */
export interface StoredBadge {
  /** The first 32 hex digits of the bytes' SHA-256: the same picture uploaded twice is one record. */
  id: string;
  type: 'png' | 'jpg' | 'webp';
  /** The bytes, base64: kept in the store so that every daemon of a cluster serves them. */
  data: string;
  uploadedAt: string;
}

export interface StoredKey {
  label: string;
  scope: KeyScope;
  /** sha256 of the key, hex. */
  hash: string;
  createdAt: string;
  /** The response shapes the key gets; absent (keys made before dialects) is 'nimbus'. */
  dialect?: Dialect;
  /**
   * The user a personal key acts as (scope `write` or `read`); absent or null for a machine key
   * (made by an admin, scope `admin` or `read`, acting as no user). docs/accounts.md.
   */
  username?: string | null;
}

/** A signed-in browser (docs/accounts.md, "Sessions"). The cookie's value is never stored. */
export interface StoredSession {
  /** Public id (16 random bytes, hex): names the session in lists and deletes. */
  id: string;
  /** sha256 of the cookie's value, hex. */
  hash: string;
  username: string;
  createdAt: string;
  /** Updated in memory on each request; written with the next write of the store (at most 10 minutes late). */
  lastUsedAt: string;
  /** createdAt + 30 days. */
  expiresAt: string;
  /** A short description of the browser, from its User-Agent at sign-in. */
  device: string;
  /** The client's address at sign-in. */
  address: string;
}

/** A pending password reset: one per user, single use, one hour. */
export interface StoredReset {
  /** sha256 of the token, hex. */
  hash: string;
  username: string;
  expiresAt: string;
}

export interface StoredVerification {
  /** sha256 of the token, hex. */
  hash: string;
  username: string;
  email: string;
  expiresAt: string;
}
