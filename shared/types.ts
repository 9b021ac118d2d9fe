/** Records the API returns. Never carries a password hash, token hash or key. */

export interface Usage {
  usedBytes: number;
  /** -1 when the role is unlimited. */
  maxBytes: number;
  overQuota: boolean;
}

/** The kinds of files the usage charts tell apart (by MIME type: docs/explorer.md). */
export type FileKind = 'images' | 'documents' | 'media' | 'other';

/** usage.get: where a user's quota goes. `usedBytes` = files + kept versions + trash, what the quota compares. */
export interface UsageDetail extends Usage {
  /** Bytes in the storage folder. */
  fileBytes: number;
  /** Bytes in the trash (part of `usedBytes`). */
  trashBytes: number;
  /** Bytes of files' kept versions (part of `usedBytes`; docs/versions.md). */
  versionBytes: number;
  /** `fileBytes` by kind. */
  byKind: Record<FileKind, number>;
  fileCount: number;
}

/**
 * What a delete answers in the nimbus dialect besides `msg`: the trash item it made, for an
 * Undo (null with `permanent=true`). DaneeCloud's dialect answers `{msg}` as before.
 */
export interface Trashed {
  trashId: string | null;
}

/** Something a user deleted (trash.list). */
export interface TrashItem {
  id: string;
  kind: 'file' | 'folder';
  name: string;
  /** Where a file was (null: the root); null for a folder. */
  folder: string | null;
  /** Bytes (a folder: all its files). */
  size: number;
  /** A folder's number of files; 1 for a file. */
  fileCount: number;
  deletedAt: string;
  /** When it is deleted for good (deletedAt + NIMBUS_TRASH_DAYS). */
  purgeAt: string;
}

/** Where trash.restore put an item back (its name may have gained " (restored)"). */
export interface TrashRestored {
  kind: 'file' | 'folder';
  name: string;
  folder: string | null;
}

export interface User {
  username: string;
  email: string;
  role: string;
  emailVerified: boolean;
  createdAt: string;
  usage: Usage;
}

export interface Role {
  name: string;
  /** MiB; -1 means unlimited. */
  maxStorage: number;
  badge: string;
  builtIn: boolean;
}

/**
 * A folder. `fileCount`, `folderCount` and `sizeBytes` are of its whole subtree. `path` and
 * `folderCount` (issue 25) are always sent by the daemon; optional here so that records
 * built before them still type.
 */
export interface Folder {
  name: string;
  /** The folder's path from the user's root (`photos/2024`); its name alone at the root. */
  path?: string;
  fileCount: number;
  folderCount?: number;
  sizeBytes: number;
  modifiedAt: string;
}

export interface FileEntry {
  name: string;
  /** null at the user's root. */
  folder: string | null;
  size: number;
  modifiedAt: string;
  mimeType: string;
  shared: boolean;
  shareUrl: string | null;
}

/** A file's earlier content, kept when an upload replaced it (GET /api/files/versions, docs/versions.md). */
export interface FileVersion {
  id: string;
  size: number;
  /** When that content was last modified. */
  modifiedAt: string;
  /** When it was replaced, so kept. */
  keptAt: string;
}

/** Whether a share link answers: `expired` and `exhausted` (its downloads used up) answer as a revoked link. */
export type ShareState = 'active' | 'expired' | 'exhausted';

/** What a link shares: one file, a folder's whole tree (read-only), or a drop box into a folder (upload only). */
export type ShareKind = 'file' | 'folder' | 'upload';

/** A share link as its owner sees it (GET /api/shares, docs/sharing.md). */
export interface ShareInfo {
  url: string;
  kind: ShareKind;
  username: string;
  /** The file's folder (null: the root); for a folder or upload link, the folder itself. */
  folder: string | null;
  /** The file's name; '' for a folder or upload link. */
  file: string;
  createdAt: string;
  /** When it stops working; null: never. */
  expiresAt: string | null;
  /** Whether it asks for a password (never the password or its hash). */
  hasPassword: boolean;
  /** Downloads it allows in all; null: no limit. */
  maxDownloads: number | null;
  /** Downloads so far (a download is a request for the bytes from their start, not a preview page or a seek). */
  downloads: number;
  state: ShareState;
}

/** A file found by files.search: the entry files.list gives, its `folder` null at the user's root. */
export type SearchHit = FileEntry & { folder: string | null };

