/**
 * The one index of the HTTP API. The daemon's router, its parameter validation,
 * the OpenAPI document and the UI's client all read this table.
 */
import {
  checkAccountName,
  checkBadgeUrl,
  checkBoolean,
  checkEmail,
  checkFileName,
  checkMaxStorage,
  checkNonNegativeInt,
  checkPassword,
  checkScope,
  checkToken,
  type Checked,
} from './validation.js';
import type { Dialect } from './types.js';

function checkDialect(raw: string): Checked<Dialect> {
  if (raw !== 'nimbus' && raw !== 'daneecloud') return { ok: false, message: 'must be "nimbus" or "daneecloud"' };
  return { ok: true, value: raw };
}

export type ParamKind =
  | 'accountName'
  | 'email'
  | 'password'
  | 'fileName'
  | 'badge'
  | 'maxStorage'
  | 'scope'
  | 'boolean'
  | 'count'
  | 'token'
  | 'label'
  | 'dialect';

export const PARAM_CHECKS: Record<ParamKind, (raw: string) => Checked<unknown>> = {
  accountName: checkAccountName,
  email: checkEmail,
  password: checkPassword,
  fileName: checkFileName,
  badge: checkBadgeUrl,
  maxStorage: checkMaxStorage,
  scope: checkScope,
  boolean: checkBoolean,
  count: checkNonNegativeInt,
  token: checkToken,
  label: checkAccountName,
  dialect: checkDialect,
};

export interface ParamSpec {
  kind: ParamKind;
  required: boolean;
  description: string;
}

export type Scope = 'public' | 'read' | 'admin';

interface EndpointBase {
  id: string;
  method: 'GET' | 'POST';
  path: string;
  group: 'user' | 'folders' | 'role' | 'files' | 'dash' | 'keys' | 'meta' | 'public';
  summary: string;
  /** Who may call it: public routes take no key; read routes take any key; admin routes an admin key. */
  scope: Scope;
  params: Record<string, ParamSpec>;
  success: number;
  /** Error statuses the route can answer, besides 401/403/429 common to every keyed route. */
  errors: readonly number[];
  /** The response is not JSON: a byte stream, an event stream or a page. */
  raw?: 'bytes' | 'events' | 'html';
  /** Takes the raw request body as file content instead of parameters. */
  bodyIsContent?: boolean;
  /** Accepts `limit` and `offset` and answers with `X-Total-Count`. */
  paged?: boolean;
}

export interface Endpoint extends EndpointBase {
  id: EndpointId;
}

const p = (kind: ParamKind, description: string, required = true): ParamSpec => ({ kind, required, description });

const username = p('accountName', 'The user’s name');
const folder = p('fileName', 'Folder name');
const folderOpt = p('fileName', 'Folder holding the file; omitted means the user’s root', false);
const file = p('fileName', 'File name');
const roleName = p('accountName', 'Role name');

