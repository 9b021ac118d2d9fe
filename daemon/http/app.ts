/**
 * The HTTP stack, outermost first: error handler → checkHostAndCors (security headers, Host
 * check, CORS) → routing → dispatch (authorization: the caller from a key or the session
 * cookie and the row's audience; parameters; handler; the row's events). Routes come from the shared endpoint table; a static path is one Map get, not a
 * regex walk per route. Throughout, `ctx` is Koa's context of the request and `nimbus` the
 * daemon's (NimbusContext).
 */
import Koa, { type Context } from 'koa';
import { ENDPOINTS, refusesReadOnly, type Endpoint, type EndpointId } from '../../shared/endpoints.js';
import type { ChangeEvent, ChangeEventType } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import type { ErrorCode } from '../../shared/errors.js';
import { ApiError, notFound } from '../errors.js';
import { dummyPasswordHash, registrationClosed } from '../services/auth.js';
import { identify, sessionCaller, type Caller } from '../services/keys.js';
import { mayStillHave } from '../services/standing.js';
import { SESSION_COOKIE } from '../services/sessions.js';
import { errorHandler } from './error-handler.js';
import { requestLog } from './request-log.js';
import type { FileIndex } from '../storage/file-index.js';
import type { EventHub } from './events.js';
import { HANDLERS, type HandlerInput } from './handlers.js';
import { applyDialect } from './dialect.js';
import { readParams } from './params.js';
import { assertAdmitted, refusePasswordInQuery } from './admission.js';
import { allowedHosts, assertNoForeignOrigin, assertSameOrigin, checkHostAndCors, ownOrigins } from './security.js';
import { clearSessionCookie } from './cookies.js';
import { LoginThrottle } from '../services/login-throttle.js';
import { serveUi } from './static.js';
import { FailureThrottle } from './throttle.js';
import { ConnectionTracker } from './connections.js';
import { NimbusResponse } from './response.js';

/** What routing hands a request to: the pipeline for a matched endpoint, or the answer when none matched. */
export interface Dispatch {
  /**
   * Key check, throttle, parameters, index wait, handler, dialect and events for a request
   * routed to `endpoint`; `pathParams` are the values of its path's `{name}` segments.
   */
  serve(ctx: Context, endpoint: Endpoint, pathParams?: Readonly<Record<string, string>>): Promise<void>;
  /** A request no route matched: 405 for a known path, the web UI for other GETs, else 404. */
  unrouted(ctx: Context): Promise<void>;
}

/** Builds the middleware that finds each request's endpoint and hands it to the dispatch. */
export type Routing = (dispatch: Dispatch) => Koa.Middleware;

/** A path of the table with `{name}` segments, as a matcher. */
interface TemplatedRoute {
  endpoint: Endpoint;
  pattern: RegExp;
  names: string[];
}

/** `/s/{token}` → /^\/s\/([^/]+)$/ with names ['token']: a `{name}` is one whole path segment. */
function templatedRoute(endpoint: Endpoint): TemplatedRoute {
  const names: string[] = [];
  const source = endpoint.path
    .split(/(\{\w+\})/)
    .map((part, i) => {
      if (i % 2 === 0) return part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      names.push(part.slice(1, -1));
      return '([^/]+)';
    })
    .join('');
  return { endpoint, pattern: new RegExp(`^${source}$`), names };
}

/** The `{name}` values of `path` for a templated route, percent-decoded; null when it does not match. */
function matchTemplate(route: TemplatedRoute, path: string): Record<string, string> | null {
  const match = route.pattern.exec(path);
  if (!match) return null;
  const values: Record<string, string> = {};
  try {
    route.names.forEach((name, i) => (values[name] = decodeURIComponent(match[i + 1])));
  } catch {
    return null; // a malformed escape names nothing
  }
  return values;
}

const isTemplated = (e: Endpoint) => e.path.includes('{');

/**
 * The daemon's routing, from the endpoint table: one Map get on "METHOD /path" for the
 * static paths, then the few templated ones (`/s/{token}`) tried in turn. (@koa/router built
 * from the same table was measured against it: `npm run bench`, row "Routing"; README, decisions.)
 */
