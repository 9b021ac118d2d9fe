/**
 * The one index of the HTTP API. The daemon's router, its parameter validation, the
 * handlers' types, the events it publishes, the OpenAPI document, the UI's client and the
 * tests all read this table: at run time the rows, at compile time their literal types
 * (`ParamsOf<Id>`, `ResponseOf<Id>`), so a parameter renamed here fails `npm run typecheck`
 * wherever it is still used by its old name.
 */
import {
  checkAccountName,
  checkBoolean,
  checkEmail,
  checkFileName,
  checkFolderPath,
  checkMaxStorage,
  checkNonNegativeInt,
  checkPassword,
  checkScope,
  checkToken,
  type Checked,
} from './validation.js';
import { ANSWERS, type Answer } from './api-answers.js';
import { checkBadge, checkUploadedBadgeFile } from './badges.js';
import type { AnySchema, Schema } from './api-schema.js';
import { HealthUnavailableSchema } from './api-schema-daemon.js';
import { DANEECLOUD } from './api-schema-daneecloud.js';
import type { ChangeEventType, Dialect, HandlerOwnResults } from './types.js';

/**
 * A password as typed to sign in or to confirm the current one: any 1–1024 characters (a
 * wrong one is 401, never a hint about the rules). A new password a user chooses is checked
 * by the daemon's password policy (400 `weak_password`, daemon/accounts/password-policy.ts).
 */
function checkSecret(raw: string): Checked<string> {
  if (raw.length < 1 || raw.length > 1024) return { ok: false, message: 'must be 1–1024 characters' };
  return { ok: true, value: raw };
}

/**
 * When a share link stops working: an ISO 8601 instant (`2026-12-24T18:00:00Z`, or with an
 * offset), a date alone (`2026-12-24`: the start of that day, UTC), or `never` (no expiry; what
 * an edit sends to take one away). The value is the instant as `toISOString()` gives it, or
 * null for `never`; whether it is still to come is the service's check (it depends on the clock).
 */
function checkExpiry(raw: string): Checked<string | null> {
  if (raw === 'never') return { ok: true, value: null };
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(raw))
    return { ok: false, message: 'must be an ISO 8601 date or date-time with a zone (2026-12-24T18:00:00Z), or "never"' };
  const at = Date.parse(raw.length === 10 ? `${raw}T00:00:00Z` : raw);
  if (!Number.isFinite(at)) return { ok: false, message: 'is not a real date' };
  return { ok: true, value: new Date(at).toISOString() };
}

/** A session's public id (16 random bytes, hex); anything else short and URL-safe is simply not found. */
function checkSessionId(raw: string): Checked<string> {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(raw)) return { ok: false, message: 'is not a session id' };
  return { ok: true, value: raw };
}

/** A search text (files.search): 1–200 characters, matched literally (no patterns). */
function checkSearchQuery(raw: string): Checked<string> {
  if (raw.length < 1 || raw.length > 200) return { ok: false, message: 'must be 1–200 characters' };
  return { ok: true, value: raw };
}

/** A thumbnail's edge in pixels (files.thumbnail): an integer 64–512. */
function checkThumbnailSize(raw: string): Checked<number> {
  if (!/^\d{1,3}$/.test(raw)) return { ok: false, message: 'must be an integer 64–512' };
  const size = Number(raw);
  if (size < 64 || size > 512) return { ok: false, message: 'must be an integer 64–512' };
  return { ok: true, value: size };
}

/**
 * Several file names in one parameter, separated by `/` (which no name may contain):
 * folders.download's `files`. 1–1000 distinct names, each checked as a file name.
 */
function checkFileNameList(raw: string): Checked<string[]> {
  const names = raw.split('/');
  if (names.length > 1000) return { ok: false, message: 'must name at most 1000 files' };
  const seen = new Set<string>();
  for (const name of names) {
    const checked = checkFileName(name);
    if (!checked.ok) return { ok: false, message: `has a name that ${checked.message}` };
    if (seen.has(checked.value)) return { ok: false, message: `names '${checked.value}' twice` };
    seen.add(checked.value);
  }
  return { ok: true, value: [...seen] };
}

/** A trash item's (trash.list) or a version's (files.versions) id: 16 random bytes, hex. */
function checkTrashId(raw: string): Checked<string> {
  if (!/^[0-9a-f]{32}$/.test(raw)) return { ok: false, message: 'is not a trash item id' };
  return { ok: true, value: raw };
}

/**
 * The word a renamed restore puts in brackets after a name (trash.restore's `suffix`: "obnoveno"
 * in Czech): 1–40 characters, and itself a valid file name, so it brings no `/`, control
 * character or trailing dot into the name it is added to (which is checked again whole).
 */
function checkNameSuffix(raw: string): Checked<string> {
  const word = raw.normalize('NFC');
  if ([...word].length > 40) return { ok: false, message: 'must be 1–40 characters' };
  const checked = checkFileName(word);
  return checked.ok ? { ok: true, value: checked.value } : { ok: false, message: checked.message };
}

function checkDialect(raw: string): Checked<Dialect> {
  if (raw !== 'nimbus' && raw !== 'daneecloud') return { ok: false, message: 'must be "nimbus" or "daneecloud"' };
  return { ok: true, value: raw };
}

/** The check of each kind of parameter; what it returns is the parameter's type in `ParamsOf`. */
export const PARAM_CHECKS = {
  accountName: checkAccountName,
  email: checkEmail,
  password: checkPassword,
  fileName: checkFileName,
  folderPath: checkFolderPath,
  badge: checkBadge,
  badgeFile: checkUploadedBadgeFile,
  maxStorage: checkMaxStorage,
  scope: checkScope,
  boolean: checkBoolean,
  count: checkNonNegativeInt,
  token: checkToken,
  label: checkAccountName,
  dialect: checkDialect,
  secret: checkSecret,
  sessionId: checkSessionId,
  searchQuery: checkSearchQuery,
  thumbnailSize: checkThumbnailSize,
  fileNameList: checkFileNameList,
  trashId: checkTrashId,
  versionId: checkTrashId,
  nameSuffix: checkNameSuffix,
  expiry: checkExpiry,
} as const satisfies Record<string, (raw: string) => Checked<unknown>>;

