/**
 * A share link's options (docs/sharing.md): an expiry, a password and a download limit, set
 * when sharing and changed later, and what they make of the link: whether it still answers,
 * and what its owner sees of it. An expired or used-up link answers as a revoked one (404).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ShareInfo, ShareState } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { badRequest } from '../errors.js';
import { hashPassword } from '../keys/secrets.js';
import type { StoredShare } from '../store/schema.js';
import { shareUrl } from './records.js';

/** The options as the endpoints take them: each left out keeps what the link has. */
export interface ShareOptionParams {
  /** An instant (ISO), or null for no expiry. */
  expires?: string | null;
  password?: string;
  removePassword?: boolean;
  /** 0: no limit. */
  maxDownloads?: number;
}

/** The share with `options` applied (a new password hashed); 400 for an expiry already past or a password both given and removed. */
export async function withOptions(share: StoredShare, options: ShareOptionParams, now = Date.now()): Promise<StoredShare> {
  if (options.password !== undefined && options.removePassword)
    throw badRequest('Give a new password or remove it, not both', 'invalid_parameter');
  const next: StoredShare = { ...share };
  if (options.expires === null) delete next.expiresAt;
  else if (options.expires !== undefined) {
    if (Date.parse(options.expires) <= now) throw badRequest('The expiry must be in the future', 'invalid_parameter');
    next.expiresAt = options.expires;
  }
  if (options.removePassword) delete next.passwordHash;
  else if (options.password !== undefined) next.passwordHash = await hashPassword(options.password);
  if (options.maxDownloads === 0) delete next.maxDownloads;
  else if (options.maxDownloads !== undefined) next.maxDownloads = options.maxDownloads;
  return next;
}

/** Whether the link answers now: past its expiry, or with its downloads used up, it does not. */
export function shareState(share: StoredShare, downloads: number, now = Date.now()): ShareState {
  if (share.expiresAt !== undefined && Date.parse(share.expiresAt) <= now) return 'expired';
  if (share.maxDownloads !== undefined && downloads >= share.maxDownloads) return 'exhausted';
  return 'active';
}

/** The link as its owner sees it (never its password or hash). */
export function shareInfo(nimbus: NimbusContext, share: StoredShare, downloads: number, now = Date.now()): ShareInfo {
  return {
    url: shareUrl(nimbus, share.token),
    kind: share.kind ?? 'file',
    username: share.username,
    folder: share.folder,
    file: share.file,
    createdAt: share.createdAt,
    expiresAt: share.expiresAt ?? null,
    hasPassword: share.passwordHash !== undefined,
    maxDownloads: share.maxDownloads ?? null,
    downloads,
    state: shareState(share, downloads, now),
  };
}

/** The cookie that says a browser gave a link's password; its path is the link's own, so it goes nowhere else. */
export const UNLOCK_COOKIE = 'nimbus_share';
/** How long a given password holds in that browser. */
export const UNLOCK_LIFETIME_MS = 12 * 60 * 60 * 1000;

/**
 * The unlock cookie's value: until when, and an HMAC of the token and that instant keyed by the
 * password's hash. Any daemon can check it (the hash is in the shared store), and a new or
 * removed password voids every cookie given for the old one (so does an old scrypt hash
 * replaced by argon2id at an unlock: keys/password-hash-check.ts).
 */
export function unlockValue(share: StoredShare, now = Date.now()): string {
  const until = now + UNLOCK_LIFETIME_MS;
  return `${until}.${unlockMac(share, until)}`;
}

/** Whether a request's cookie value unlocks the link now. */
export function unlocks(share: StoredShare, value: string | undefined, now = Date.now()): boolean {
  if (!share.passwordHash || !value) return false;
  const dot = value.indexOf('.');
  const until = Number(value.slice(0, dot));
  if (dot < 0 || !Number.isSafeInteger(until) || until <= now || until > now + UNLOCK_LIFETIME_MS) return false;
  const given = Buffer.from(value.slice(dot + 1));
  const expected = Buffer.from(unlockMac(share, until));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function unlockMac(share: StoredShare, until: number): string {
  return createHmac('sha256', share.passwordHash!).update(`${share.token}\n${until}`).digest('base64url');
}