export const tableRouting: Routing = (dispatch) => {
  const routes = new Map<string, Endpoint>(ENDPOINTS.filter((e) => !isTemplated(e)).map((e) => [`${e.method} ${e.path}`, e]));
  const templated = ENDPOINTS.filter(isTemplated).map(templatedRoute);
  return (ctx) => {
    const path = trimSlashes(ctx.path);
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    const endpoint = routes.get(`${method} ${path}`);
    if (endpoint) return dispatch.serve(ctx, endpoint);
    for (const route of templated) {
      if (route.endpoint.method !== method) continue;
      const pathParams = matchTemplate(route, path);
      if (pathParams) return dispatch.serve(ctx, route.endpoint, pathParams);
    }
    return dispatch.unrouted(ctx);
  };
};

export interface AppOptions {
  /** How requests find their endpoint; `tableRouting` unless a benchmark passes another. */
  routing?: Routing;
}

export function createApp(nimbus: NimbusContext, events: EventHub, port: () => number, options: AppOptions = {}): Koa {
  const app = new Koa();
  const throttle = new FailureThrottle(nimbus.log);
  const logins = new LoginThrottle(nimbus.log);
  const connections = new ConnectionTracker(nimbus.revocations, events, (caller, named) => mayStillHave(nimbus, caller, named));
  // Made now, so that the first unknown user's sign-in takes no longer than the others.
  void dummyPasswordHash();
  const knownPaths = new Set(ENDPOINTS.filter((e) => !isTemplated(e)).map((e) => e.path));
  // Paths under a templated route's fixed start (`/s/`) are the API's, never the web UI's.
  const templatedPrefixes = ENDPOINTS.filter(isTemplated).map((e) => e.path.slice(0, e.path.indexOf('{')));
  // The host of NIMBUS_PUBLIC_URL is the daemon's own too: share and verify links point there.
  const ownHosts = nimbus.config.publicUrl
    ? [...nimbus.config.allowedHosts, new URL(nimbus.config.publicUrl).host]
    : nimbus.config.allowedHosts;
  let hosts = allowedHosts(port(), ownHosts);
  let firstScan: Promise<void> | null = null;
  // Koa reports stream errors after the response started here (by default to stderr, past
  // the daemon's log). A client that leaves mid-download or closes an event stream is normal.
  app.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'ERR_STREAM_PREMATURE_CLOSE' || err.code === 'ECONNRESET' || err.code === 'EPIPE' || err.code === 'ECONNABORTED')
      return;
    nimbus.log(`Nimbus: response error: ${err.stack ?? err.message}`);
  });

  // A listening server keeps its port: ask server.address() only until it is known (per request it cost ~3% of a GET).
  let hostsPort = 0;
  const currentHosts = () => {
    if (hostsPort !== 0) return hosts;
    const current = port();
    if (!hosts.has(`127.0.0.1:${current}`)) hosts = allowedHosts(current, ownHosts);
    hostsPort = current;
    return hosts;
  };
  // The daemon's own origins (the cross-site rule), made again whenever the hosts are.
  let origins: { hosts: Set<string>; origins: Set<string> } | null = null;
  const currentOrigins = () => {
    const now = currentHosts();
    if (origins?.hosts !== now) origins = { hosts: now, origins: ownOrigins(now, nimbus.config.publicUrl) };
    return origins.origins;
  };
  const guards: Guards = { nimbus, throttle, connections, origins: currentOrigins };
  /** One request of the endpoint `Id`: its checked parameters reach its handler as `ParamsOf<Id>`. */
  const serveEndpoint = async <Id extends EndpointId>(
    ctx: Context,
    endpoint: Endpoint & { id: Id },
    pathParams: Readonly<Record<string, string>> | undefined,
  ): Promise<void> => {
    // A daemon that lost its database answers nothing from a cache that may be stale, and
    // takes no change it cannot keep; health still answers (503) so a balancer moves away.
    if (!nimbus.store.available && endpoint.id !== 'health.get')
      throw new ApiError('database_unavailable', 'The database cannot be reached; try again in a moment', { 'Retry-After': '5' });
    // Another daemon may have made this key or session a moment ago: catch up before refusing it.
    if (nimbus.store.database && credentialUnknown(nimbus, ctx)) await nimbus.store.catchUp();
    const caller = authorize(guards, ctx, endpoint);
    // Awaited only when it is a promise (a body to read): an await of a plain value still costs a tick.
    const read = readParams(ctx, endpoint, pathParams);
    const { params, page } = read instanceof Promise ? await read : read;
    admitNamed(caller, endpoint, params);
    if (caller !== null) connections.name(ctx.req.socket, ctx.res, namedUser(params));
    if (readsIndex(endpoint) && nimbus.index.state === 'scanning') {
      // One user's answers need only that user's directory read; lists of all users need the whole scan.
      const username = 'username' in params && typeof params.username === 'string' && endpoint.id !== 'user.all' ? params.username : null;
      if (username === null) await (firstScan ??= indexSettled(nimbus.index, null));
      else if (!nimbus.index.isComplete(username)) await indexSettled(nimbus.index, username);
    }
    const input: HandlerInput<Id> = { ctx, params, page, nimbus, caller, events, throttle, logins };
    let result;
    try {
      const answered = HANDLERS[endpoint.id](input);
      result = answered instanceof Promise ? await answered : answered;
    } catch (err) {
      // A user, file or share another daemon made a moment ago may not be here yet: catch up
      // and answer again once. A miss changes nothing, and is decided before a body is read.
      if (!(err instanceof ApiError && RETRIED_MISSES.has(err.code) && (await nimbus.store.catchUp()))) throw err;
      result = await HANDLERS[endpoint.id](input);
    }
    // Raw rows (bytes, events, a page) wrote their response themselves.
    if (!endpoint.raw && result !== undefined) {
      // The caller's dialect shapes the body (daemon/http/dialect.ts); nimbus keeps it as it is.
      // A handler's string is JSON it serialised itself (a long listing, the OpenAPI document).
      sendResult(ctx, endpoint.success, applyDialect(nimbus, caller?.dialect ?? 'nimbus', endpoint.id, result));
    }
    // A HEAD changes nothing, so it announces nothing.
    if (ctx.method !== 'HEAD') for (const type of endpoint.events) nimbus.changes.publish(changeEvent(type, params, result));
  };
  const dispatch: Dispatch = {
    serve: (ctx, endpoint, pathParams) => serveEndpoint(ctx, endpoint, pathParams),
    async unrouted(ctx) {
      const path = trimSlashes(ctx.path);
      const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
      if (knownPaths.has(path))
        throw new ApiError(
          'method_not_allowed',
          `Use ${ENDPOINTS.filter((e) => e.path === path)
            .map((e) => e.method)
            .join(' or ')}`,
        );
      const apiPath = path.startsWith('/api') || templatedPrefixes.some((prefix) => path.startsWith(prefix));
      if (method === 'GET' && !apiPath && (await serveUi(ctx, nimbus.config.rendererDir))) return;
      throw new ApiError('route_not_found', 'No such route');
    },
  };
  app.use(requestLog(nimbus.logger)); // outermost: sees the status the error handler sets
  app.use(errorHandler(nimbus.log));
  app.use(checkHostAndCors(currentHosts, nimbus.config.corsOrigins));
  app.use((options.routing ?? tableRouting)(dispatch));
  return app;
}

