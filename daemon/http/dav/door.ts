/**
 * The /dav/ door (docs/webdav.md): WebDAV classes 1 and 2 onto the same services as the API.
 * Mounted before the endpoint routing (app.ts), after the Host check and the request log.
 * Every request: the store available, OPTIONS answered to anyone (the Windows Mini-Redirector
 * probes `/` too), the caller authenticated (auth.ts), the path checked and kept inside the
 * caller's own tree (another user's is 404, as the API's), then one method's module.
 */
import type { Context, Middleware } from 'koa';
import type { NimbusContext } from '../../context.js';
import { ApiError, badRequest, databaseUnavailable, notFound } from '../../errors.js';
import type { Caller } from '../../services/keys.js';
import type { LoginThrottle } from '../../services/login-throttle.js';
import { indexSettled } from '../dispatch.js';
import { DavAuth } from './auth.js';
import { copyOrMove, destinationPaths } from './copy-move.js';
import { DavCondition, sendCondition } from './errors.js';
import { asLockCondition, submittedTokens } from './if-eval.js';
import { lock, unlock } from './locks.js';
import { parseDavPath, resourceAt, DAV_PREFIX, type DavPath } from './paths.js';
import { propfind, propfindUsers } from './propfind.js';
import { proppatch } from './proppatch.js';
import { withLockTokens } from './state.js';
import { answerEmpty } from './xml.js';
import { get } from './read.js';
import { mkcol, notAllowed, put, remove } from './write.js';
import type { ConnectionTracker } from '../connections.js';
import type { FailureThrottle } from '../throttle.js';

export interface DavDoorOptions {
  nimbus: NimbusContext;
  logins: LoginThrottle;
  /** Wrong keys per client, the API's (429 after too many). */
  throttle: FailureThrottle;
  /** The daemon's own origins (the cross-site rule). */
  origins: () => Set<string>;
  /** The daemon's own hosts (a Destination on another host is another server). */
  hosts: () => Set<string>;
  /** Closes what a credential opened once it is revoked, or once its user may no longer have it (as the API's requests). */
  connections: ConnectionTracker;
}

const METHODS = 'OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, PROPPATCH, MKCOL, COPY, MOVE, LOCK, UNLOCK';
/** Methods for which nothing at the URL is a 404 (PUT, MKCOL and LOCK make what is missing). */
const MISS_IS_AN_ERROR = new Set(['GET', 'HEAD', 'PROPFIND', 'PROPPATCH', 'DELETE', 'COPY', 'MOVE', 'UNLOCK']);
/** Methods that change nothing: a `read` key may call them. */
const READING = new Set(['GET', 'HEAD', 'PROPFIND', 'OPTIONS']);

/** The paths whose OPTIONS the door answers: /dav and below, and `/` (the Windows Mini-Redirector's probe). */
export const answersOptions = (path: string): boolean => path === '/' || path === DAV_PREFIX || path.startsWith(`${DAV_PREFIX}/`);

/** The middleware: /dav and below, and OPTIONS of `/`; anything else goes on to the API. */
export function davDoor(options: DavDoorOptions): Middleware {
  const { nimbus } = options;
  const auth = new DavAuth(nimbus, options.logins, options.throttle);
  warnIfClearText(nimbus);
  return (ctx, next) => {
    const path = ctx.path;
    if (path === DAV_PREFIX || path.startsWith(`${DAV_PREFIX}/`)) return serve(ctx, options, auth);
    if (path === '/' && ctx.method === 'OPTIONS') return answerOptions(ctx);
    return next();
  };
}

function answerOptions(ctx: Context): Promise<void> {
  ctx.set('DAV', '1, 2');
  ctx.set('Allow', METHODS);
  ctx.set('MS-Author-Via', 'DAV');
  answerEmpty(ctx, 200);
  return Promise.resolve();
}

