/**
 * The dispatch: what a request goes through once routing has found its endpoint
 * (authorization, parameters, the wait for the first scan, the handler, one retry after
 * catching up with other daemons, the caller's dialect, the row's events), and the answer
 * when no endpoint matched.
 */
import type { Context } from 'koa';
import { ENDPOINTS, type Endpoint, type EndpointId } from '../../shared/endpoints.js';
import type { ErrorCode } from '../../shared/errors.js';
import type { ChangeEvent, ChangeEventType } from '../../shared/types.js';
import { ApiError, databaseUnavailable, type ErrorPage } from '../errors.js';
import { JsonBytes } from '../util/json-bytes.js';
import type { FileIndex } from '../storage/file-index.js';
import { admitNamed, authorize, credentialUnknown, namedUser, type Guards } from './authorize.js';
import { applyDialect } from './dialect.js';
import type { EventHub } from './events.js';
import { HANDLERS, type HandlerInput } from './handlers.js';
import type { LoginThrottle } from '../services/login-throttle.js';
import { readParams } from './params.js';
import { NimbusResponse } from './response.js';
import { isTemplated, trimSlashes, type Dispatch } from './routing.js';
import { serveUi } from './static.js';

/** The dispatch of one daemon's app: `guards` decide who may call a row, `events` carry what calls change. */
export function createDispatch(guards: Guards, events: EventHub, logins: LoginThrottle): Dispatch {
  const { nimbus, throttle, connections } = guards;
  const knownPaths = new Set(ENDPOINTS.filter((e) => !isTemplated(e)).map((e) => e.path));
  // Paths under a templated route's fixed start (`/s/`) are the API's, never the web UI's.
  const templatedPrefixes = ENDPOINTS.filter(isTemplated).map((e) => e.path.slice(0, e.path.indexOf('{')));
  let firstScan: Promise<void> | null = null;
  /** One request of the endpoint `Id`: its checked parameters reach its handler as `ParamsOf<Id>`. */
  const serveEndpoint = async <Id extends EndpointId>(
    ctx: Context,
    endpoint: Endpoint & { id: Id },
    pathParams: Readonly<Record<string, string>> | undefined,
  ): Promise<void> => {
    // A daemon that lost its database answers nothing from a cache that may be stale, and
    // takes no change it cannot keep; health still answers (503) so a balancer moves away.
    if (!nimbus.store.available && endpoint.id !== 'health.get') throw databaseUnavailable();
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
      // Strict: a daemon that cannot catch up now (the database restarting) answers 503, not a miss that may be its lag.
      if (!(err instanceof ApiError && RETRIED_MISSES.has(err.code) && (await nimbus.store.catchUp(true)))) throw err;
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
      // Never the UI's page with a 200 (a scraper or a link checker would take it for an answer):
      // a 404, in JSON, or as a small page to a browser that asked for one outside the API.
      throw new ApiError('route_not_found', 'No such route', {}, apiPath ? null : NO_SUCH_PAGE);
    },
  };
  return dispatch;
}

/** What a browser is shown at an address that is neither the API's nor a page of the UI. */
const NO_SUCH_PAGE: ErrorPage = {
  title: 'Page not found',
  message: 'There is no page at this address. Open Nimbus from its start page.',
  browsersOnly: true,
  words: 'noSuchPage',
};

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

/**
 * A handler's answer as JSON. The daemon's own responses write it at once, status line and
 * headers in one list (daemon/http/response.ts), and Koa leaves the response alone; the
 * bytes are what Koa would have sent (its respond is `JSON.stringify(body)` as well).
 */
function sendResult(ctx: Context, status: number, body: unknown): void {
  const json =
    body instanceof JsonBytes
      ? body.bytes
      : typeof body === 'string'
        ? body
        : body !== null && typeof body === 'object' && !Buffer.isBuffer(body)
          ? JSON.stringify(body)
          : null;
  if (json !== null && ctx.res instanceof NimbusResponse) {
    ctx.respond = false;
    ctx.res.sendJson(status, json);
    return;
  }
  ctx.status = status;
  if (typeof body === 'string' || body instanceof JsonBytes) ctx.type = 'application/json';
  ctx.body = body instanceof JsonBytes ? body.bytes : body;
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
export function indexSettled(index: FileIndex, username: string | null): Promise<void> {
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