/**
 * A handler's answer as JSON. The daemon's own responses write it at once, status line and
 * headers in one list (daemon/http/response.ts), and Koa leaves the response alone; the
 * bytes are what Koa would have sent (its respond is `JSON.stringify(body)` as well).
 */
function sendResult(ctx: Context, status: number, body: unknown): void {
  const json =
    typeof body === 'string' ? body : body !== null && typeof body === 'object' && !Buffer.isBuffer(body) ? JSON.stringify(body) : null;
  if (json !== null && ctx.res instanceof NimbusResponse) {
    ctx.respond = false;
    ctx.res.sendJson(status, json);
    return;
  }
  ctx.status = status;
  if (typeof body === 'string') ctx.type = 'application/json';
  ctx.body = body;
}

/** Endpoints whose answer depends on the file index (files, folders, usage, share links). */
function readsIndex(endpoint: Endpoint): boolean {
  return (
    endpoint.group === 'user' ||
    endpoint.group === 'folders' ||
    endpoint.group === 'files' ||
    endpoint.group === 'trash' ||
    endpoint.id === 'share.download'
  );
}

const FIRST_SCAN_WAIT_MS = 30_000;

/**
 * Resolves when the first scan has read this user's directory (or, for null, every user's).
 * Until then their part of the index is empty: a listing would be wrong, usage would read 0
 * (letting an upload pass the quota) and share links would 404, so such requests wait.
 */
