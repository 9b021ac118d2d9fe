/** Records the API returns. Never carries a password hash, token hash or key. */

export interface Usage {
  usedBytes: number;
  /** -1 when the role is unlimited. */
  maxBytes: number;
  overQuota: boolean;
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

export interface Folder {
  name: string;
  fileCount: number;
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

export type KeyScope = 'admin' | 'read';

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
}

export type IndexState = 'scanning' | 'ready' | 'unavailable';

export interface DashInfo {
  version: string;
  uptime: number;
  users: number;
  roles: number;
  files: number;
  folders: number;
  shares: number;
  storage: { usedBytes: number; dir: string; available: boolean };
  index: { state: IndexState; watcher: 'inotify' | 'polling' | 'reconcile-only' | 'starting' };
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
  'user.changed',
  'user.removed',
  'role.changed',
  'share.changed',
  'index.state',
] as const;

export type ChangeEventType = (typeof CHANGE_EVENT_TYPES)[number];

export interface ChangeEvent {
  type: ChangeEventType;
  username: string | null;
  folder: string | null;
  file: string | null;
}

export interface ErrorBody {
  error: string;
  code: string;
}
