/** What db.json holds. Never the file list: the disk is the source of truth for files. */
import type { Dialect, KeyScope } from '../../shared/types.js';

export interface StoredUser {
  username: string;
  email: string;
  role: string;
  emailVerified: boolean;
  createdAt: string;
  /** scrypt$N$r$p$salt$hash */
  passwordHash: string;
}

export interface StoredRole {
  name: string;
  maxStorage: number;
  badge: string;
  builtIn: boolean;
}

export interface StoredShare {
  token: string;
  username: string;
  folder: string | null;
  file: string;
  createdAt: string;
}

export interface StoredKey {
  label: string;
  scope: KeyScope;
  /** sha256 of the key, hex. */
  hash: string;
  createdAt: string;
  /** The response shapes the key gets; absent (keys made before dialects) is 'nimbus'. */
  dialect?: Dialect;
}

export interface StoredVerification {
  /** sha256 of the token, hex. */
  hash: string;
  username: string;
  email: string;
  expiresAt: string;
}

export interface DbData {
  schema: 1;
  users: StoredUser[];
  roles: StoredRole[];
  shares: StoredShare[];
  keys: StoredKey[];
  verifications: StoredVerification[];
}

/**
 * The built-in roles' badges, served by the daemon itself (daemon/http/badges.ts). Stored as
 * paths on the daemon, not URLs, so they survive a change of port or address; the API
 * answers them as `<baseUrl><path>` (services/roles.ts), a URL every client can load.
 */
export const BUILT_IN_BADGES = { user: '/badges/user.svg', admin: '/badges/admin.svg' } as const;
export const DEFAULT_BADGE = BUILT_IN_BADGES.user;
/** What built-in roles had before: an external placeholder that every page load tried to fetch. */
export const LEGACY_DEFAULT_BADGE = 'https://placehold.co/64x64/png?text=%20';

export function emptyDb(): DbData {
  return {
    schema: 1,
    users: [],
    roles: [
      { name: 'user', maxStorage: 128, badge: BUILT_IN_BADGES.user, builtIn: true },
      { name: 'admin', maxStorage: 256, badge: BUILT_IN_BADGES.admin, builtIn: true },
    ],
    shares: [],
    keys: [],
    verifications: [],
  };
}

/**
 * Brings a store written by an older Nimbus up to date, in place; true when it changed
 * something. A built-in role still on the old external placeholder gets its local badge;
 * a badge anyone chose (any other value) is left alone.
 */
export function migrateDb(data: DbData): boolean {
  let changed = false;
  for (const role of data.roles) {
    if (!role.builtIn || role.badge !== LEGACY_DEFAULT_BADGE) continue;
    if (role.name !== 'user' && role.name !== 'admin') continue;
    role.badge = BUILT_IN_BADGES[role.name];
    changed = true;
  }
  return changed;
}