function indexSettled(index: FileIndex, username: string | null): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      index.off('change', onChange);
      index.off('userScanned', onChange);
    };
    const onChange = () => {
      if (username === null ? index.state === 'scanning' : !index.isComplete(username)) return;
      done();
      resolve();
    };
    const timer = setTimeout(() => {
      done();
      reject(new ApiError('storage_unavailable', 'The file index is still being built; try again shortly'));
    }, FIRST_SCAN_WAIT_MS);
    timer.unref();
    index.on('change', onChange);
    index.on('userScanned', onChange);
    onChange();
  });
}

function trimSlashes(path: string): string {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 47) end--;
  return end === path.length ? path : path.slice(0, end);
}

function presentedKey(ctx: Context): string {
  const { headers } = ctx.req;
  const header = headers['api-key'];
  if (typeof header === 'string' && header) return header;
  const auth = headers.authorization ?? '';
  // The scheme is case-insensitive (RFC 9110 §11.1): "bearer <key>" is the same as "Bearer <key>".
  const match = /^bearer\s+(\S+)\s*$/i.exec(auth);
  return match ? match[1] : '';
}

/** What the authorization step works with. */
interface Guards {
  nimbus: NimbusContext;
  /** Wrong keys per client (429 after too many). */
  throttle: FailureThrottle;
  /** Binds each authenticated connection to its credential, so revoking it closes the connection. */
  connections: ConnectionTracker;
  /** The daemon's own origins, for the cross-site rule. */
  origins: () => Set<string>;
}

/**
 * Authorization, the one place that decides who may call a row (before its parameters are
 * read; `admitNamed` completes it for `self` rows once they are): finds the caller from a
 * key (which wins) or the session cookie, applies the cross-site rule to cookie-authenticated
 * POSTs, refuses non-admins on admin rows and read-only callers on rows that change things,
 * and binds the connection to the caller's credential. Public rows get no caller; a key sent
 * to a public POST is still checked (a wrong key 401, a read-only one 403), and a public POST
 * (of /api/auth) with another site's Origin is 403.
 */
/** Misses that, with several daemons, may only mean this daemon has not heard of a change yet. */
const RETRIED_MISSES = new Set<ErrorCode>([
  'user_not_found',
  'folder_not_found',
  'file_not_found',
  'share_not_found',
  'trash_item_not_found',
  'key_not_found',
  'session_not_found',
  'role_not_found',
]);

/** A presented key or session cookie this daemon does not know (it may be another daemon's new one). */
function credentialUnknown(nimbus: NimbusContext, ctx: Context): boolean {
  const key = presentedKey(ctx);
  if (key) return identify(nimbus, key) === null;
  const token = sessionToken(ctx);
  return token !== null && !nimbus.sessions.has(token);
}

