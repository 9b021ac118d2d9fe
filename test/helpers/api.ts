/**
 * Calls the daemon by endpoint id, typed by the shared table: the parameters are the row's
 * (`CallParams<Id>`) and a success's body is the endpoint's response (`ResponseOf<Id>`). A
 * parameter renamed in the table fails the typecheck of every test that still sends the old name.
 */
import {
  ENDPOINT_BY_ID,
  requestTarget,
  type CallParams,
  type Endpoint,
  type EndpointId,
  type ParamsOf,
  type ResponseOf,
} from '../../shared/endpoints.js';
import type { ErrorBody } from '../../shared/types.js';
import type { ApiResponse, TestDaemon } from './daemon.js';
import { rememberSessionPassword, sessionPasswordOf } from './session-passwords.js';

type Init = RequestInit & { key?: string | null };

/** A response whose body, on success, is the endpoint's response. */
export interface Answer<Id extends EndpointId> extends Omit<ApiResponse, 'body'> {
  body: ResponseOf<Id>;
}

/** A response read as a failure: `{error, code}`. */
export interface Failure extends Omit<ApiResponse, 'body'> {
  body: ErrorBody;
}

/** The parameters of `Id` by their names, each as any string or left out: what a test of bad input sends. */
export type LooseParams<Id extends EndpointId> = { [K in keyof CallParams<Id>]?: string };

function withSessionPassword(id: EndpointId, params: Readonly<Record<string, unknown>>, init: Init): Readonly<Record<string, unknown>> {
  if (id !== 'keys.create' || 'password' in params) return params;
  const password = sessionPasswordOf(new Headers(init.headers).get('Cookie'));
  return password === undefined ? params : { ...params, password };
}

function send(t: TestDaemon, id: EndpointId, given: Readonly<Record<string, unknown>>, init: Init): Promise<ApiResponse> {
  const endpoint: Endpoint = ENDPOINT_BY_ID[id];
  const params = withSessionPassword(id, given, init);
  // The auth API takes passwords in the body only (a password in its query string is a 400),
  // and so does any row's `secret` parameter (user.edit's current password): such POSTs send
  // their parameters as JSON.
  const secretGiven = Object.entries(params).some(([name, value]) => value != null && endpoint.params[name]?.kind === 'secret');
  if (endpoint.method === 'POST' && (endpoint.group === 'auth' || secretGiven)) {
    const headers = new Headers(init.headers);
    headers.set('Content-Type', 'application/json');
    const inPath = (name: string) => endpoint.params[name]?.in === 'path';
    const given = Object.entries(params).filter(([, v]) => v !== undefined && v !== null);
    const body = JSON.stringify(Object.fromEntries(given.filter(([name]) => !inPath(name))));
    const target = requestTarget(endpoint, Object.fromEntries(given.filter(([name]) => inPath(name))));
    return t.raw(endpoint.method, target, { ...init, headers, body });
  }
  return t.raw(endpoint.method, requestTarget(endpoint, params), init);
}

/** The `nimbus_session=<value>` pair of a response's Set-Cookie, to send back as `Cookie`; null when none was set. */
export function sessionCookie(res: Pick<ApiResponse, 'headers'>): string | null {
  const match = /(?:^|,\s*)nimbus_session=([^;,]*)/.exec(res.headers.get('Set-Cookie') ?? '');
  return match && match[1] ? `nimbus_session=${match[1]}` : null;
}

/** The arguments after the id: the parameters (which may be left out when none is required), then fetch's init. */
export type ApiArgs<Id extends EndpointId> =
  Record<string, never> extends ParamsOf<Id> ? [params?: CallParams<Id>, init?: Init] : [params: CallParams<Id>, init?: Init];

/** Calls `id` with its parameters (given as their checked types; sent as strings). */
export function api<Id extends EndpointId>(t: TestDaemon, id: Id, ...[params, init]: ApiArgs<Id>): Promise<Answer<Id>> {
  return send(t, id, params ?? {}, init ?? {}) as Promise<Answer<Id>>;
}

/**
 * Calls `id` with parameters that may be missing or malformed (a test of the 400s), still by
 * the names the row declares; the body is read as an error.
 */
export function apiLoose<Id extends EndpointId>(t: TestDaemon, id: Id, params: LooseParams<Id> = {}, init: Init = {}): Promise<Failure> {
  return send(t, id, params, init) as Promise<Failure>;
}

export type { ParamsOf, ResponseOf };

/** What a browser signed in as a user sends: the session cookie, and the page's Origin (the daemon's own). */
export interface SignedIn {
  username: string;
  cookie: string;
  headers: Record<string, string>;
}

/** Signs `username` in through auth.login; throws unless it worked. */
export async function signIn(t: TestDaemon, username: string, password = 'password123'): Promise<SignedIn> {
  const res = await api(t, 'auth.login', { username, password }, { key: null });
  const cookie = sessionCookie(res);
  if (res.status !== 200 || !cookie) throw new Error(`signing in ${username}: ${res.status} ${res.text}`);
  rememberSessionPassword(cookie, password);
  return { username, cookie, headers: { Cookie: cookie, Origin: t.url } };
}
