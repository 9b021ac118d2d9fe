/** The OpenAPI 3.1 document, generated from the shared endpoint table so it cannot drift. */
import { ENDPOINTS, type Audience, type Endpoint, type ParamKind } from '../../shared/endpoints.js';
import { ERROR_STATUS } from '../../shared/errors.js';
import { FILE_NAME_RULE, FOLDER_PATH_RULE, NAME_RULE, PASSWORD_RULE } from '../../shared/validation.js';
import { CHANGE_EVENT_TYPES, type OpenApiDocument } from '../../shared/types.js';

const PARAM_SCHEMAS: Record<ParamKind, object> = {
  accountName: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$', description: NAME_RULE },
  label: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$', description: NAME_RULE },
  email: { type: 'string', format: 'email' },
  password: { type: 'string', minLength: 8, description: PASSWORD_RULE },
  fileName: { type: 'string', minLength: 1, description: FILE_NAME_RULE },
  folderPath: { type: 'string', minLength: 1, maxLength: 4096, description: FOLDER_PATH_RULE },
  badge: { type: 'string', format: 'uri', description: 'http(s) URL' },
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
  expiry: { type: 'string', description: 'An ISO 8601 date-time with a zone, a date (its start, UTC), or "never"' },
  dialect: {
    type: 'string',
    enum: ['nimbus', 'daneecloud'],
    default: 'nimbus',
    description: 'The response shapes the key gets; see the API description',
  },
};

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  206: 'Partial content',
  303: 'See other: the link again, with the cookie that opens it',
  400: 'Bad or missing parameter',
  401: 'Missing or wrong API key or session, or wrong password',
  403: 'Not allowed to this caller (read-only key, admins only, the admin key only, a key or no current password for one’s own e-mail or password), cross-site request, or foreign Host header',
  404: 'Not found',
  409: 'Conflict',
  412: 'Precondition failed (If-Match or If-Unmodified-Since: the file changed)',
  413: 'Body over a limit',
  415: 'Cannot be rendered (not an image this server can read)',
  416: 'Range not satisfiable',
  429: 'Too many failed attempts',
  502: 'Mail server refused the message',
  503: 'Storage unavailable',
  507: 'Quota exceeded or disk full',
};

/** How each audience may authenticate: the admin key's own rows take no session cookie. */
const SECURITY: Record<Audience, object[]> = {
  public: [],
  signedIn: [{ apiKey: [] }, { bearer: [] }, { session: [] }],
  self: [{ apiKey: [] }, { bearer: [] }, { session: [] }],
  admin: [{ apiKey: [] }, { bearer: [] }, { session: [] }],
  adminKey: [{ apiKey: [] }, { bearer: [] }],
};

function operation(endpoint: Endpoint): object {
  const parameters = Object.entries(endpoint.params).map(([name, spec]) => ({
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
  const statuses = new Set<number>([endpoint.success, ...endpoint.errors]);
  if (endpoint.audience !== 'public') [401, 403, 429].forEach((s) => statuses.add(s));
  if (endpoint.raw === 'bytes') statuses.add(206);
  const responses: Record<string, object> = {};
  for (const status of [...statuses].sort()) {
    responses[String(status)] =
      status >= 400
        ? {
            description: STATUS_TEXT[status] ?? 'Error',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          }
        : {
            description:
              endpoint.raw === 'events' ? `Event stream; event types: ${CHANGE_EVENT_TYPES.join(', ')}` : (STATUS_TEXT[status] ?? 'OK'),
          };
  }
  return {
    operationId: endpoint.id,
    summary: endpoint.summary,
    tags: [endpoint.group],
    security: SECURITY[endpoint.audience],
    'x-audience': endpoint.audience,
    parameters,
    ...(endpoint.bodyIsContent ? { requestBody: CONTENT_BODY } : {}),
    responses,
  };
}

/** An upload's body: the raw bytes, or a form with one file part (any field name; `file` as curl -F sends it). */
const CONTENT_BODY = {
  required: true,
  content: {
    'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
    'multipart/form-data': {
      schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } }, required: ['file'] },
    },
  },
};

export function openApiDocument(version: string): OpenApiDocument {
  const paths: Record<string, Record<string, object>> = {};
  for (const endpoint of ENDPOINTS) {
    paths[endpoint.path] ??= {};
    paths[endpoint.path][endpoint.method.toLowerCase()] = operation(endpoint);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Nimbus — Cloud Storage Management API',
      version,
      description:
        'Every /api route needs the header `API-Key: <key>` (or `Authorization: Bearer <key>`), or the session cookie `nimbus_session` that POST /api/auth/login sets (a POST with the cookie must come from the daemon’s own origin); the sign-in, registration and password-reset routes need neither. Who may call each operation is its `x-audience`: `public`, `signedIn` (any caller; answers for the caller), `self` (an admin may name any user, anyone else only themselves), `admin`, `adminKey` (the machine’s admin key itself only, not a machine key or an admin’s session). Parameters go in the query string; a POST may also send them as a JSON or urlencoded body. Passwords sent to /api/auth/* go in the body only. ' +
        `GET /api/events streams Server-Sent Events; each message is \`event: <type>\` with \`data: {type, username, folder, file}\`; types: ${CHANGE_EVENT_TYPES.join(', ')}. ` +
        'Each key has a dialect (`dialect` on POST /api/keys/create; the admin key’s is the setting NIMBUS_ADMIN_DIALECT) that changes the response shapes: `nimbus` (default) answers the records documented by Nimbus; `daneecloud` answers DaneeCloud’s bodies for its clients and bot — users as `{username, email, usedStorage (MB), isVerified, files, folders, sharedFiles (names), role, createdAt}`, GET /api/files, /api/folders and /api/folders/files as `{files: [names]}` and `{folders: [names]}`, GET /api/dash as `{cpuUsage, ramUsage, uptime, version, developer, license}` display strings. Errors are `{error, code}` in both.',
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'API-Key' },
        bearer: { type: 'http', scheme: 'bearer' },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'nimbus_session',
          description: 'Set by POST /api/auth/login (HttpOnly, SameSite=Strict); a POST with it must come from the daemon’s own origin',
        },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['error', 'code'],
          properties: { error: { type: 'string' }, code: { type: 'string', enum: Object.keys(ERROR_STATUS) } },
        },
      },
    },
    paths,
  };
}
