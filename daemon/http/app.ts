/**
 * The HTTP stack, outermost first: error handler → guard (security headers, Host check,
 * CORS) → routing → dispatch (key check, throttle, parameters, handler). Routes come from the
 * shared endpoint table; the lookup is one Map get, not a regex walk per route.
 */
import Koa, { type Context } from 'koa';
import { ENDPOINTS, ENDPOINT_BY_ID, type Endpoint } from '../../shared/endpoints.js';
import type { ChangeEvent } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { ApiError } from '../errors.js';
import { identify, type Caller } from '../services/keys.js';
import { errorHandler } from './error-handler.js';
import type { FileIndex } from '../storage/file-index.js';
import type { EventHub } from './events.js';
import { HANDLERS } from './handlers.js';
import { applyDialect } from './dialect.js';
import { readParams } from './params.js';
import { allowedHosts, guard } from './security.js';
import { serveUi } from './static.js';
import { FailureThrottle } from './throttle.js';
import { ConnectionTracker } from './connections.js';

const SHARE_PATH = /^\/s\/([A-Za-z0-9_-]{16,128})$/;

/** What routing hands a request to: the pipeline for a matched endpoint, or the answer when none matched. */
export interface Dispatch {
  /**
   * Key check, throttle, parameters, index wait, handler, dialect and event for a request
   * routed to `endpoint`; `shareToken` is the token of a share link (`share.download`).
   */
  serve(ctx: Context, endpoint: Endpoint, shareToken?: string): Promise<void>;
  /** A request no route matched: 405 for a known path, the web UI for other GETs, else 404. */
  unrouted(ctx: Context): Promise<void>;
}

/** Builds the middleware that finds each request's endpoint and hands it to the dispatch. */
export type Routing = (dispatch: Dispatch) => Koa.Middleware;

/**
 * The daemon's routing: one Map get on "METHOD /path" from the endpoint table, share links
 * by one regex. (@koa/router built from the same table was measured against it: `npm run
 * bench`, row "Routing"; README, decisions.)
 */
export const tableRouting: Routing = (dispatch) => {
  const routes = new Map<string, Endpoint>(ENDPOINTS.map((e) => [`${e.method} ${e.path}`, e]));
  return (ctx) => {
    const path = trimSlashes(ctx.path);
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    const endpoint = routes.get(`${method} ${path}`);
    if (endpoint) return dispatch.serve(ctx, endpoint);
    const share = method === 'GET' ? SHARE_PATH.exec(path) : null;
    if (share) return dispatch.serve(ctx, ENDPOINT_BY_ID['share.download'], share[1]);
    return dispatch.unrouted(ctx);
  };
};

export interface AppOptions {
  /** How requests find their endpoint; `tableRouting` unless a benchmark passes another. */
  routing?: Routing;
}

export function createApp(n: NimbusContext, events: EventHub, port: () => number, options: AppOptions = {}): Koa {
  const app = new Koa();
  const throttle = new FailureThrottle(n.log);
  const connections = new ConnectionTracker(n.revocations);
  const knownPaths = new Set(ENDPOINTS.map((e) => e.path));
  // The host of NIMBUS_PUBLIC_URL is the daemon's own too: share and verify links point there.
  const ownHosts = n.config.publicUrl ? [...n.config.allowedHosts, new URL(n.config.publicUrl).host] : n.config.allowedHosts;
  let hosts = allowedHosts(port(), ownHosts);
  let firstScan: Promise<void> | null = null;
  // Koa reports stream errors after the response started here (by default to stderr, past
  // the daemon's log). A client that leaves mid-download or closes an event stream is normal.
  app.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'ERR_STREAM_PREMATURE_CLOSE' || err.code === 'ECONNRESET' || err.code === 'EPIPE' || err.code === 'ECONNABORTED')
      return;
    n.log(`Nimbus: response error: ${err.stack ?? err.message}`);
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
  const dispatch: Dispatch = {
    async serve(ctx, endpoint, shareToken) {
      if (shareToken !== undefined) {
        ctx.state.shareToken = shareToken;
        guardShareToken(n, ctx, throttle, shareToken);
      }
      const caller = endpoint.scope === 'public' ? null : authorize(n, ctx, throttle, connections, endpoint);
      const { params, page } = await readParams(ctx, endpoint);
      if (readsIndex(endpoint) && n.index.state === 'scanning') {
        // One user's answers need only that user's directory read; lists of all users need the whole scan.
        const username = typeof params.username === 'string' && endpoint.id !== 'user.all' ? params.username : null;
        if (username === null) await (firstScan ??= indexSettled(n.index, null));
        else if (!n.index.isComplete(username)) await indexSettled(n.index, username);
      }
      // The caller's dialect shapes the body (daemon/http/dialect.ts); nimbus keeps it as it is.
      const body = applyDialect(
        n,
        caller?.dialect ?? 'nimbus',
        endpoint.id,
        await HANDLERS[endpoint.id]({ ctx, p: params, page, n, events }),
      );
      if (body !== undefined) {
        ctx.status = endpoint.success;
        ctx.body = body;
      }
      if (endpoint.method === 'POST') {
        const event = serviceEvent(endpoint, params);
        if (event) events.publish(event);
      }
    },
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
      if (method === 'GET' && !path.startsWith('/api') && !path.startsWith('/s/') && (await serveUi(ctx, n.config.rendererDir))) return;
      throw new ApiError('route_not_found', 'No such route');
    },
  };
  app.use(errorHandler(n.log));
  app.use(guard(currentHosts, n.config.corsOrigins));
  app.use((options.routing ?? tableRouting)(dispatch));
  return app;
}

