/**
 * Who a request comes from and whether they may call its row: the caller from a key or the
 * session cookie, the cross-site rule, audiences and scopes (docs/accounts.md).
 */
import type { Context } from 'koa';
import { refusesReadOnly, type Endpoint } from '../../shared/endpoints.js';
import type { NimbusContext } from '../context.js';
import { ApiError, notFound } from '../errors.js';
import { registrationClosed } from '../services/auth.js';
import { identify, sessionCaller, type Caller } from '../services/keys.js';
import { SESSION_COOKIE } from '../services/sessions.js';
import { assertAdmitted, refusePasswordInQuery } from './admission.js';
import { clearSessionCookie } from './cookies.js';
import type { ConnectionTracker } from './connections.js';
import { assertNoForeignOrigin, assertSameOrigin } from './security.js';
import { countWrongKey, type FailureThrottle } from './throttle.js';

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
export interface Guards {
  nimbus: NimbusContext;
  /** Wrong keys per client (429 after too many). */
  throttle: FailureThrottle;
  /** Binds each authenticated connection to its credential, so revoking it closes the connection. */
  connections: ConnectionTracker;
  /** The daemon's own origins, for the cross-site rule. */
  origins: () => Set<string>;
}

/** A presented key or session cookie this daemon does not know (it may be another daemon's new one). */
export function credentialUnknown(nimbus: NimbusContext, ctx: Context): boolean {
  const key = presentedKey(ctx);
  if (key) return identify(nimbus, key) === null;
  const token = sessionToken(ctx);
  return token !== null && !nimbus.sessions.has(token);
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
export function authorize(guards: Guards, ctx: Context, endpoint: Endpoint): Caller | null {
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
  countWrongKey(guards.throttle, ctx.socket.remoteAddress ?? 'unknown');
  throw new ApiError('unauthorized', 'Wrong API key');
}

/** The user a request's parameters name (`username`), or null. */
export const namedUser = (params: object): string | null => {
  const { username } = params as { username?: unknown };
  return typeof username === 'string' ? username : null;
};

/**
 * A `self` row names a user: an admin may name anyone, anyone else only themselves. Another
 * user's name answers exactly as a user that does not exist (404 `user_not_found`), so
 * nobody learns who has an account.
 */
export function admitNamed(caller: Caller | null, endpoint: Endpoint, params: object): void {
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
