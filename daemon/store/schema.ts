/** What db.json holds. Never the file list: the disk is the source of truth for files. */
import type { StoredBadge, StoredKey, StoredReset, StoredRole, StoredSession, StoredUser, StoredVerification } from './account-records.js';
import type { StoredDavLock, StoredDavProps } from './dav-records.js';
import type { StoredFile, StoredFolder, StoredShare, StoredTrashItem, StoredVersion } from './file-records.js';

// Each collection's record lives beside its kind; callers import them all from here.
export type { StoredBadge, StoredKey, StoredReset, StoredRole, StoredSession, StoredUser, StoredVerification } from './account-records.js';
export type { StoredDavLock, StoredDavProps, StoredDeadProp } from './dav-records.js';
export type { StoredFile, StoredFolder, StoredShare, StoredTrashItem, StoredVersion } from './file-records.js';

/**
 * The db.json layout this code reads and writes. Raised only when an older Nimbus could no
 * longer read what this one writes: a db.json with a higher one stops the start (json-backend.ts).
 */
export const SCHEMA_VERSION = 1;

export interface DbData {
  schema: typeof SCHEMA_VERSION;
  users: StoredUser[];
  roles: StoredRole[];
  shares: StoredShare[];
  keys: StoredKey[];
  verifications: StoredVerification[];
  /** Added by issue 12; a store written before has none (migrateDb adds them). */
  sessions: StoredSession[];
  resets: StoredReset[];
  /** Added by issue 13; a store written before has none (migrateDb adds it). */
  trash: StoredTrashItem[];
  /** Object mode only (docs/cluster.md); absent or empty otherwise. */
  files?: StoredFile[];
  folders?: StoredFolder[];
  /** Added by issue 26 (WebDAV); a store written before has none (migrateDb adds them). */
  davLocks: StoredDavLock[];
  davProps: StoredDavProps[];
  /** Added by issue 27; a store written before has none (migrateDb adds them). */
  versions: StoredVersion[];
  /** Added by issue 29; a store written before has none (migrateDb adds them). */
  badges: StoredBadge[];
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

/** A new store: no users, the two built-in roles, every other collection empty. */
export function emptyDb(): DbData {
  return {
    schema: SCHEMA_VERSION,
    users: [],
    roles: [
      { name: 'user', maxStorage: 128, badge: BUILT_IN_BADGES.user, builtIn: true },
      { name: 'admin', maxStorage: 256, badge: BUILT_IN_BADGES.admin, builtIn: true },
    ],
    shares: [],
    keys: [],
    verifications: [],
    sessions: [],
    resets: [],
    trash: [],
    files: [],
    folders: [],
    davLocks: [],
    davProps: [],
    versions: [],
    badges: [],
  };
}

/**
 * Brings a store written by an older Nimbus up to date, in place; true when it changed
 * something. A built-in role still on the old external placeholder gets its local badge;
 * a badge anyone chose (any other value) is left alone. A store from before accounts gets
 * empty lists of sessions and password resets; one from before the trash, an empty trash.
 */
export function migrateDb(data: DbData): boolean {
  let changed = false;
  // Sessions and password resets came with accounts (issue 12).
  if (!Array.isArray(data.sessions)) {
    data.sessions = [];
    changed = true;
  }
  if (!Array.isArray(data.resets)) {
    data.resets = [];
    changed = true;
  }
  // The trash came with issue 13.
  if (!Array.isArray(data.trash)) {
    data.trash = [];
    changed = true;
  }
  // The file index of object mode came with issue 14 (empty in the other modes).
  if (!Array.isArray(data.files)) {
    data.files = [];
    changed = true;
  }
  if (!Array.isArray(data.folders)) {
    data.folders = [];
    changed = true;
  }
  // WebDAV's locks and dead properties came with issue 26, versions with issue 27.
  // Uploaded badge pictures came with issue 29.
  for (const name of ['davLocks', 'davProps', 'versions', 'badges'] as const) {
    if (Array.isArray(data[name])) continue;
    data[name] = [];
    changed = true;
  }
  for (const role of data.roles) {
    if (!role.builtIn || role.badge !== LEGACY_DEFAULT_BADGE) continue;
    if (role.name !== 'user' && role.name !== 'admin') continue;
    role.badge = BUILT_IN_BADGES[role.name];
    changed = true;
  }
  return changed;
}

/** Whether a parsed db.json looks like a Nimbus store (the lists every version has). */
export function isDbData(value: unknown): value is DbData {
  const v = value as Partial<DbData> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    Array.isArray(v.users) &&
    Array.isArray(v.roles) &&
    Array.isArray(v.shares) &&
    Array.isArray(v.keys) &&
    Array.isArray(v.verifications) &&
    (v.schema === undefined || (Number.isInteger(v.schema) && v.schema >= 1)) &&
    (v.files === undefined || Array.isArray(v.files)) &&
    (v.folders === undefined || Array.isArray(v.folders))
  );
}