export type ParamKind = keyof typeof PARAM_CHECKS;

/** The checked value of a parameter of kind `K`: `number` for `maxStorage` and `count`, `boolean` for `boolean`… */
export type ParamValue<K extends ParamKind> = Extract<ReturnType<(typeof PARAM_CHECKS)[K]>, { ok: true }>['value'];

export interface ParamSpec<K extends ParamKind = ParamKind, R extends boolean = boolean> {
  kind: K;
  required: R;
  description: string;
  /** Where the value is: the query string or body (default), or a `{name}` segment of the path. */
  in?: 'query' | 'path';
}

/**
 * Who may call an endpoint (docs/accounts.md, "Audiences"); authorization reads it in one place
 * (`authorize`, daemon/http/app.ts):
 * - `public`: no credential (share links, the verification page, sign-in, registration, reset,
 *   health, the OpenAPI document);
 * - `signedIn`: any caller (a key or a session); the service answers for the caller;
 * - `self`: the row names a user (`username`): an admin may name anyone, another caller only
 *   themselves (another name answers 404 `user_not_found`, as a user that does not exist);
 * - `admin`: admins only (403 `admin_only` for anyone else);
 * - `adminKey`: the machine's admin key itself only (403 `admin_key_only` for anyone else, admin
 *   machine keys and admin-role users included): what it does hands out that very key.
 */
export type Audience = 'public' | 'signedIn' | 'self' | 'admin' | 'adminKey';

export type EndpointGroup = 'user' | 'folders' | 'role' | 'files' | 'trash' | 'dash' | 'keys' | 'auth' | 'meta' | 'public';

interface EndpointBase {
  id: string;
  method: 'GET' | 'POST';
  /** The path; `{name}` is a path parameter (declared in `params` with `in: 'path'`). */
  path: string;
  group: EndpointGroup;
  summary: string;
  /** Who may call it (see `Audience`). */
  audience: Audience;
  /**
   * Refused (403 `insufficient_scope`) to a caller that may only read, although it is a GET
   * (every POST is refused to such a caller anyway: `refusesReadOnly()` below). Only
   * `keys.list`, which a `read` key could not call before accounts either.
   */
  refusesReadOnly?: boolean;
  params: Record<string, ParamSpec>;
  success: number;
  /**
   * What it answers on success (shared/api-answers.ts): a JSON schema, from which both
   * `ResponseOf<Id>` and the OpenAPI document's response come, or the media types of an
   * answer that is not JSON. Required, so a row cannot be added without saying what it answers.
   */
  answer: Answer;
  /** What a key of the `daneecloud` dialect gets instead (daemon/http/dialect.ts); absent: the same answer. */
  daneecloud?: AnySchema;
  /** Bodies of other statuses that are not the `{error, code}` of an error (health's 503). */
  otherAnswers?: Readonly<Record<number, AnySchema>>;
  /** Error statuses the route can answer, besides 401/403/429 common to every row that is not `public`. */
  errors: readonly number[];
  /**
   * The change events a successful call publishes on GET /api/events (the dispatcher builds
   * each from the parameters and result: daemon/http/app.ts, `changeEvents`). Changes of files
   * and folders are not listed: the file index announces those itself.
   */
  events: readonly ChangeEventType[];
  /** The response is not JSON: a byte stream, an event stream or a page. */
  raw?: 'bytes' | 'events' | 'html';
  /** Takes the raw request body as file content instead of parameters. */
  bodyIsContent?: boolean;
  /** Accepts `limit` and `offset` and answers with `X-Total-Count`. */
  paged?: boolean;
}

/** Any row of the table. */
export interface Endpoint extends EndpointBase {
  id: EndpointId;
}

function p<K extends ParamKind>(kind: K, description: string): ParamSpec<K, true>;
function p<K extends ParamKind>(kind: K, description: string, required: false): ParamSpec<K, false>;
function p(kind: ParamKind, description: string, required = true): ParamSpec {
  return { kind, required, description };
}
/** A `{name}` segment of the path: always required. */
const inPath = <K extends ParamKind>(kind: K, description: string): ParamSpec<K, true> => ({
  kind,
  required: true,
  description,
  in: 'path',
});

const username = p('accountName', 'The user’s name');
const folder = p('folderPath', 'Folder path: names separated by `/` (`photos/2024`)');
const folderOpt = p('folderPath', 'Path of the folder holding the file; omitted means the user’s root', false);
const file = p('fileName', 'File name');
const roleName = p('accountName', 'Role name');
/** Optional since issue 29: no badge is a role without a picture (shared/badges.ts). */
const roleBadge = p(
  'badge',
  'Badge: an http(s) image URL, or a path of this daemon’s badges (`/badges/user.svg`, or what role.badge.upload answered); omitted: no badge',
  false,
);
const permanent = p('boolean', 'Delete for good instead of moving to the trash (docs/explorer.md)', false);
const moveTarget = p('folderPath', 'Path of the target folder; omitted or empty means the user’s root', false);
/** A share link's options (docs/sharing.md): each left out keeps what the link has (a new link: none). */
const shareOptions = {
  expires: p('expiry', 'When the link stops working: an ISO 8601 date-time (or a date: its start, UTC), or "never"', false),
  password: p(
    'secret',
    'A password the link asks for (in the body only; stored hashed); an edit takes the link’s away with `removePassword`',
    false,
  ),
  removePassword: p('boolean', 'Take the link’s password away (an edit)', false),
  maxDownloads: p('count', 'How many downloads the link allows in all; 0 is no limit', false),
};
const uploadLink = p('boolean', 'The folder’s upload link (a drop box), not its link to browse', false);

