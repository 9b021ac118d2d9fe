/**
 * What the row alone decides about a caller (docs/accounts.md, "Audiences"), for `authorize`
 * (daemon/http/authorize.ts): whether its audience admits the caller, and which parameters it takes
 * from the body only.
 */
import type { Context } from 'koa';
import { ENDPOINTS, type Audience, type Endpoint } from '../../shared/endpoints.js';
import { ApiError } from '../errors.js';
import type { Caller } from '../services/keys.js';

/**
 * Which callers the rows of each audience admit, before the parameters are read
 * (docs/accounts.md, "Audiences"). A `self` row admits every caller here; the name it gives
 * is checked against the caller's once the parameters are read (`admitNamed`).
 */
const ADMITS: Record<Exclude<Audience, 'public'>, (caller: Caller) => boolean> = {
  signedIn: () => true,
  self: () => true,
  admin: (caller) => caller.admin,
  adminKey: (caller) => caller.kind === 'adminKey',
};

/** The answer to a caller the row's audience does not admit. */
function refusal(audience: Audience): ApiError {
  if (audience === 'adminKey')
    return new ApiError('admin_key_only', 'Only the admin key itself may do this (not a machine key, a personal key or a session)');
  return new ApiError('admin_only', 'Only an administrator may do this');
}

/** Refuses a caller the row's audience does not admit (a `public` row has no caller to refuse). */
export function assertAdmitted(endpoint: Endpoint, caller: Caller): void {
  if (endpoint.audience !== 'public' && !ADMITS[endpoint.audience](caller)) throw refusal(endpoint.audience);
}

/**
 * The names each row takes from the body only: its `secret` parameters (a password typed to
 * prove who one is, such as user.edit's current `password`), and on /api/auth rows any
 * `password` or `newpassword`. (DaneeCloud's clients keep sending user.edit's `newpassword` in
 * the query.)
 */
const BODY_ONLY = new Map(
  ENDPOINTS.map((e) => {
    const secrets = Object.keys(e.params).filter((name) => e.params[name].kind === 'secret');
    return [e.id, e.group === 'auth' ? [...new Set(['password', 'newpassword', ...secrets])] : secrets];
  }),
);

/** Passwords in a query string end up in logs and history: they travel in the body. */
export function refusePasswordInQuery(ctx: Context, endpoint: Endpoint): void {
  const names = BODY_ONLY.get(endpoint.id) ?? [];
  if (!ctx.querystring || names.length === 0) return;
  const query = new URLSearchParams(ctx.querystring);
  if (names.some((name) => query.has(name)))
    throw new ApiError('password_in_query', 'Send passwords in the request body, never in the URL');
}
