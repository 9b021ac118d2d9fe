/** What db.json holds. Never the file list: the disk is the source of truth for files. */
import type { KeyScope } from '../../shared/types.js';

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

export const DEFAULT_BADGE = 'https://placehold.co/64x64/png?text=%20';

export function emptyDb(): DbData {
  return {
    schema: 1,
    users: [],
    roles: [
      { name: 'user', maxStorage: 128, badge: DEFAULT_BADGE, builtIn: true },
      { name: 'admin', maxStorage: 256, badge: DEFAULT_BADGE, builtIn: true },
    ],
    shares: [],
    keys: [],
    verifications: [],
  };
}