async function serve(ctx: Context, options: DavDoorOptions, auth: DavAuth): Promise<void> {
  const { nimbus } = options;
  try {
    if (!nimbus.store.available) throw databaseUnavailable();
    if (ctx.method === 'OPTIONS') return await answerOptions(ctx);
    const caller = await auth.caller(ctx, options.origins());
    // A download or upload must not outlive the key or password that started it.
    options.connections.bind(ctx.req.socket, ctx.res, caller);
    if (!READING.has(ctx.method) && !caller.canWrite) throw new ApiError('insufficient_scope', 'This key may only read');
    // A fragment is the client's own business (RFC 3986 §3.5): one sent along names no other resource, so it is refused.
    if (ctx.url.includes('#')) throw badRequest('A request URL may not carry a fragment (#…)');
    const target = parseDavPath(ctx.path);
    if (target.username === null) {
      if (ctx.method !== 'PROPFIND' && ctx.method !== 'GET' && ctx.method !== 'HEAD')
        throw notAllowed('Only PROPFIND and GET reach /dav/ itself');
      const visible = caller.admin ? [...nimbus.store.users.keys()] : caller.username ? [caller.username] : [];
      if (ctx.method === 'PROPFIND') return await propfindUsers(ctx, nimbus, visible);
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = visible.map((u) => `${u}/\n`).join('');
      return;
    }
    const at: DavPath = { username: target.username, path: target.path };
    options.connections.name(ctx.req.socket, ctx.res, at.username);
    await admit(nimbus, caller, at.username);
    await byMethod(ctx, options, at, caller);
  } catch (err) {
    if (err instanceof DavCondition) return sendCondition(ctx, err);
    throw err;
  }
}

/** A user sees only their own tree; an admin anyone's. Anything else is 404, as a user that does not exist. */
async function admit(nimbus: NimbusContext, caller: Caller, username: string): Promise<void> {
  if (!caller.admin && caller.username !== username) throw notFound('user_not_found', 'User not found');
  if (!nimbus.store.users.has(username)) {
    if (nimbus.store.database) await nimbus.store.catchUp();
    if (!nimbus.store.users.has(username)) throw notFound('user_not_found', 'User not found');
  }
  // Until the first scan has read the user's directory their tree would look empty.
  if (nimbus.index.state === 'scanning' && !nimbus.index.isComplete(username)) await indexSettled(nimbus.index, username);
}

async function byMethod(ctx: Context, options: DavDoorOptions, at: DavPath, caller: Caller): Promise<void> {
  const { nimbus } = options;
  // Another daemon may have made it a moment ago: catch up before answering a miss (as the API's dispatch does).
  if (nimbus.store.database && MISS_IS_AN_ERROR.has(ctx.method) && resourceAt(nimbus, at).kind === 'none') await nimbus.store.catchUp(true);
  // The If header holds (else 412 or 423), and the lock tokens it names are this request's.
  const tokens = await submittedTokens(ctx, nimbus, at);
  try {
    await withLockTokens(tokens, () => runMethod(ctx, options, at, caller));
  } catch (err) {
    // The Destination parsed again only here, for a refusal to name (a MOVE's third parse otherwise).
    throw asLockCondition(err, nimbus, at.username, [at.path, ...destinationPaths(ctx)], tokens);
  }
}

function runMethod(ctx: Context, options: DavDoorOptions, at: DavPath, caller: Caller): Promise<void> {
  const { nimbus } = options;
  switch (ctx.method) {
    case 'PROPFIND':
      return propfind(ctx, nimbus, at);
    case 'PROPPATCH':
      return proppatch(ctx, nimbus, at);
    case 'GET':
    case 'HEAD':
      return get(ctx, nimbus, at);
    case 'PUT':
      return put(ctx, nimbus, at, caller);
    case 'MKCOL':
      return mkcol(ctx, nimbus, at);
    case 'DELETE':
      return remove(ctx, nimbus, at);
    case 'COPY':
    case 'MOVE':
      return copyOrMove(ctx, nimbus, at, options.hosts());
    case 'LOCK':
      return lock(ctx, nimbus, at, caller);
    case 'UNLOCK':
      return unlock(ctx, nimbus, at);
    default:
      ctx.set('Allow', METHODS);
      throw notAllowed(`${ctx.method} is not a WebDAV method this server takes`);
  }
}

/** Basic sends the password with every request: over plain http beyond loopback, anyone on the way reads it. Said once. */
function warnIfClearText(nimbus: NimbusContext): void {
  const host = nimbus.config.host;
  const loopback = host === '127.0.0.1' || host === '::1' || host === 'localhost' || host.startsWith('127.');
  const https = nimbus.config.publicUrl?.startsWith('https:') ?? false;
  if (!loopback && !https)
    nimbus.log(
      `Nimbus: WebDAV at /dav/ listens on ${host} over plain http: Basic sends passwords in clear; put https in front of it (a reverse proxy) beyond this machine.`,
    );
}
