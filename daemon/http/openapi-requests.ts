/**
 * The request side of the OpenAPI document (daemon/http/openapi.ts): each row's parameters
 * and body, from the endpoint table. A parameter goes in the query string (as DaneeCloud's
 * clients send it), except where the daemon takes it from the body only: a `secret` (a
 * password: never in a URL, which logs and history keep) and everything sent to the auth API.
 */
import type { Endpoint, ParamKind, ParamSpec } from '../../shared/endpoints.js';
import { FILE_NAME_RULE, FOLDER_PATH_RULE, NAME_RULE, PASSWORD_RULE } from '../../shared/validation.js';

export const PARAM_SCHEMAS: Record<ParamKind, object> = {
  accountName: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$', description: NAME_RULE },
  label: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$', description: NAME_RULE },
  email: { type: 'string', format: 'email' },
  password: { type: 'string', minLength: 8, description: PASSWORD_RULE },
  fileName: { type: 'string', minLength: 1, description: FILE_NAME_RULE },
  folderPath: { type: 'string', minLength: 1, maxLength: 4096, description: FOLDER_PATH_RULE },
  badge: { type: 'string', description: 'An http(s) URL, or a path of this daemon’s badges (`/badges/user.svg`)' },
  badgeFile: { type: 'string', pattern: '^[0-9a-f]{32}\\.(png|jpg|webp)$' },
  maxStorage: { type: 'string', pattern: '^(-1|[0-9]+)$', description: 'MB (MiB); -1 for unlimited' },
  scope: { type: 'string', enum: ['admin', 'read', 'write'] },
  boolean: { type: 'string', enum: ['true', 'false'] },
  count: { type: 'string', pattern: '^[0-9]+$' },
  token: { type: 'string' },
  secret: { type: 'string', minLength: 1, maxLength: 1024, description: 'Sent in the request body only' },
  sessionId: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,128}$' },
  searchQuery: { type: 'string', minLength: 1, maxLength: 200, description: 'Matched literally, ignoring case and accents' },
  thumbnailSize: { type: 'string', pattern: '^[0-9]{2,3}$', description: 'Pixels, 64–512' },
  fileNameList: { type: 'string', description: 'File names separated by `/` (which no name may contain), at most 1000' },
  trashId: { type: 'string', pattern: '^[0-9a-f]{32}$' },
  versionId: { type: 'string', pattern: '^[0-9a-f]{32}$' },
  nameSuffix: { type: 'string', minLength: 1, maxLength: 40, description: `A word added to a name in brackets; itself ${FILE_NAME_RULE}` },
  expiry: { type: 'string', description: 'An ISO 8601 date-time with a zone, a date (its start, UTC), or "never"' },
  dialect: {
    type: 'string',
    enum: ['nimbus', 'daneecloud'],
    default: 'nimbus',
    description: 'The response shapes the key gets; see the API description',
  },
};

/** Whether the daemon takes this parameter of `endpoint` from the body only (see above). */
export function inBodyOnly(endpoint: Endpoint, spec: ParamSpec): boolean {
  return spec.in !== 'path' && (spec.kind === 'secret' || (endpoint.group === 'auth' && endpoint.method === 'POST'));
}

/** The row's parameters in the path and query string (and, on a paged list, `limit` and `offset`). */
export function parametersOf(endpoint: Endpoint): object[] {
  const parameters: object[] = Object.entries(endpoint.params)
    .filter(([, spec]) => !inBodyOnly(endpoint, spec))
    .map(([name, spec]) => ({
      name,
      in: spec.in ?? 'query',
      required: spec.required,
      description: spec.description,
      schema: PARAM_SCHEMAS[spec.kind],
    }));
  if (endpoint.paged) {
    parameters.push(
      { name: 'limit', in: 'query', required: false, description: 'Page size', schema: PARAM_SCHEMAS.count },
      { name: 'offset', in: 'query', required: false, description: 'Items to skip', schema: PARAM_SCHEMAS.count },
    );
  }
  return parameters;
}

/** An upload's body: the raw bytes, or a form with one file part (any field name; `file` as curl -F sends it). */
const CONTENT_BODY = {
  required: true,
  description: 'The file’s content: the raw bytes, or the one file part of a multipart/form-data form',
  content: {
    'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
    'multipart/form-data': {
      schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } }, required: ['file'] },
    },
  },
};

/**
 * The row's request body, if it takes one: an upload's content; else, on a POST, its
 * parameters as a JSON or urlencoded object. The ones taken from the body only are listed
 * (required when the row requires them); any query parameter may be sent there instead.
 */
export function requestBodyOf(endpoint: Endpoint): object | undefined {
  if (endpoint.bodyIsContent) return CONTENT_BODY;
  if (endpoint.method !== 'POST') return undefined;
  const inBody = Object.entries(endpoint.params).filter(([, spec]) => inBodyOnly(endpoint, spec));
  if (inBody.length === 0) return undefined;
  const required = inBody.filter(([, spec]) => spec.required).map(([name]) => name);
  const schema = {
    type: 'object',
    properties: Object.fromEntries(inBody.map(([name, spec]) => [name, { ...PARAM_SCHEMAS[spec.kind], description: spec.description }])),
    ...(required.length > 0 ? { required } : {}),
  };
  return {
    required: required.length > 0,
    description: 'Parameters taken from the body only (a password never goes in a URL); the query parameters may be sent here too',
    content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } },
  };
}