const ENDPOINT_LIST = [
  {
    id: 'user.get',
    method: 'GET',
    path: '/api/user',
    group: 'user',
    summary: 'Get one user',
    audience: 'self',
    params: { username },
    success: 200,
    answer: ANSWERS.user,
    daneecloud: DANEECLOUD.user,
    errors: [400, 404],
    events: [],
  },
  {
    id: 'user.all',
    method: 'GET',
    path: '/api/user/all',
    group: 'user',
    summary: 'List all users',
    audience: 'admin',
    params: {},
    success: 200,
    answer: ANSWERS.users,
    daneecloud: DANEECLOUD.users,
    errors: [400],
    events: [],
    paged: true,
  },
  {
    id: 'user.create',
    method: 'POST',
    path: '/api/user/create',
    group: 'user',
    summary: 'Create a user',
    audience: 'admin',
    params: { username, email: p('email', 'E-mail address'), password: p('password', 'Password, at least 8 characters') },
    success: 201,
    answer: ANSWERS.userChanged,
    daneecloud: DANEECLOUD.userChanged,
    errors: [400, 409],
    events: ['user.changed'],
  },
  {
    id: 'user.delete',
    method: 'POST',
    path: '/api/user/delete',
    group: 'user',
    summary: 'Delete a user with their files and shares',
    audience: 'admin',
    params: { username },
    success: 200,
    answer: ANSWERS.msg,
    errors: [400, 404],
    events: [],
  },
  {
    id: 'user.edit',
    method: 'POST',
    path: '/api/user/edit',
    group: 'user',
    summary: 'Change a user’s name, e-mail and password',
    audience: 'self',
    params: {
      username,
      newusername: p('accountName', 'New name'),
      newemail: p('email', 'New e-mail address'),
      newpassword: p('password', 'New password; omitted or empty keeps the current one', false),
      password: p(
        'secret',
        'The caller’s current password (in the body only): needed, in a signed-in session, to change one’s own e-mail or password; an admin editing another user needs none',
        false,
      ),
    },
    success: 201,
    answer: ANSWERS.userChanged,
    daneecloud: DANEECLOUD.userChanged,
    errors: [400, 404, 409, 429],
    events: ['user.changed'],
  },
  {
    id: 'user.verify',
    method: 'POST',
    path: '/api/user/verify',
    group: 'user',
    summary: 'Send a verification e-mail',
    audience: 'self',
    params: { username },
    success: 200,
    answer: ANSWERS.verificationSent,
    errors: [400, 404, 429, 502],
    events: ['user.changed'],
  },
  {
    id: 'user.role',
    method: 'POST',
    path: '/api/user/role',
    group: 'user',
    summary: 'Give a user a role',
    audience: 'admin',
    params: { username, name: roleName },
    success: 201,
    answer: ANSWERS.userChanged,
    daneecloud: DANEECLOUD.userChanged,
    errors: [400, 404],
    events: ['user.changed'],
  },
  {
    id: 'folders.list',
    method: 'GET',
    path: '/api/folders',
    group: 'folders',
    summary: 'List the folders at a user’s root (or directly inside `folder`), each with its whole subtree’s counts and bytes',
    audience: 'self',
    params: { username, folder: p('folderPath', 'Path of the folder whose folders to list; omitted means the user’s root', false) },
    success: 200,
    answer: ANSWERS.folders,
    daneecloud: DANEECLOUD.folderNames,
    errors: [400, 404],
    events: [],
    paged: true,
  },
  {
    id: 'folders.files',
    method: 'GET',
    path: '/api/folders/files',
    group: 'folders',
    summary: 'List the files in a folder',
    audience: 'self',
    params: { username, folder },
    success: 200,
    answer: ANSWERS.files,
    daneecloud: DANEECLOUD.fileNames,
    errors: [400, 404],
    events: [],
    paged: true,
  },
  {
    id: 'folders.create',
    method: 'POST',
    path: '/api/folders/create',
    group: 'folders',
    summary: 'Create a folder (its parent must exist, unless `parents`)',
    audience: 'self',
    params: { username, folder, parents: p('boolean', 'Create the missing folders above it too, as mkdir -p', false) },
    success: 201,
    answer: ANSWERS.folderChanged,
    errors: [400, 404, 409, 423],
    events: [],
  },
  {
    id: 'folders.delete',
    method: 'POST',
    path: '/api/folders/delete',
    group: 'folders',
    summary: 'Delete a folder and its files (to the trash unless `permanent`)',
    audience: 'self',
    params: { username, folder, permanent },
    success: 200,
    answer: ANSWERS.trashed,
    daneecloud: DANEECLOUD.msg,
    errors: [400, 404, 423],
    events: [],
  },
  {
    id: 'folders.files.rename',
    method: 'POST',
    path: '/api/folders/files/rename',
    group: 'folders',
    summary: 'Rename a file in a folder',
    audience: 'self',
    params: { username, folder, file, newname: p('fileName', 'New file name') },
    success: 201,
    answer: ANSWERS.fileChanged,
    errors: [400, 404, 409, 423],
    events: [],
  },
  {
    id: 'folders.files.delete',
    method: 'POST',
    path: '/api/folders/files/delete',
    group: 'folders',
    summary: 'Delete a file in a folder',
    audience: 'self',
    params: { username, folder, file, permanent },
    success: 200,
    answer: ANSWERS.trashed,
    daneecloud: DANEECLOUD.msg,
    errors: [400, 404, 423],
    events: [],
  },
  {
    id: 'folders.rename',
    method: 'POST',
    path: '/api/folders/rename',
    group: 'folders',
    summary: 'Rename a folder (the shares of its files follow)',
    audience: 'self',
    params: { username, folder, newname: p('fileName', 'New folder name') },
    success: 201,
    answer: ANSWERS.folderChanged,
    errors: [400, 404, 409, 423],
    events: [],
  },
  {
    id: 'folders.move',
    method: 'POST',
    path: '/api/folders/move',
    group: 'folders',
    summary: 'Move a folder with everything inside it into another folder or the root (the shares below follow)',
    audience: 'self',
    params: { username, folder, to: moveTarget },
    success: 201,
    answer: ANSWERS.folderChanged,
    errors: [400, 404, 409, 423],
    events: [],
  },
  {
    id: 'folders.copy',
    method: 'POST',
    path: '/api/folders/copy',
    group: 'folders',
    summary: 'Copy a folder with everything inside it into another folder or the root (its bytes counted against the quota first)',
    audience: 'self',
    params: { username, folder, to: moveTarget },
    success: 201,
    answer: ANSWERS.folderChanged,
    errors: [400, 404, 409, 423, 507],
    events: [],
  },
  {
    id: 'folders.download',
    method: 'GET',
    path: '/api/folders/download',
    group: 'folders',
    summary: 'Download a folder, the whole storage or some files as a streamed zip',
    audience: 'self',
    params: {
      username,
      folder: p(
        'folderPath',
        'Folder to zip with its whole subtree; omitted means the whole storage (unless `files` names some files)',
        false,
      ),
      files: p('fileNameList', 'Only these files of `folder` (or of the root), separated by `/`', false),
    },
    success: 200,
    answer: ANSWERS.zip,
    errors: [400, 404],
    events: [],
    raw: 'bytes',
  },
  {
    id: 'role.get',
    method: 'GET',
    path: '/api/role',
    group: 'role',
    summary: 'Get one role',
    audience: 'signedIn',
    params: { name: roleName },
    success: 200,
    answer: ANSWERS.role,
    errors: [400, 404],
    events: [],
  },
  {
    id: 'role.all',
    method: 'GET',
    path: '/api/role/all',
    group: 'role',
    summary: 'List all roles',
    audience: 'admin',
    params: {},
    success: 200,
    answer: ANSWERS.roles,
    errors: [400],
    events: [],
    paged: true,
  },
  {
    id: 'role.create',
    method: 'POST',
    path: '/api/role/create',
    group: 'role',
    summary: 'Create a role',
    audience: 'admin',
    params: {
      name: roleName,
      maxStorage: p('maxStorage', 'Quota in MB (MiB); -1 for unlimited'),
      badge: roleBadge,
    },
    success: 201,
    answer: ANSWERS.roleChanged,
    errors: [400, 409],
    events: ['role.changed'],
  },
  {
    id: 'role.delete',
    method: 'POST',
    path: '/api/role/delete',
    group: 'role',
    summary: 'Delete a role no user has',
    audience: 'admin',
    params: { name: roleName },
    success: 200,
    answer: ANSWERS.msg,
    errors: [400, 404, 409],
    events: ['role.changed'],
  },
  {
    id: 'role.edit',
    method: 'POST',
    path: '/api/role/edit',
    group: 'role',
    summary: 'Change a role’s name, quota and badge',
    audience: 'admin',
    params: {
      name: roleName,
      newname: p('accountName', 'New role name'),
      maxStorage: p('maxStorage', 'Quota in MB (MiB); -1 for unlimited'),
      badge: roleBadge,
    },
    success: 201,
    answer: ANSWERS.roleChanged,
    errors: [400, 404, 409],
    events: ['role.changed'],
  },
  {
    id: 'role.badge.upload',
    method: 'POST',
    path: '/api/role/badge',
    group: 'role',
    summary:
      'Upload a picture for a role’s badge (PNG, JPEG or WebP, by its bytes; at most 64 KiB); pass the `badge` it answers to role.create or role.edit',
    audience: 'admin',
    params: {},
    success: 201,
    answer: ANSWERS.badgeUploaded,
    errors: [400, 413, 415],
    events: [],
    bodyIsContent: true,
  },
  {
    id: 'role.badge.get',
    method: 'GET',
    path: '/badges/uploaded/{file}',
    group: 'role',
    summary: 'An uploaded badge picture (public, as a role’s badge URL is; cached for a year: its name is its content’s hash)',
    audience: 'public',
    params: { file: inPath('badgeFile', 'The picture’s file name (`<id>.png`)') },
    success: 200,
    answer: ANSWERS.badgeImage,
    errors: [404],
    events: [],
    raw: 'bytes',
  },
  {
    id: 'files.list',
    method: 'GET',
    path: '/api/files',
    group: 'files',
    summary: 'List the files at a user’s root (or in `folder`)',
    audience: 'self',
    params: { username, folder: folderOpt },
    success: 200,
    answer: ANSWERS.files,
    daneecloud: DANEECLOUD.fileNames,
    errors: [400, 404],
    events: [],
    paged: true,
  },
  {
    id: 'files.search',
    method: 'GET',
    path: '/api/files/search',
    group: 'files',
    summary: 'Search a user’s files by name, in the whole tree or below `folder` (case- and accent-insensitive substring)',
    audience: 'self',
    params: {
      username,
      q: p('searchQuery', 'Text to find in file names (1–200 characters, matched literally)'),
      folder: p('folderPath', 'Search only this folder and every folder below it; omitted means the whole tree', false),
    },
    success: 200,
    answer: ANSWERS.files,
    errors: [400, 404],
    events: [],
    paged: true,
  },
  {
    id: 'files.delete',
    method: 'POST',
    path: '/api/files/delete',
    group: 'files',
    summary: 'Delete a file (to the trash unless `permanent`)',
    audience: 'self',
    params: { username, file, folder: folderOpt, permanent },
    success: 200,
    answer: ANSWERS.trashed,
    daneecloud: DANEECLOUD.msg,
    errors: [400, 404, 423],
    events: [],
  },
  {
    id: 'files.rename',
    method: 'POST',
    path: '/api/files/rename',
    group: 'files',
    summary: 'Rename a file (its share follows)',
    audience: 'self',
    params: { username, file, newname: p('fileName', 'New file name'), folder: folderOpt },
    success: 201,
    answer: ANSWERS.fileChanged,
    errors: [400, 404, 409, 423],
    events: [],
  },
  {
    id: 'files.move',
    method: 'POST',
    path: '/api/files/move',
    group: 'files',
    summary: 'Move a file to another folder or the root (its share follows)',
    audience: 'self',
    params: { username, file, folder: folderOpt, to: moveTarget },
    success: 201,
    answer: ANSWERS.fileChanged,
    errors: [400, 404, 409, 423],
    events: [],
  },
  {
    id: 'files.copy',
    method: 'POST',
    path: '/api/files/copy',
    group: 'files',
    summary: 'Copy a file to another folder or the root (counted against the quota)',
    audience: 'self',
    params: { username, file, folder: folderOpt, to: moveTarget },
    success: 201,
    answer: ANSWERS.fileChanged,
    errors: [400, 404, 409, 423, 507],
    events: [],
  },
  {
    id: 'files.share',
    method: 'POST',
    path: '/api/files/share',
    group: 'files',
    summary: 'Share a file by an unguessable link, with an expiry, a password and a download limit if given',
    audience: 'self',
    params: { username, file, folder: folderOpt, ...shareOptions },
    success: 201,
    answer: ANSWERS.fileChanged,
    errors: [400, 404, 409],
    events: ['share.changed'],
  },
  {
    id: 'folders.share',
    method: 'POST',
    path: '/api/folders/share',
    group: 'folders',
    summary:
      'Share a folder by link: its whole tree to browse and download (or, with `upload`, a drop box anyone with the link can upload into but not see), with the options given',
    audience: 'self',
    params: { username, folder, upload: uploadLink, ...shareOptions },
    success: 201,
    answer: ANSWERS.shareChanged,
    errors: [400, 404, 409],
    events: ['share.changed'],
  },
  {
    id: 'folders.noshare',
    method: 'POST',
    path: '/api/folders/noshare',
    group: 'folders',
    summary: 'Revoke a folder’s link (with `upload`: its upload link)',
    audience: 'self',
    params: { username, folder, upload: uploadLink },
    success: 201,
    answer: ANSWERS.msg,
    errors: [400, 404],
    events: ['share.changed'],
  },
  {
    id: 'shares.edit',
    method: 'POST',
    path: '/api/shares/edit',
    group: 'files',
    summary: 'Change a link’s expiry, password or download limit (what is left out stays): a file’s, or without `file` the folder’s',
    audience: 'self',
    params: {
      username,
      file: p('fileName', 'The shared file; left out: the link of the folder itself', false),
      folder: folderOpt,
      upload: uploadLink,
      ...shareOptions,
    },
    success: 200,
    answer: ANSWERS.shareChanged,
    errors: [400, 404],
    events: ['share.changed'],
  },
  {
    id: 'shares.list',
    method: 'GET',
    path: '/api/shares',
    group: 'files',
    summary: 'The user’s share links with their options, downloads so far and state (active, expired, used up)',
    audience: 'self',
    params: { username },
    success: 200,
    answer: ANSWERS.shares,
    errors: [400, 404],
    events: [],
  },
  {
    id: 'files.noshare',
    method: 'POST',
    path: '/api/files/noshare',
    group: 'files',
    summary: 'Revoke a file’s share link',
    audience: 'self',
    params: { username, file, folder: folderOpt },
    success: 201,
    answer: ANSWERS.fileChanged,
    errors: [400, 404],
    events: ['share.changed'],
  },
  {
    id: 'files.versions',
    method: 'GET',
    path: '/api/files/versions',
    group: 'files',
    summary: 'A file’s earlier versions, newest first: what uploads replaced (docs/versions.md)',
    audience: 'self',
    params: { username, file, folder: folderOpt },
    success: 200,
    answer: ANSWERS.versions,
    errors: [400, 404],
    events: [],
  },
  {
    id: 'files.versions.restore',
    method: 'POST',
    path: '/api/files/versions/restore',
    group: 'files',
    summary: 'Make an earlier version the file’s content again (what it replaces is kept as a version)',
    audience: 'self',
    params: { username, file, folder: folderOpt, id: p('versionId', 'The version’s id (files.versions)') },
    success: 201,
    answer: ANSWERS.fileChanged,
    errors: [400, 404, 423, 507],
    events: [],
  },
  {
    id: 'files.versions.download',
    method: 'GET',
    path: '/api/files/versions/download',
    group: 'files',
    summary: 'An earlier version’s bytes (Range supported)',
    audience: 'self',
    params: { username, file, folder: folderOpt, id: p('versionId', 'The version’s id (files.versions)') },
    success: 200,
    answer: ANSWERS.fileBytes,
    errors: [400, 404, 416],
    events: [],
    raw: 'bytes',
  },
  {
    id: 'files.upload',
    method: 'POST',
    path: '/api/files/upload',
    group: 'files',
    summary:
      'Upload a file: the raw request body is its content, or the one file part of a multipart/form-data body (other form encodings: 415)',
    audience: 'self',
    params: { username, file, folder: folderOpt, overwrite: p('boolean', 'Replace an existing file', false) },
    success: 201,
    answer: ANSWERS.fileChanged,
    errors: [400, 404, 409, 413, 415, 423, 507],
    events: [],
    bodyIsContent: true,
  },
  {
    id: 'files.download',
    method: 'GET',
    path: '/api/files/download',
    group: 'files',
    summary: 'Download a file (Range supported); `inline` previews images, PDF, text, audio and video',
    audience: 'self',
    params: {
      username,
      file,
      folder: folderOpt,
      inline: p('boolean', 'Serve for viewing in the browser (previewable types only; anything else stays an attachment)', false),
    },
    success: 200,
    answer: ANSWERS.fileBytes,
    errors: [400, 404, 412, 416],
    events: [],
    raw: 'bytes',
  },
  {
    id: 'files.thumbnail',
    method: 'GET',
    path: '/api/files/thumbnail',
    group: 'files',
    summary: 'A small picture of an image file (WebP), made once and kept until the file changes',
    audience: 'self',
    params: { username, file, folder: folderOpt, size: p('thumbnailSize', 'Longest edge in pixels, 64–512 (default 256)', false) },
    success: 200,
    answer: ANSWERS.thumbnail,
    errors: [400, 404, 412, 415],
    events: [],
    raw: 'bytes',
  },
  {
    id: 'usage.get',
    method: 'GET',
    path: '/api/usage',
    group: 'user',
    summary: 'A user’s storage: files, trash and free space against the quota, and bytes by kind',
    audience: 'self',
    params: { username },
    success: 200,
    answer: ANSWERS.usage,
    errors: [400, 404],
    events: [],
  },
  {
    id: 'trash.list',
    method: 'GET',
    path: '/api/trash',
    group: 'trash',
    summary: 'List what a user deleted, newest first',
    audience: 'self',
    params: { username },
    success: 200,
    answer: ANSWERS.trash,
    errors: [400, 404],
    events: [],
    paged: true,
  },
  {
    id: 'trash.restore',
    method: 'POST',
    path: '/api/trash/restore',
    group: 'trash',
    summary: 'Put a deleted file or folder back where it was',
    audience: 'self',
    params: {
      username,
      id: p('trashId', 'The trash item'),
      rename: p('boolean', 'When the name is taken again, restore beside it as “name (restored)” instead of answering 409', false),
      suffix: p(
        'nameSuffix',
        'The word in brackets a renamed restore adds (default “restored”): the UI sends it in the person’s language',
        false,
      ),
    },
    success: 201,
    answer: ANSWERS.restored,
    errors: [400, 404, 409, 423],
    events: ['trash.changed'],
  },
  {
    id: 'trash.delete',
    method: 'POST',
    path: '/api/trash/delete',
    group: 'trash',
    summary: 'Delete one trash item for good',
    audience: 'self',
    params: { username, id: p('trashId', 'The trash item') },
    success: 200,
    answer: ANSWERS.msg,
    errors: [400, 404],
    events: ['trash.changed'],
  },
  {
    id: 'trash.empty',
    method: 'POST',
    path: '/api/trash/empty',
    group: 'trash',
    summary: 'Delete everything in a user’s trash for good',
    audience: 'self',
    params: { username },
    success: 200,
    answer: ANSWERS.trashEmptied,
    errors: [400, 404],
    events: ['trash.changed'],
  },
  {
    id: 'dash.get',
    method: 'GET',
    path: '/api/dash',
    group: 'dash',
    summary: 'Daemon status and totals',
    audience: 'admin',
    params: {},
    success: 200,
    answer: ANSWERS.dash,
    daneecloud: DANEECLOUD.dash,
    errors: [],
    events: [],
  },
  {
    id: 'dash.rescan',
    method: 'POST',
    path: '/api/dash/rescan',
    group: 'dash',
    summary: 'Reconcile the file index with the disk now',
    audience: 'admin',
    params: {},
    success: 200,
    answer: ANSWERS.rescanned,
    errors: [503],
    events: [],
  },
  {
    id: 'events',
    method: 'GET',
    path: '/api/events',
    group: 'dash',
    summary: 'Live change events (Server-Sent Events)',
    audience: 'signedIn',
    params: {},
    success: 200,
    answer: ANSWERS.events,
    errors: [],
    events: [],
    raw: 'events',
  },
  {
    id: 'keys.list',
    method: 'GET',
    path: '/api/keys',
    group: 'keys',
    summary: 'List API keys (labels, scopes and owners, never the keys); a non-admin sees only their own',
    audience: 'signedIn',
    refusesReadOnly: true,
    params: {},
    success: 200,
    answer: ANSWERS.keys,
    errors: [],
    events: [],
  },
  {
    id: 'keys.create',
    method: 'POST',
    path: '/api/keys/create',
    group: 'keys',
    summary: 'Create an API key (a user makes a personal key acting as them); the key is shown once',
    audience: 'signedIn',
    params: {
      label: p('label', 'A name for the key'),
      scope: p(
        'scope',
        'A machine key (made by an admin key or machine key, acting as no user): "admin" or "read". A personal key (made by a signed-in user or their key, acting as that user): "write" or "read"',
      ),
      dialect: p(
        'dialect',
        'The response shapes the key gets: "nimbus" (default) or "daneecloud" (DaneeCloud’s bodies, for its bot and clients)',
        false,
      ),
      password: p(
        'secret',
        'The caller’s current password (in the body only): needed in a signed-in session, so that a stolen session cannot leave behind a key that outlives it; a key making a key needs none',
        false,
      ),
    },
    success: 201,
    answer: ANSWERS.keyCreated,
    errors: [400, 401, 403, 409, 429],
    events: [],
  },
  {
    id: 'keys.delete',
    method: 'POST',
    path: '/api/keys/delete',
    group: 'keys',
    summary: 'Delete an API key (a non-admin only their own)',
    audience: 'signedIn',
    params: {
      label: p('label', 'The key’s name'),
      username: p(
        'accountName',
        'Whose personal key it is (an admin may name anyone); left out: the caller’s own keys (for the admin key and machine keys, the machine keys)',
        false,
      ),
    },
    success: 200,
    answer: ANSWERS.msg,
    errors: [400, 404, 409],
    events: [],
  },
  {
    id: 'keys.rotate',
    method: 'POST',
    path: '/api/keys/rotate',
    group: 'keys',
    summary: 'Replace the admin key; the new key is shown once. Only the admin key itself may',
    audience: 'adminKey',
    params: {},
    success: 201,
    answer: ANSWERS.keyRotated,
    errors: [409],
    events: [],
  },
  {
    id: 'auth.login',
    method: 'POST',
    path: '/api/auth/login',
    group: 'auth',
    summary: 'Sign in: answers the user and sets the session cookie `nimbus_session`',
    audience: 'public',
    params: { username, password: p('secret', 'The password (in the body only)') },
    success: 200,
    answer: ANSWERS.signedIn,
    errors: [400, 401, 403, 429],
    events: [],
  },
  {
    id: 'auth.logout',
    method: 'POST',
    path: '/api/auth/logout',
    group: 'auth',
    summary: 'Sign out: ends this session on the server and clears the cookie',
    audience: 'signedIn',
    params: {},
    success: 200,
    answer: ANSWERS.msg,
    errors: [],
    events: [],
  },
  {
    id: 'auth.me',
    method: 'GET',
    path: '/api/auth/me',
    group: 'auth',
    summary: 'Who is calling: the user (null for the admin key and machine keys) and whether they are an admin',
    audience: 'signedIn',
    params: {},
    success: 200,
    answer: ANSWERS.me,
    errors: [],
    events: [],
  },
  {
    id: 'auth.password',
    method: 'POST',
    path: '/api/auth/password',
    group: 'auth',
    summary: 'Change one’s own password (the current one is asked); every other session is ended',
    audience: 'signedIn',
    params: {
      password: p('secret', 'The current password (in the body only)'),
      newpassword: p('secret', 'The new password (in the body only): at least 8 characters, not the username, not a common password'),
    },
    success: 200,
    answer: ANSWERS.msg,
    errors: [400],
    events: [],
  },
  {
    id: 'auth.reset',
    method: 'POST',
    path: '/api/auth/reset',
    group: 'auth',
    summary: 'Ask for a password reset link by e-mail; answers the same whether or not the account exists',
    audience: 'public',
    params: {
      username: p('accountName', 'The user’s name (or give `email`)', false),
      email: p('email', 'The user’s e-mail address (or give `username`)', false),
    },
    success: 200,
    answer: ANSWERS.msg,
    errors: [400, 403],
    events: [],
  },
  {
    id: 'auth.reset.confirm',
    method: 'POST',
    path: '/api/auth/reset/confirm',
    group: 'auth',
    summary: 'Set a new password with the token of a reset link; every session of the user is ended',
    audience: 'public',
    params: {
      token: p('token', 'The token from the reset link'),
      newpassword: p('secret', 'The new password (in the body only): at least 8 characters, not the username, not a common password'),
    },
    success: 200,
    answer: ANSWERS.msg,
    errors: [400, 403],
    events: [],
  },
  {
    id: 'auth.register',
    method: 'POST',
    path: '/api/auth/register',
    group: 'auth',
    summary: 'Create one’s own account (role `user`) and sign in; only with NIMBUS_REGISTRATION=open',
    audience: 'public',
    params: {
      username,
      email: p('email', 'E-mail address'),
      password: p('secret', 'Password (in the body only): at least 8 characters, not the username, not a common password'),
    },
    success: 201,
    answer: ANSWERS.userChanged,
    errors: [400, 403, 409, 429],
    events: ['user.changed'],
  },
  {
    id: 'auth.options',
    method: 'GET',
    path: '/api/auth/options',
    group: 'auth',
    summary:
      'What the sign-in page may offer: whether anyone may register, whether uploads and shares wait for a verified e-mail, and whether mail leaves by SMTP or is written to the outbox on the server',
    audience: 'public',
    params: {},
    success: 200,
    answer: ANSWERS.authOptions,
    errors: [],
    events: [],
  },
  {
    id: 'auth.sessions',
    method: 'GET',
    path: '/api/auth/sessions',
    group: 'auth',
    summary: 'The caller’s own sessions (device, address, last use)',
    audience: 'signedIn',
    params: {},
    success: 200,
    answer: ANSWERS.sessions,
    errors: [],
    events: [],
  },
  {
    id: 'auth.sessions.delete',
    method: 'POST',
    path: '/api/auth/sessions/delete',
    group: 'auth',
    summary: 'End one of the caller’s own sessions',
    audience: 'signedIn',
    params: { id: p('sessionId', 'The session’s id (from `auth.sessions`)') },
    success: 200,
    answer: ANSWERS.msg,
    errors: [400, 404],
    events: [],
  },
  {
    id: 'openapi',
    method: 'GET',
    path: '/api/openapi.json',
    group: 'meta',
    summary: 'This API’s OpenAPI 3.1 description (public: it holds no secret, and a client generator needs it before it has a key)',
    audience: 'public',
    params: {},
    success: 200,
    answer: ANSWERS.openapi,
    errors: [],
    events: [],
  },
  {
    id: 'health.get',
    method: 'GET',
    path: '/api/health',
    group: 'meta',
    summary:
      'Whether this daemon can serve (what a load balancer polls): 200 {status: "ok"}, 200 {status: "degraded", checks} when only the bucket is unreachable, or 503 {status: "unavailable", checks: {<probe>: "ok" | <reason>}}',
    audience: 'public',
    params: {},
    success: 200,
    answer: ANSWERS.health,
    otherAnswers: { 503: HealthUnavailableSchema },
    errors: [503],
    events: [],
  },
  {
    id: 'share.download',
    method: 'GET',
    path: '/s/{token}',
    group: 'public',
    summary:
      'A share link: a file (a preview page for a browser, else the bytes), a folder (its page or JSON listing, a file in it, or a zip), or an upload link’s page',
    audience: 'public',
    params: {
      token: inPath('token', 'The share token from the link'),
      inline: p('boolean', 'The bytes for viewing in the browser (what the preview page shows)', false),
      download: p('boolean', 'The bytes as an attachment, never the preview page', false),
      path: p(
        'folderPath',
        'In a folder link: a folder or file inside the shared folder (`2024/june/beach.jpg`); nothing above it is reachable',
        false,
      ),
      zip: p('boolean', 'In a folder link: the folder (or `path`) as a zip', false),
    },
    success: 200,
    answer: ANSWERS.shareLink,
    errors: [400, 401, 404, 412, 416],
    events: [],
    raw: 'bytes',
  },
  {
    id: 'share.upload',
    method: 'POST',
    path: '/s/{token}/upload',
    group: 'public',
    summary:
      'Put a file into an upload link’s folder: the raw body (`file` names it) or the one file part of a multipart form (its file name); a taken name becomes `name (2).ext`',
    audience: 'public',
    params: {
      token: inPath('token', 'The upload link’s token'),
      file: p('fileName', 'The file’s name (a multipart form’s file part may give it instead)', false),
    },
    success: 201,
    answer: ANSWERS.uploadedThroughLink,
    errors: [400, 401, 404, 409, 413, 415, 507],
    events: [],
    bodyIsContent: true,
  },
  {
    id: 'share.unlock',
    method: 'POST',
    path: '/s/{token}',
    group: 'public',
    summary:
      'The password of a link that asks for one: right, a cookie for this link and a 303 back to it; wrong (or no such link), 401 and the password page again',
    audience: 'public',
    params: {
      token: inPath('token', 'The share token from the link'),
      password: p('secret', 'The link’s password (in the body only)'),
    },
    success: 303,
    answer: ANSWERS.seeOther,
    errors: [400, 401, 429],
    events: [],
    raw: 'html',
  },
  {
    id: 'verify',
    method: 'GET',
    path: '/verify',
    group: 'public',
    summary: 'Confirm an e-mail address from the link in a verification mail',
    audience: 'public',
    params: { token: p('token', 'The token from the e-mail') },
    success: 200,
    answer: ANSWERS.page,
    errors: [400, 404],
    events: ['user.changed'],
    raw: 'html',
  },
] as const satisfies readonly EndpointBase[];

