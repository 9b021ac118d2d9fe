/** Records the API returns. Never carries a password hash, token hash or key. */

import type { Infer } from './api-schema.js';
import type {
  ApiKeyInfoSchema,
  AuthOptionsSchema,
  DIALECTS,
  KEY_SCOPES,
  MeSchema,
  MsgSchema,
  RoleSchema,
  SessionInfoSchema,
  UserSchema,
} from './api-schema-accounts.js';
import type {
  CHANGE_EVENT_TYPES as ChangeEventTypes,
  ChangeEventSchema,
  DashInfoSchema,
  ErrorBodySchema,
  HealthServingSchema,
  HealthUnavailableSchema,
  INDEX_STATES,
  MAIL_DELIVERIES,
  OpenApiDocumentSchema,
  WATCHER_MODES,
} from './api-schema-daemon.js';
import type {
  FILE_KINDS,
  FileEntrySchema,
  FileVersionSchema,
  FolderSchema,
  TrashItemSchema,
  TrashRestoredSchema,
  UsageDetailSchema,
  UsageSchema,
} from './api-schema-files.js';
import type { SHARE_KINDS, SHARE_STATES, ShareInfoSchema } from './api-schema-shares.js';

/*
 * Each record is described once, as a schema (shared/api-schema-*.ts, where each field's
 * meaning is written), and its type here is what that schema infers: the OpenAPI document
 * and these types cannot drift apart.
 */
export { CHANGE_EVENT_TYPES } from './api-schema-daemon.js';

export type Usage = Infer<typeof UsageSchema>;
/** The kinds of files the usage charts tell apart (by MIME type: docs/explorer.md). */
export type FileKind = (typeof FILE_KINDS)[number];
/** usage.get: where a user's quota goes. `usedBytes` = files + kept versions + trash, what the quota compares. */
export type UsageDetail = Infer<typeof UsageDetailSchema>;
/** Something a user deleted (trash.list). */
export type TrashItem = Infer<typeof TrashItemSchema>;
/** Where trash.restore put an item back (its name may have gained " (restored)"). */
export type TrashRestored = Infer<typeof TrashRestoredSchema>;
export type User = Infer<typeof UserSchema>;
export type Role = Infer<typeof RoleSchema>;
/** A folder. `fileCount`, `folderCount` and `sizeBytes` are of its whole subtree. */
export type Folder = Infer<typeof FolderSchema>;
export type FileEntry = Infer<typeof FileEntrySchema>;
/** A file's earlier content, kept when an upload replaced it (GET /api/files/versions, docs/versions.md). */
export type FileVersion = Infer<typeof FileVersionSchema>;
/** Whether a share link answers: `expired` and `exhausted` (its downloads used up) answer as a revoked link. */
export type ShareState = (typeof SHARE_STATES)[number];
/** What a link shares: one file, a folder's whole tree (read-only), or a drop box into a folder (upload only). */
export type ShareKind = (typeof SHARE_KINDS)[number];
/** A share link as its owner sees it (GET /api/shares, docs/sharing.md). */
export type ShareInfo = Infer<typeof ShareInfoSchema>;
/** A file found by files.search: the entry files.list gives. */
export type SearchHit = FileEntry;
/**
 * `admin` and `read`: machine keys (made by an admin, acting as no user). `write` and `read`:
 * personal keys (made by a signed-in user, acting as that user). docs/accounts.md.
 */
export type KeyScope = (typeof KEY_SCOPES)[number];
/**
 * The response shapes a key gets: `nimbus` (the records above) or `daneecloud` (the bodies
 * DaneeCloud sent, for its clients: daemon/http/dialect.ts). Errors are the same in both.
 */
export type Dialect = (typeof DIALECTS)[number];
export type ApiKeyInfo = Infer<typeof ApiKeyInfoSchema>;
/** Who is calling (`auth.login`, `auth.me`): their user record, and whether they are an admin. */
export type Me = Infer<typeof MeSchema>;
/** What the sign-in page may offer (`auth.options`), from NIMBUS_REGISTRATION and NIMBUS_REQUIRE_VERIFIED. */
export type AuthOptions = Infer<typeof AuthOptionsSchema>;
/** One sign-in of the caller (`auth.sessions`). Never carries the cookie or its hash. */
export type SessionInfo = Infer<typeof SessionInfoSchema>;
export type IndexState = (typeof INDEX_STATES)[number];
/** How the storage directory is followed, as /api/dash reports it ('inotify': the native watch is on). */
export type WatcherMode = (typeof WATCHER_MODES)[number];
export type DashInfo = Infer<typeof DashInfoSchema>;
export type MailDelivery = (typeof MAIL_DELIVERIES)[number];
export type ChangeEventType = (typeof ChangeEventTypes)[number];
export type ChangeEvent = Infer<typeof ChangeEventSchema>;
export type ErrorBody = Infer<typeof ErrorBodySchema>;
/** The `msg` every changing endpoint answers with. */
export type Msg = Infer<typeof MsgSchema>;
/** The OpenAPI 3.1 document GET /api/openapi.json answers (daemon/http/openapi.ts). */
export type OpenApiDocument = Infer<typeof OpenApiDocumentSchema>;
/**
 * GET /api/health (docs/cluster.md, "Health"): 200 `{status: 'ok'}`; 200 `degraded` when only
 * the bucket fails (what needs no bytes still works); else 503 `unavailable`; with each probe's
 * result (`'ok'` or a short reason) by name: `database`, `bucket`, `storage`.
 */
export type Health = Infer<typeof HealthServingSchema> | Infer<typeof HealthUnavailableSchema>;

/**
 * What the handlers of some rows hand back to the dispatcher instead of (or besides) the JSON
 * answer their row names (shared/endpoints.ts, `ResponseOf`): nothing, for rows that write
 * their response themselves (bytes, an event stream, a page, health's 503, a form's page),
 * and, for `verify`, whose address it confirmed (which the row's event names).
 */
export interface HandlerOwnResults {
  'files.versions.download': void;
  'files.download': void;
  'files.thumbnail': void;
  'role.badge.get': void;
  'folders.download': void;
  events: void;
  'health.get': void;
  'share.download': void;
  'share.unlock': void;
  /** JSON for a client; a browser's form gets a page. */
  'share.upload': void;
  /** A page is sent; the handler returns whose address it confirmed (nothing for a HEAD). */
  verify: { username: string } | void;
}

declare const JSON_OF: unique symbol;
/**
 * JSON text already serialised from a `T` (a handler may answer a long list pre-serialised):
 * a string, typed by what it encodes so that it still has to match the endpoint's response.
 */
export type JsonText<T> = string & { readonly [JSON_OF]: T };
