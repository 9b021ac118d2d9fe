import { createHash, randomBytes } from 'node:crypto';

/** A fresh secret: 32 random bytes, URL-safe base64 (256 bits). */
export const newSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url');

/** sha256 hex: enough for high-entropy secrets (keys, tokens), which cannot be brute-forced. */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/**
 * Hashes of recently presented secrets (API keys, session cookies): a client sends the same
 * one on every request, and hashing it each time was ~8 % of a GET. Bounded, and emptied
 * when full, so a flood of wrong secrets costs no more memory than this.
 */
const recentHashes = new Map<string, string>();
const RECENT_HASHES_MAX = 256;

/** `hashSecret` of a secret a request presents, from the cache when it was presented recently. */
export function hashPresented(presented: string): string {
  let hash = recentHashes.get(presented);
  if (hash === undefined) {
    if (recentHashes.size >= RECENT_HASHES_MAX) recentHashes.clear();
    hash = hashSecret(presented);
    recentHashes.set(presented, hash);
  }
  return hash;
}

/**
 * Constant-time comparison of two hex digests: every character is compared, with no early
 * exit. Compared as text, not decoded: two Buffer.from(hex) per request were ~4 µs of a GET
 * (issue 15's profile).
 */
export function sameHash(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/**
 * Password hashes live in password-hash.ts (argon2id; the old scrypt ones still verify); these
 * names stay here for the modules that have always imported them from this one.
 */
export { hashPassword, passwordVerificationsRun, verifyPassword } from './password-hash.js';
