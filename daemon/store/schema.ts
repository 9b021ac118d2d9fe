/** What db.json holds. Never the file list: the disk is the source of truth for files. */
import type { Dialect, KeyScope } from '../../shared/types.js';
import type { StoredDavLock, StoredDavProps } from './dav-records.js';

export type { StoredDavLock, StoredDavProps, StoredDeadProp } from './dav-records.js';

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

export interface StoredShare {
  token: string;
  /** Absent: a link to one file. `folder`: the folder's whole tree, read-only; `upload`: a file drop into the folder (docs/sharing.md). */
  kind?: 'folder' | 'upload';
  username: string;
  /** The file's folder (null: the root); for a folder or upload link, the folder itself. */
  folder: string | null;
  /** The file's name; '' for a folder or upload link. */
  file: string;
  createdAt: string;
  /** When the link stops working (ISO); absent: never (docs/sharing.md). */
  expiresAt?: string;
  /** Hash of the password the link asks for, as a user's `passwordHash` (keys/password-hash.ts); absent: none. */
  passwordHash?: string;
  /** Downloads the link allows in all; absent: no limit. */
  maxDownloads?: number;
  /** Downloads so far, with db.json; on PostgreSQL the `share_downloads` table counts them (services/share-uses.ts). */
  downloads?: number;
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

/**
 * Something a user deleted, kept in `<data-dir>/trash/<username>/<id>/<name>` until restored,
 * deleted for good or purged (docs/explorer.md, "Trash").
 */
export interface StoredTrashItem {
  /** 16 random bytes, hex: the entry's directory in the user's trash. */
  id: string;
  username: string;
  kind: 'file' | 'folder';
  name: string;
  /** Where a file was (null: the root); null for a folder. */
  folder: string | null;
  /** Bytes (a folder: all its files). */
  size: number;
  /** 1 for a file; a folder's number of files. */
  fileCount: number;
  deletedAt: string;
}

/**
 * A file in object mode (docs/cluster.md): its bytes are the object `files/<id>` in the
 * bucket. The id never changes, so renaming the file, its folder or its user changes rows only.
 */
export interface StoredFile {
  /** 32 random hex digits. */
  id: string;
  username: string;
  /** The folder's id (null: the user's root). */
  folderId: string | null;
  name: string;
  size: number;
  mtimeMs: number;
  contentType: string;
  /** The object's ETag as the object store gave it. */
  etag: string;
  /** Set while the file is in the trash: the trash item holding it. */
  trashId: string | null;
}

/** A folder in object mode (docs/cluster.md). */
export interface StoredFolder {
  /** 32 random hex digits. */
  id: string;
  username: string;
  name: string;
  mtimeMs: number;
  /** Set while the folder is in the trash. */
  trashId: string | null;
  /**
   * The id of the folder it is in; null at the user's root. Absent in rows written before
   * folders nested (issue 25): read as null, which is where those were.
   */
  parentId?: string | null;
}

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
 * A file's earlier content, kept when an upload replaced it (docs/versions.md): on disk its bytes
 * are `<data dir>/versions/<username>/<id>`, a hard link to the replaced inode; in object mode the
 * replaced object itself. Nothing is copied either way.
 */
export interface StoredVersion {
  /** 16 random bytes, hex: the file's name under the user's versions directory. */
  id: string;
  username: string;
  /** The file it is a version of, where that file is now (versions follow renames and moves). */
  folder: string | null;
  file: string;
  size: number;
  /** When the kept content was last modified (its mtime). */
  mtimeMs: number;
  /** When it was replaced, so kept (ISO). */
  keptAt: string;
  /** Object mode: the replaced file's object, kept as it was (nothing copied), and its ETag; absent on disk. */
  objectId?: string;
  etag?: string;
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