/**
 * `admin` and `read`: machine keys (made by an admin, acting as no user). `write` and `read`:
 * personal keys (made by a signed-in user, acting as that user). docs/accounts.md.
 */
export type KeyScope = 'admin' | 'read' | 'write';

/**
 * The response shapes a key gets: `nimbus` (the records above) or `daneecloud` (the bodies
 * DaneeCloud sent, for its clients: daemon/http/dialect.ts). Errors are the same in both.
 */
export type Dialect = 'nimbus' | 'daneecloud';

export interface ApiKeyInfo {
  label: string;
  scope: KeyScope;
  createdAt: string;
  /** The built-in admin key kept in the OS keychain; cannot be deleted through the API. */
  builtIn: boolean;
  /** The response shapes this key gets; the admin key's is NIMBUS_ADMIN_DIALECT. */
  dialect: Dialect;
  /** The user a personal key acts as; null for the admin key and machine keys. */
  username: string | null;
}

/** Who is calling (`auth.login`, `auth.me`): their user record, and whether they are an admin. */
export interface Me {
  /** null for the admin key and machine keys, which act as no user. */
  user: User | null;
  admin: boolean;
}

/** What the sign-in page may offer (`auth.options`), from NIMBUS_REGISTRATION and NIMBUS_REQUIRE_VERIFIED. */
export interface AuthOptions {
  registration: 'open' | 'closed';
  /** Uploads and shares of a non-admin wait until their e-mail address is verified. */
  requireVerified: boolean;
}

/** One sign-in of the caller (`auth.sessions`). Never carries the cookie or its hash. */
export interface SessionInfo {
  /** The public id (hex) that names it in `auth.sessions.delete`. */
  id: string;
  /** From the User-Agent at sign-in (shortened), e.g. "Firefox on Linux". */
  device: string;
  /** The client's address at sign-in. */
  address: string;
  createdAt: string;
  lastUsedAt: string;
  /** The session of this very request. */
  current: boolean;
}

export type IndexState = 'scanning' | 'ready' | 'unavailable';

/** How the storage directory is followed, as /api/dash reports it ('inotify': the native watch is on). */
export type WatcherMode = 'inotify' | 'polling' | 'reconcile-only' | 'starting' | 'none';

export interface DashInfo {
  version: string;
  uptime: number;
  users: number;
  roles: number;
  files: number;
  folders: number;
  shares: number;
  storage: { usedBytes: number; dir: string; available: boolean };
  index: { state: IndexState; watcher: WatcherMode };
  /**
   * Entries found in the storage folder past the tree's limits (deeper than 64 levels, or a
   * folder path over 4,096 bytes), not indexed (docs/tree.md). The daemon always sends it.
   */
  unaddressable?: number;
  orphans: string[];
  mail: { delivery: MailDelivery };
  /** Clients subscribed to GET /api/events now. */
  eventStreams: number;
}

export type MailDelivery = 'smtp' | 'outbox';

/** Live change events streamed on GET /api/events (Server-Sent Events, `event: <type>`): the one list the daemon's OpenAPI document and the UI read. */
export const CHANGE_EVENT_TYPES = [
  'file.added',
  'file.changed',
  'file.removed',
  'folder.added',
  'folder.removed',
  'folder.moved',
  'user.changed',
  'user.removed',
  'role.changed',
  'share.changed',
  'trash.changed',
  'index.state',
] as const;

export type ChangeEventType = (typeof CHANGE_EVENT_TYPES)[number];

export interface ChangeEvent {
  type: ChangeEventType;
  username: string | null;
  folder: string | null;
  file: string | null;
  /** `folder.moved` only: the folder's old path (`folder` is its new one). A rename or move is this one event, none per file. */
  from?: string;
}

export interface ErrorBody {
  error: string;
  code: string;
}

/** The `msg` every changing endpoint answers with. */
export interface Msg {
  msg: string;
}

/** The OpenAPI 3.1 document GET /api/openapi.json answers (daemon/http/openapi.ts). */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description: string };
  paths: Record<string, Record<string, object>>;
  [field: string]: unknown;
}

