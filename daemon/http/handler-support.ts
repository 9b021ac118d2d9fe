/**
 * What every handler table (daemon/http/*-handlers.ts) is made of: a handler's input and
 * result, and the small helpers several tables use.
 */
import type { Context } from 'koa';
import type { EndpointId, ParamsOf, ResponseOf } from '../../shared/endpoints.js';
import type { JsonText } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import type { JsonBytes } from '../util/json-bytes.js';
import { ApiError } from '../errors.js';
import type { Client } from '../services/auth.js';
import type { Caller } from '../services/keys.js';
import { describeDevice } from '../services/sessions.js';
import type { EventHub } from './events.js';
import type { LoginThrottle } from '../services/login-throttle.js';
import type { Page } from './params.js';
import { answerHeader } from './response.js';
import type { FailureThrottle } from './throttle.js';

export interface HandlerInput<Id extends EndpointId> {
  /** Koa's context of this request. */
  ctx: Context;
  params: ParamsOf<Id>;
  page: Page;
  nimbus: NimbusContext;
  /** Who called, by their key or session; null on public rows (authorize, daemon/http/authorize.ts). */
  caller: Caller | null;
  events: EventHub;
  /** Counts a client's failures (wrong keys, unknown share links) towards a 429. */
  throttle: FailureThrottle;
  /** Counts failed sign-ins per username and per address (429 too_many_attempts). */
  logins: LoginThrottle;
}

/** What a handler may answer: the endpoint's response, or the same already serialised (as text or as UTF-8 bytes). */
export type HandlerResult<Id extends EndpointId> = ResponseOf<Id> | JsonText<ResponseOf<Id>> | JsonBytes<ResponseOf<Id>>;

export type Handler<Id extends EndpointId> = (input: HandlerInput<Id>) => HandlerResult<Id> | Promise<HandlerResult<Id>>;

/** The handlers of some rows of the table, each typed by its row. */
export type HandlerTable<Ids extends EndpointId> = { [Id in Ids]: Handler<Id> };

export const jsonText = <T>(value: T) => JSON.stringify(value) as JsonText<T>;

/** Sends one page of a list with X-Total-Count. */
export function paged<T>(ctx: Context, items: T[], pg: Page): T[] {
  answerHeader(ctx, 'X-Total-Count', String(items.length));
  return pg.offset === 0 && pg.limit >= items.length ? items : items.slice(pg.offset, pg.offset + pg.limit);
}

/** The caller of a row that is not public (authorize has found one, or answered 401). */
export function signedIn(caller: Caller | null): Caller {
  if (!caller) throw new ApiError('unauthorized', 'Sign in or send an API key');
  return caller;
}

/** Where a sign-in comes from, for the session list. */
export const clientOf = (ctx: Context): Client => ({
  address: ctx.socket.remoteAddress ?? 'unknown',
  device: describeDevice(ctx.get('User-Agent')),
});