/** Endpoints whose answer depends on the file index (files, folders, usage, share links). */
function readsIndex(endpoint: Endpoint): boolean {
  return endpoint.group === 'user' || endpoint.group === 'folders' || endpoint.group === 'files' || endpoint.id === 'share.download';
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
  const header = ctx.get('API-Key');
  if (header) return header;
  const auth = ctx.get('Authorization');
  // The scheme is case-insensitive (RFC 9110 §11.1): "bearer <key>" is the same as "Bearer <key>".
  const match = /^bearer\s+(\S+)\s*$/i.exec(auth);
  return match ? match[1] : '';
}

/** Checks the key and its scope; a correct key always passes, wrong ones are throttled. */
function authorize(n: NimbusContext, ctx: Context, throttle: FailureThrottle, connections: ConnectionTracker, endpoint: Endpoint): Caller {
  const key = presentedKey(ctx);
  // No key is no guess: it is answered 401 even while this client is blocked for wrong ones,
  // so a client that lost its key learns that, not "try again later".
  if (!key) throw new ApiError('unauthorized', 'Missing API key (send the API-Key header)');
  const caller = identify(n, key);
  if (!caller) {
    const client = ctx.socket.remoteAddress ?? 'unknown';
    const wait = throttle.retryAfter(client);
    if (wait > 0) throw new ApiError('too_many_requests', 'Too many wrong API keys; try again later', { 'Retry-After': String(wait) });
    throttle.fail(client, 'API keys');
    throw new ApiError('unauthorized', 'Wrong API key');
  }
  if (endpoint.scope === 'admin' && caller.scope !== 'admin') throw new ApiError('insufficient_scope', 'This key may only read');
  // So that revoking the key closes this connection and whatever it streams.
  connections.bind(ctx.req.socket, ctx.res, caller.credential);
  ctx.state.caller = caller;
  return caller;
}

function guardShareToken(n: NimbusContext, ctx: Context, throttle: FailureThrottle, token: string): void {
  if (n.store.sharesByToken.has(token)) return;
  const client = ctx.socket.remoteAddress ?? 'unknown';
  const wait = throttle.retryAfter(client);
  if (wait > 0) throw new ApiError('too_many_requests', 'Too many unknown links; try again later', { 'Retry-After': String(wait) });
  throttle.fail(client, 'share links');
}

/** The event a successful mutation that the file index does not see announces. */
function serviceEvent(endpoint: Endpoint, params: Record<string, unknown>): ChangeEvent | null {
  const username = (params.username as string | undefined) ?? null;
  const folder = (params.folder as string | undefined) ?? null;
  const file = (params.file as string | undefined) ?? null;
  switch (endpoint.group) {
    case 'user':
      if (endpoint.id === 'user.delete') return null; // the index announces user.removed
      return { type: 'user.changed', username: (params.newusername as string | undefined) ?? username, folder: null, file: null };
    case 'role':
      return { type: 'role.changed', username: null, folder: null, file: null };
    case 'files':
      if (endpoint.id === 'files.share' || endpoint.id === 'files.noshare') return { type: 'share.changed', username, folder, file };
      return null;
    default:
      return null;
  }
}
