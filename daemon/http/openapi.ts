/**
 * The OpenAPI 3.1 document, generated from the shared endpoint table so it cannot drift: each
 * row's parameters and body (daemon/http/openapi-requests.ts), and its answers from the schemas
 * the row names (`answer`, `daneecloud`, `otherAnswers`: shared/api-answers.ts), written once
 * each into `components.schemas`. Nothing here is written by hand per endpoint.
 */
import { isRawAnswer, type Answer } from '../../shared/api-answers.js';
import type { AnySchema } from '../../shared/api-schema.js';
import { toJsonSchema, type JsonSchema } from '../../shared/api-schema-json.js';
import { CHANGE_EVENT_TYPES, ChangeEventSchema, ErrorBodySchema } from '../../shared/api-schema-daemon.js';
import { ENDPOINTS, type Audience, type Endpoint } from '../../shared/endpoints.js';
import type { OpenApiDocument } from '../../shared/types.js';
import { parametersOf, requestBodyOf } from './openapi-requests.js';

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
  423: 'Locked (a WebDAV lock holds it)',
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

/** The `content` of a response: JSON by its schema, or each media type of an answer that is not JSON. */
function contentOf(answer: Answer, components: Record<string, JsonSchema>): Record<string, { schema: JsonSchema }> {
  if (!isRawAnswer(answer)) return { 'application/json': { schema: toJsonSchema(answer, components) } };
  const content: Record<string, { schema: JsonSchema }> = {};
  for (const [media, body] of Object.entries(answer.raw)) {
    const schema =
      body === 'binary' ? { type: 'string', format: 'binary' } : body === 'text' ? { type: 'string' } : toJsonSchema(body, components);
    content[media] = { schema };
  }
  return content;
}

function successResponse(endpoint: Endpoint, status: number, components: Record<string, JsonSchema>): object {
  const { answer } = endpoint;
  const content = contentOf(answer, components);
  return {
    description: isRawAnswer(answer) ? answer.description : (STATUS_TEXT[status] ?? 'OK'),
    ...(Object.keys(content).length > 0 ? { content } : {}),
    ...(endpoint.paged ? { headers: { 'X-Total-Count': { description: 'Items in the whole list', schema: { type: 'integer' } } } } : {}),
    // What a key of the daneecloud dialect gets instead: OpenAPI cannot tie a body to a credential,
    // so the nimbus answer is the response's schema and DaneeCloud's is shown beside it.
    ...(endpoint.daneecloud ? { 'x-dialects': { daneecloud: { schema: toJsonSchema(endpoint.daneecloud, components) } } } : {}),
  };
}

function errorResponse(status: number, body: AnySchema, components: Record<string, JsonSchema>): object {
  return {
    description: STATUS_TEXT[status] ?? 'Error',
    content: { 'application/json': { schema: toJsonSchema(body, components) } },
  };
}

function operation(endpoint: Endpoint, components: Record<string, JsonSchema>): object {
  const statuses = new Set<number>([endpoint.success, ...endpoint.errors]);
  if (endpoint.audience !== 'public') [401, 403, 429].forEach((s) => statuses.add(s));
  if (endpoint.raw === 'bytes') statuses.add(206);
  const responses: Record<string, object> = {};
  for (const status of [...statuses].sort()) {
    responses[String(status)] =
      status < 400
        ? successResponse(endpoint, status, components)
        : errorResponse(status, endpoint.otherAnswers?.[status] ?? ErrorBodySchema, components);
  }
  const requestBody = requestBodyOf(endpoint);
  return {
    operationId: endpoint.id,
    summary: endpoint.summary,
    tags: [endpoint.group],
    security: SECURITY[endpoint.audience],
    'x-audience': endpoint.audience,
    parameters: parametersOf(endpoint),
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

export function openApiDocument(version: string): OpenApiDocument {
  const components: Record<string, JsonSchema> = {};
  // The error body first, then the event a stream carries (it is in no JSON answer, only in the stream).
  toJsonSchema(ErrorBodySchema, components);
  toJsonSchema(ChangeEventSchema, components);
  const paths: Record<string, Record<string, object>> = {};
  for (const endpoint of ENDPOINTS) {
    paths[endpoint.path] ??= {};
    paths[endpoint.path][endpoint.method.toLowerCase()] = operation(endpoint, components);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Nimbus — Cloud Storage Management API',
      version,
      description:
        'Every /api route needs the header `API-Key: <key>` (or `Authorization: Bearer <key>`), or the session cookie `nimbus_session` that POST /api/auth/login sets (a POST with the cookie must come from the daemon’s own origin); the public routes (`x-audience: public`: sign-in, registration, password reset, health, this document) need neither. Who may call each operation is its `x-audience`: `public`, `signedIn` (any caller; answers for the caller), `self` (an admin may name any user, anyone else only themselves), `admin`, `adminKey` (the machine’s admin key itself only, not a machine key or an admin’s session). Parameters go in the query string; a POST may also send them as a JSON or urlencoded body. Passwords, and everything sent to /api/auth/*, go in the body only. ' +
        `GET /api/events streams Server-Sent Events; each message is \`event: <type>\` with \`data:\` a ChangeEvent (components.schemas); types: ${CHANGE_EVENT_TYPES.join(', ')}. ` +
        'Each key has a dialect (`dialect` on POST /api/keys/create; the admin key’s is the setting NIMBUS_ADMIN_DIALECT) that changes some response shapes: `nimbus` (default) answers the schemas of this document; `daneecloud` answers DaneeCloud’s bodies for its clients and bot, given for each operation it changes as `x-dialects.daneecloud` of the success response — users as `{username, email, usedStorage (MB), isVerified, files, folders, sharedFiles (names), role, createdAt}`, GET /api/files, /api/folders and /api/folders/files as `{files: [names]}` and `{folders: [names]}`, GET /api/dash as `{cpuUsage, ramUsage, uptime, version, developer, license}` display strings, deletes as `{msg}`. Errors are `{error, code}` (the Error schema) in both.',
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
      schemas: components,
    },
    paths,
  };
}