type Row = (typeof ENDPOINT_LIST)[number];

export type EndpointId = Row['id'];

/** The row of one endpoint, with its literal types. */
export type EndpointOf<Id extends EndpointId> = Extract<Row, { id: Id }>;

/** Endpoints that answer JSON (not bytes, an event stream or a page). */
export type JsonEndpointId = Exclude<EndpointId, Extract<Row, { raw: string }>['id']>;

type Specs<Id extends EndpointId> = EndpointOf<Id>['params'];
type RequiredNames<P> = { [K in keyof P]: P[K] extends { required: true } ? K : never }[keyof P];
type OptionalNames<P> = Exclude<keyof P, RequiredNames<P>>;
type ValueOfSpec<S> = S extends { kind: infer K extends ParamKind } ? ParamValue<K> : never;
type Flatten<T> = { [K in keyof T]: T[K] } & {};

/**
 * The checked parameters of an endpoint, from its row: a required parameter is a required key,
 * an optional one an optional key, each with the type its kind's check produces.
 */
export type ParamsOf<Id extends EndpointId> = Flatten<
  { [K in RequiredNames<Specs<Id>>]: ValueOfSpec<Specs<Id>[K]> } & { [K in OptionalNames<Specs<Id>>]?: ValueOfSpec<Specs<Id>[K]> }