function authorize(guards: Guards, ctx: Context, endpoint: Endpoint): Caller | null {
  const { nimbus } = guards;
  const key = presentedKey(ctx);
  if (endpoint.audience === 'public') {
    if (endpoint.method !== 'POST') return null;
    if (key && !keyCaller(guards, ctx, key).canWrite) throw new ApiError('insufficient_scope', 'This key may only read');
    assertNoForeignOrigin(ctx, guards.origins());
    refusePasswordInQuery(ctx, endpoint);
    if (endpoint.id === 'auth.register' && nimbus.config.registration !== 'open') throw registrationClosed();
    return null;
  }
  let caller: Caller;
  if (key) caller = keyCaller(guards, ctx, key);
  else {
    const token = sessionToken(ctx);
    // No credential is no guess: it is answered 401 even while this client is blocked for
    // wrong keys, so a client that lost its key learns that, not "try again later".
    if (token === null) throw new ApiError('unauthorized', 'Missing API key (send the API-Key header) or session (sign in)');
    // A cookie rides along with any request the browser makes: a change must come from Nimbus's own page.
    if (endpoint.method === 'POST') assertSameOrigin(ctx, guards.origins());
    const session = nimbus.sessions.authenticate(token);
    const found = session ? sessionCaller(nimbus, session) : null;
    if (!found)
      throw new ApiError('unauthorized', 'The session has ended; sign in again', {
        'Set-Cookie': clearSessionCookie(nimbus.config.publicUrl),
      });
    caller = found;
  }
  assertAdmitted(endpoint, caller);
  if (refusesReadOnly(endpoint) && !caller.canWrite) throw new ApiError('insufficient_scope', 'This key may only read');
  refusePasswordInQuery(ctx, endpoint);
  // So that revoking the key or ending the session closes this connection and whatever it streams.
  guards.connections.bind(ctx.req.socket, ctx.res, caller);
  return caller;
}

/** The caller a presented key is; a wrong key is 401 and counts towards the client's 429. */
function keyCaller(guards: Guards, ctx: Context, key: string): Caller {
  const caller = identify(guards.nimbus, key);
  if (caller) return caller;
  const client = ctx.socket.remoteAddress ?? 'unknown';
  const wait = guards.throttle.retryAfter(client);
  if (wait > 0) throw new ApiError('too_many_requests', 'Too many wrong API keys; try again later', { 'Retry-After': String(wait) });
  guards.throttle.fail(client, 'API keys');
  throw new ApiError('unauthorized', 'Wrong API key');
}

/** The user a request's parameters name (`username`), or null. */
const namedUser = (params: object): string | null => {
  const { username } = params as { username?: unknown };
  return typeof username === 'string' ? username : null;
};

/**
 * A `self` row names a user: an admin may name anyone, anyone else only themselves. Another
 * user's name answers exactly as a user that does not exist (404 `user_not_found`), so
 * nobody learns who has an account.
 */
function admitNamed(caller: Caller | null, endpoint: Endpoint, params: object): void {
  if (endpoint.audience !== 'self' || caller === null || caller.admin) return;
  if ((params as { username?: unknown }).username !== caller.username) throw notFound('user_not_found', 'User not found');
}

/**
 * The value of the `nimbus_session` cookie, or null when there is none. Two of them are
 * refused: cookies are not kept apart by port, so a page on another localhost port can plant
 * its own session (say with `Path=/api`, which browsers send first) beside the user's, and
 * the daemon cannot tell which one the person at the keyboard signed in with.
 */
function sessionToken(ctx: Context): string | null {
  const header = ctx.get('Cookie');
  if (!header) return null;
  let found: string | null = null;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = pair.slice(eq + 1).trim();
    if (!value) continue;
    if (found !== null && value !== found)
      throw new ApiError(
        'unauthorized',
        'Two Nimbus sessions were sent: another page on this machine set one; clear this site’s cookies and sign in again',
      );
    found = value;
  }
  return found;
}

/**
 * The event of `type` that a successful call announces (its row's `events`), naming what
 * changed from the call's parameters and result: a user event names the user (by the name
 * the result gives, so a rename names the new one), a role event nothing, a share event the file.
 */
function changeEvent(type: ChangeEventType, params: object, result: unknown): ChangeEvent {
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  const given = params as { username?: unknown; folder?: unknown; file?: unknown };
  switch (type) {
    case 'user.changed':
    case 'user.removed': {
      const answered = result as { user?: { username?: unknown }; username?: unknown } | undefined;
      const username = text(answered?.user?.username) ?? text(answered?.username) ?? text(given.username);
      return { type, username, folder: null, file: null };
    }
    case 'role.changed':
    case 'index.state':
      return { type, username: null, folder: null, file: null };
    default:
      return { type, username: text(given.username), folder: text(given.folder), file: text(given.file) };
  }
}