/**
 * GET /api/health (docs/cluster.md, "Health"): 200 `{status: 'ok'}`; 200 `degraded` when only
 * the bucket fails (what needs no bytes still works); else 503 `unavailable`; with each probe's
 * result (`'ok'` or a short reason) by name: `database`, `bucket`, `storage`.
 */
export type Health =
  { status: 'ok' } | { status: 'degraded'; checks: Record<string, string> } | { status: 'unavailable'; checks: Record<string, string> };

/**
 * What each endpoint of the table (shared/endpoints.ts) answers on success, in the `nimbus`
 * dialect, by endpoint id: `ResponseOf<Id>` there. The daemon's handlers must return it, the
 * UI's client and the tests' helper read it. Raw rows (bytes, events, a page) send no JSON:
 * their entry is what the handler hands back to the dispatcher (nothing, or for `verify` whose
 * address it confirmed, which the row's event names).
 */
export interface ResponseMap {
  'user.get': User;
  'user.all': User[];
  'user.create': Msg & { user: User };
  'user.delete': Msg;
  'user.edit': Msg & { user: User };
  'user.verify': Msg & { delivery: MailDelivery };
  'user.role': Msg & { user: User };
  'folders.list': { folders: Folder[] };
  'folders.files': { files: FileEntry[] };
  'folders.create': Msg & { folder: Folder };
  'folders.delete': Msg & Trashed;
  'folders.files.rename': Msg & { file: FileEntry };
  'folders.files.delete': Msg & Trashed;
  'role.get': Role;
  'role.all': Role[];
  'role.create': Msg & { role: Role };
  'role.delete': Msg;
  'role.edit': Msg & { role: Role };
  'files.list': { files: FileEntry[] };
  'files.search': { files: SearchHit[] };
  'files.delete': Msg & Trashed;
  'files.rename': Msg & { file: FileEntry };
  'files.share': Msg & { file: FileEntry };
  'files.noshare': Msg & { file: FileEntry };
  'shares.edit': Msg & { share: ShareInfo };
  'folders.share': Msg & { share: ShareInfo };
  'files.versions': { versions: FileVersion[] };
  'files.versions.restore': Msg & { file: FileEntry };
  'files.versions.download': void;
  'folders.noshare': Msg;
  'shares.list': { shares: ShareInfo[] };
  'files.upload': Msg & { file: FileEntry };
  'files.download': void;
  'files.move': Msg & { file: FileEntry };
  'files.copy': Msg & { file: FileEntry };
  'files.thumbnail': void;
  'folders.rename': Msg & { folder: Folder };
  'folders.move': Msg & { folder: Folder };
  'folders.copy': Msg & { folder: Folder };
  'folders.download': void;
  'usage.get': { usage: UsageDetail };
  'trash.list': { items: TrashItem[] };
  'trash.restore': Msg & { restored: TrashRestored };
  'trash.delete': Msg;
  'trash.empty': Msg & { removed: number };
  'dash.get': DashInfo;
  'dash.rescan': Msg & { files: number };
  events: void;
  'keys.list': { keys: ApiKeyInfo[] };
  'keys.create': Msg & ApiKeyInfo & { key: string };
  'keys.delete': Msg;
  'keys.rotate': Msg & { key: string };
  'auth.login': { user: User; admin: boolean };
  'auth.logout': Msg;
  'auth.me': Me;
  'auth.password': Msg;
  'auth.reset': Msg;
  'auth.reset.confirm': Msg;
  'auth.register': Msg & { user: User };
  'auth.options': AuthOptions;
  'auth.sessions': { sessions: SessionInfo[] };
  'auth.sessions.delete': Msg;
  openapi: OpenApiDocument;
  /** The 200 answer; the 503 one (`Health` with `status: 'unavailable'`) is written by the handler itself. */
  'health.get': Exclude<Health, { status: 'unavailable' }> | void;
  'share.download': void;
  'share.unlock': void;
  /** JSON for a client; a browser's form gets a page. */
  'share.upload': (Msg & { name: string }) | void;
  /** A page is sent; the handler returns whose address it confirmed (nothing for a HEAD). */
  verify: { username: string } | void;
}

declare const JSON_OF: unique symbol;
/**
 * JSON text already serialised from a `T` (a handler may answer a long list pre-serialised):
 * a string, typed by what it encodes so that it still has to match the endpoint's response.
 */
export type JsonText<T> = string & { readonly [JSON_OF]: T };