>;

/** What a client sends to `Id`: its parameters, plus `limit` and `offset` on a paged list. */
export type CallParams<Id extends EndpointId> = ParamsOf<Id> &
  (EndpointOf<Id> extends { paged: true } ? { limit?: number; offset?: number } : unknown);

/**
 * What an endpoint's handler answers on success: the type its row's `answer` schema describes
 * (never for an answer that is not JSON), or what the handler hands back instead where it writes
 * its response itself (shared/types.ts, `HandlerOwnResults`).
 */
export type ResponseOf<Id extends EndpointId> =
  (EndpointOf<Id>['answer'] extends Schema<infer T> ? T : never) | (Id extends keyof HandlerOwnResults ? HandlerOwnResults[Id] : never);

// Every id of HandlerOwnResults is a row's: a row renamed or removed fails here.
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const ownResultsAreRows: Exactly<keyof HandlerOwnResults, Extract<keyof HandlerOwnResults, EndpointId>> = true;
void ownResultsAreRows;

export const ENDPOINTS: readonly Endpoint[] = ENDPOINT_LIST;

/**
 * Whether a caller that may only read (a `read` key) is refused this row with 403
 * `insufficient_scope`: every POST (they change things; on a `public` POST only when a key is
 * sent), and the GETs flagged `refusesReadOnly`.
 */
export function refusesReadOnly(endpoint: Endpoint): boolean {
  return endpoint.method === 'POST' || endpoint.refusesReadOnly === true;
}

export const ENDPOINT_BY_ID = Object.fromEntries(ENDPOINT_LIST.map((e) => [e.id, e])) as { readonly [Id in EndpointId]: EndpointOf<Id> };

/**
 * The path and query string a client requests for `endpoint` with `params`: each path
 * parameter percent-encoded into its `{name}` segment, the others (strings of their values)
 * in the query string; null and undefined values are left out.
 */
export function requestTarget(endpoint: Endpoint, params: Readonly<Record<string, unknown>>): string {
  const query = new URLSearchParams();
  let path = endpoint.path;
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    if (endpoint.params[name]?.in === 'path') path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
    // A list of file names travels as one value, joined by `/` (checkFileNameList).
    else query.set(name, Array.isArray(value) ? value.join('/') : String(value));
  }
  const qs = query.toString();
  return qs ? `${path}?${qs}` : path;
}

/** Default and maximum page size of list endpoints. */
export const PAGE_LIMIT_MAX = 100_000;