const ENDPOINT_LIST = [
  {
    id: 'user.get',
    method: 'GET',
    path: '/api/user',
    group: 'user',
    summary: 'Get one user',
    scope: 'read',
    params: { username },
    success: 200,
    errors: [400, 404],
  },
  {
    id: 'user.all',
    method: 'GET',
    path: '/api/user/all',
    group: 'user',
    summary: 'List all users',
    scope: 'read',
    params: {},
    success: 200,
    errors: [400],
    paged: true,
  },
  {
    id: 'user.create',
    method: 'POST',
    path: '/api/user/create',
    group: 'user',
    summary: 'Create a user',
    scope: 'admin',
    params: { username, email: p('email', 'E-mail address'), password: p('password', 'Password, at least 8 characters') },
    success: 201,
    errors: [400, 409],
  },
  {
    id: 'user.delete',
    method: 'POST',
    path: '/api/user/delete',
    group: 'user',
    summary: 'Delete a user with their files and shares',
    scope: 'admin',
    params: { username },
    success: 200,
    errors: [400, 404],
  },
  {
    id: 'user.edit',
    method: 'POST',
    path: '/api/user/edit',
    group: 'user',
    summary: 'Change a user’s name, e-mail and password',
    scope: 'admin',
    params: {
      username,
      newusername: p('accountName', 'New name'),
      newemail: p('email', 'New e-mail address'),
      newpassword: p('password', 'New password; omitted or empty keeps the current one', false),
    },
    success: 201,
    errors: [400, 404, 409],
  },
  {
    id: 'user.verify',
    method: 'POST',
    path: '/api/user/verify',
    group: 'user',
    summary: 'Send a verification e-mail',
    scope: 'admin',
    params: { username },
    success: 200,
    errors: [400, 404, 502],
  },
  {
    id: 'user.role',
    method: 'POST',
    path: '/api/user/role',
    group: 'user',
    summary: 'Give a user a role',
    scope: 'admin',
    params: { username, name: roleName },
    success: 201,
    errors: [400, 404],
  },
  {
    id: 'folders.list',
    method: 'GET',
    path: '/api/folders',
    group: 'folders',
    summary: 'List a user’s folders',
    scope: 'read',
    params: { username },
    success: 200,
    errors: [400, 404],
    paged: true,
  },
  {
    id: 'folders.files',
    method: 'GET',
    path: '/api/folders/files',
    group: 'folders',
    summary: 'List the files in a folder',
    scope: 'read',
    params: { username, folder },
    success: 200,
    errors: [400, 404],
    paged: true,
  },
  {
    id: 'folders.create',
    method: 'POST',
    path: '/api/folders/create',
    group: 'folders',
    summary: 'Create a folder',
    scope: 'admin',
    params: { username, folder },
    success: 201,
    errors: [400, 404, 409],
  },
  {
    id: 'folders.delete',
    method: 'POST',
    path: '/api/folders/delete',
    group: 'folders',
    summary: 'Delete a folder and its files',
    scope: 'admin',
    params: { username, folder },
    success: 200,
    errors: [400, 404],
  },
  {
    id: 'folders.files.rename',
    method: 'POST',
    path: '/api/folders/files/rename',
    group: 'folders',
    summary: 'Rename a file in a folder',
    scope: 'admin',
    params: { username, folder, file, newname: p('fileName', 'New file name') },
    success: 201,
    errors: [400, 404, 409],
  },
  {
    id: 'folders.files.delete',
    method: 'POST',
    path: '/api/folders/files/delete',
    group: 'folders',
    summary: 'Delete a file in a folder',
    scope: 'admin',
    params: { username, folder, file },
    success: 200,
    errors: [400, 404],
  },
  {
    id: 'role.get',
    method: 'GET',
    path: '/api/role',
    group: 'role',
    summary: 'Get one role',
    scope: 'read',
    params: { name: roleName },
    success: 200,
    errors: [400, 404],
  },
  {
    id: 'role.all',
    method: 'GET',
    path: '/api/role/all',
    group: 'role',
    summary: 'List all roles',
    scope: 'read',
    params: {},
    success: 200,
    errors: [400],
    paged: true,
  },
  {
    id: 'role.create',
    method: 'POST',
    path: '/api/role/create',
    group: 'role',
    summary: 'Create a role',
    scope: 'admin',
    params: {
      name: roleName,
      maxStorage: p('maxStorage', 'Quota in MB (MiB); -1 for unlimited'),
      badge: p('badge', 'Badge image URL (http or https)'),
    },
    success: 201,
    errors: [400, 409],
  },
  {
    id: 'role.delete',
    method: 'POST',
    path: '/api/role/delete',
    group: 'role',
    summary: 'Delete a role no user has',
    scope: 'admin',
    params: { name: roleName },
    success: 200,
    errors: [400, 404, 409],
  },
  {
    id: 'role.edit',
    method: 'POST',
    path: '/api/role/edit',
    group: 'role',
    summary: 'Change a role’s name, quota and badge',
    scope: 'admin',
    params: {
      name: roleName,
      newname: p('accountName', 'New role name'),
      maxStorage: p('maxStorage', 'Quota in MB (MiB); -1 for unlimited'),
      badge: p('badge', 'Badge image URL (http or https)'),
    },
    success: 201,
    errors: [400, 404, 409],
  },
  {
    id: 'files.list',
    method: 'GET',
    path: '/api/files',
    group: 'files',
    summary: 'List the files at a user’s root (or in `folder`)',
    scope: 'read',
    params: { username, folder: folderOpt },
    success: 200,
    errors: [400, 404],
    paged: true,
  },
  {
    id: 'files.delete',
    method: 'POST',
    path: '/api/files/delete',
    group: 'files',
    summary: 'Delete a file',
    scope: 'admin',
    params: { username, file, folder: folderOpt },
    success: 200,
    errors: [400, 404],
  },
  {
    id: 'files.rename',
    method: 'POST',
    path: '/api/files/rename',
    group: 'files',
    summary: 'Rename a file (its share follows)',
    scope: 'admin',
    params: { username, file, newname: p('fileName', 'New file name'), folder: folderOpt },
    success: 201,
    errors: [400, 404, 409],
  },
  {
    id: 'files.share',
    method: 'POST',
    path: '/api/files/share',
    group: 'files',
    summary: 'Share a file by an unguessable link',
    scope: 'admin',
    params: { username, file, folder: folderOpt },
    success: 201,
    errors: [400, 404, 409],
  },
  {
    id: 'files.noshare',
    method: 'POST',
    path: '/api/files/noshare',
    group: 'files',
    summary: 'Revoke a file’s share link',
    scope: 'admin',
    params: { username, file, folder: folderOpt },
    success: 201,
    errors: [400, 404],
  },
  {
    id: 'files.upload',
    method: 'POST',
    path: '/api/files/upload',
    group: 'files',
    summary: 'Upload a file: the raw request body is its content',
    scope: 'admin',
    params: { username, file, folder: folderOpt, overwrite: p('boolean', 'Replace an existing file', false) },
    success: 201,
    errors: [400, 404, 409, 507],
    bodyIsContent: true,
  },
  {
    id: 'files.download',
    method: 'GET',
    path: '/api/files/download',
    group: 'files',
    summary: 'Download a file (Range supported)',
    scope: 'read',
    params: { username, file, folder: folderOpt },
    success: 200,
    errors: [400, 404, 416],
    raw: 'bytes',
  },
  {
    id: 'dash.get',
    method: 'GET',
    path: '/api/dash',
    group: 'dash',
    summary: 'Daemon status and totals',
    scope: 'read',
    params: {},
    success: 200,
    errors: [],
  },
  {
    id: 'dash.rescan',
    method: 'POST',
    path: '/api/dash/rescan',
    group: 'dash',
    summary: 'Reconcile the file index with the disk now',
    scope: 'admin',
    params: {},
    success: 200,
    errors: [503],
  },
  {
    id: 'events',
    method: 'GET',
    path: '/api/events',
    group: 'dash',
    summary: 'Live change events (Server-Sent Events)',
    scope: 'read',
    params: {},
    success: 200,
    errors: [],
    raw: 'events',
  },
  {
    id: 'keys.list',
    method: 'GET',
    path: '/api/keys',
    group: 'keys',
    summary: 'List API keys (labels and scopes, never the keys)',
    scope: 'admin',
    params: {},
    success: 200,
    errors: [],
  },
  {
    id: 'keys.create',
    method: 'POST',
    path: '/api/keys/create',
    group: 'keys',
    summary: 'Create an API key; the key is shown once',
    scope: 'admin',
    params: {
      label: p('label', 'A name for the key'),
      scope: p('scope', '"admin" or "read"'),
      dialect: p(
        'dialect',
        'The response shapes the key gets: "nimbus" (default) or "daneecloud" (DaneeCloud’s bodies, for its bot and clients)',
        false,
      ),
    },
    success: 201,
    errors: [400, 409],
  },
  {
    id: 'keys.delete',
    method: 'POST',
    path: '/api/keys/delete',
    group: 'keys',
    summary: 'Delete an API key',
    scope: 'admin',
    params: { label: p('label', 'The key’s name') },
    success: 200,
    errors: [400, 404, 409],
  },
  {
    id: 'keys.rotate',
    method: 'POST',
    path: '/api/keys/rotate',
    group: 'keys',
    summary: 'Replace the admin key; the new key is shown once',
    scope: 'admin',
    params: {},
    success: 201,
    errors: [409],
  },
  {
    id: 'openapi',
    method: 'GET',
    path: '/api/openapi.json',
    group: 'meta',
    summary: 'This API’s OpenAPI 3.1 description',
    scope: 'read',
    params: {},
    success: 200,
    errors: [],
  },
  {
    id: 'share.download',
    method: 'GET',
    path: '/s/{token}',
    group: 'public',
    summary: 'Public download of a shared file',
    scope: 'public',
    params: {},
    success: 200,
    errors: [404, 416],
    raw: 'bytes',
  },
  {
    id: 'verify',
    method: 'GET',
    path: '/verify',
    group: 'public',
    summary: 'Confirm an e-mail address from the link in a verification mail',
    scope: 'public',
    params: { token: p('token', 'The token from the e-mail') },
    success: 200,
    errors: [400, 404],
    raw: 'html',
  },
] as const satisfies readonly EndpointBase[];

export type EndpointId = (typeof ENDPOINT_LIST)[number]['id'];

export const ENDPOINTS: readonly Endpoint[] = ENDPOINT_LIST as unknown as readonly Endpoint[];

export const ENDPOINT_BY_ID: Readonly<Record<EndpointId, Endpoint>> = Object.fromEntries(ENDPOINTS.map((e) => [e.id, e])) as Record<
  EndpointId,
  Endpoint
>;

/** Default and maximum page size of list endpoints. */
export const PAGE_LIMIT_MAX = 100_000;
