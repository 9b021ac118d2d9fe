import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { createRequire } from 'node:module';
import type CoBody from 'co-body';
import type { Context } from 'koa';
import { PARAM_CHECKS, PAGE_LIMIT_MAX, type Endpoint, type EndpointId, type ParamsOf } from '../../shared/endpoints.js';
import { checkNonNegativeInt } from '../../shared/validation.js';
import { ApiError, badRequest } from '../errors.js';

export interface Page {
  offset: number;
  limit: number;
}

const BODY_LIMIT = '64kb';
const MAX_RAW_LENGTH = 8192;
const REPLACEMENT = '\ufffd';
// A lone surrogate (UTF-16 that no UTF-8 could encode): in `u` mode a pair is one code point, never \p{Cs}.
const LONE_SURROGATE = /\p{Cs}/u;

export interface ParamsRead<Id extends EndpointId> {
  params: ParamsOf<Id>;
  page: Page;
}

/**
 * The endpoint's parameters from the query string and (for a POST) a JSON or urlencoded
 * body, each checked by the shared rules. A key given twice with two values is a 400;
 * so is anything missing, empty or malformed — before any disk access. Path parameters
 * (`in: 'path'`) come from the router's match of the path (`pathParams`) only; one that
 * fails its check names no route (404), as a path the table does not have.
 *
 * A promise only when there is a body to read: a GET's parameters are checked at once (one
 * promise and its tick less on every read; issue 15).
 */
export function readParams<Id extends EndpointId>(
  ctx: Context,
  endpoint: Endpoint & { id: Id },
  pathParams: Readonly<Record<string, string>> = {},
): ParamsRead<Id> | Promise<ParamsRead<Id>> {
  const raw = new Map<string, string>();
  const querystring = ctx.querystring;
  if (querystring !== '') {
    const query = new URLSearchParams(querystring);
    // URLSearchParams turns bytes that are not UTF-8 into U+FFFD, so only a value holding one
    // can be such a parameter: the common request pays for one scan, not a second decoding.
    let replaced = false;
    for (const [key, value] of query) if (key.includes(REPLACEMENT) || value.includes(REPLACEMENT)) replaced = true;
    if (replaced) assertQueryUtf8(querystring);
    collect(raw, query);
  }
  if (ctx.method === 'POST' && !endpoint.bodyIsContent && hasBody(ctx)) {
    return readBody(ctx).then((body) => {
      collect(raw, Object.entries(body));
      return checkParams(raw, endpoint, pathParams);
    });
  }
  return checkParams(raw, endpoint, pathParams);
}

function checkParams<Id extends EndpointId>(
  raw: Map<string, string>,
  endpoint: Endpoint & { id: Id },
  pathParams: Readonly<Record<string, string>>,
): ParamsRead<Id> {
  const params: Record<string, unknown> = {};
  for (const name in endpoint.params) {
    const spec = endpoint.params[name];
    if (spec.in === 'path') {
      const checked = name in pathParams ? PARAM_CHECKS[spec.kind](pathParams[name]) : null;
      if (!checked?.ok) throw new ApiError('route_not_found', 'No such route');
      params[name] = checked.value;
      continue;
    }
    const value = raw.get(name);
    if (value === undefined || value === '') {
      if (spec.required) throw badRequest(`Missing parameter: ${name}`, 'missing_parameter');
      continue;
    }
    if (value.length > MAX_RAW_LENGTH) throw badRequest(`Parameter ${name} is too long`);
    const checked = PARAM_CHECKS[spec.kind](value);
    if (!checked.ok) throw badRequest(`Parameter ${name} ${checked.message}`);
    params[name] = checked.value;
  }
  // Each value was checked by the rule of its kind in this very row: that is what ParamsOf<Id> describes.
  return { params: params as ParamsOf<Id>, page: endpoint.paged ? readPage(raw) : { offset: 0, limit: Infinity } };
}

function readPage(raw: Map<string, string>): Page {
  const number = (name: string): number | undefined => {
    const value = raw.get(name);
    if (value === undefined || value === '') return undefined;
    const checked = checkNonNegativeInt(value);
    if (!checked.ok) throw badRequest(`Parameter ${name} ${checked.message}`);
    return checked.value;
  };
  const limit = number('limit');
  if (limit !== undefined && (limit < 1 || limit > PAGE_LIMIT_MAX)) throw badRequest(`Parameter limit must be 1–${PAGE_LIMIT_MAX}`);
  return { offset: number('offset') ?? 0, limit: limit ?? Infinity };
}

function collect(into: Map<string, string>, entries: Iterable<[string, unknown]>): void {
  for (const [key, rawValue] of entries) {
    if (rawValue === null || rawValue === undefined) continue;
    if (typeof rawValue === 'object') throw badRequest(`Parameter ${key} must be a single value`);
    const value = String(rawValue);
    const before = into.get(key);
    if (before !== undefined && before !== value)
      throw badRequest(`Parameter ${key} is given twice with different values`, 'duplicate_parameter');
    into.set(key, value);
  }
}

/**
 * Refuses a query string any of whose parameters percent-decodes to bytes that are not
 * UTF-8 (a lone surrogate such as %ED%A0%80, an overlong form, a stray byte): decoded, it
 * would become U+FFFD, a name the client never meant. A U+FFFD sent as its own bytes
 * (%EF%BF%BD) is valid.
 */
function assertQueryUtf8(querystring: string): void {
  for (const pair of querystring.split('&')) {
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    if (!isUtf8(percentDecode(key)) || !isUtf8(percentDecode(value))) {
      throw badRequest(`Parameter ${new URLSearchParams(`${key}=`).keys().next().value ?? ''} is not valid UTF-8`);
    }
  }
}

/** The bytes a form-encoded component stands for, as URLSearchParams reads it: `%XX` is a byte, `+` a space, any other text its UTF-8. */
function percentDecode(component: string): Buffer {
  // With a capture group, split puts each `%XX` at an odd index.
  const parts = component.replace(/\+/g, ' ').split(/(%[0-9A-Fa-f]{2})/);
  return Buffer.concat(parts.map((part, i) => (i % 2 === 1 ? Buffer.from([parseInt(part.slice(1), 16)]) : Buffer.from(part, 'utf8'))));
}

/**
 * qs's decoder for form bodies, but strict: qs keeps a component whose escapes are not
 * UTF-8 as the raw text (`%ED%A0%80` would become a name with percent signs in it).
 * A "%" that starts no escape (`100%`) is still kept as text, as before.
 */
function decodeFormComponent(text: string): string {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    if (!isUtf8(percentDecode(text))) throw badRequest(`A parameter in the body is not valid UTF-8: ${text.slice(0, 64)}`);
    return spaced;
  }
}

function hasBody(ctx: Context): boolean {
  return ctx.get('Content-Length') !== '' ? Number(ctx.get('Content-Length')) > 0 : ctx.get('Transfer-Encoding') !== '';
}

/** co-body, required on the first request with a body rather than at start (~70 ms of the daemon's start-up). */
let coBodyModule: typeof CoBody | null = null;
const loadCoBody = () => (coBodyModule ??= createRequire(import.meta.url)('co-body') as typeof CoBody);
export const preloadBodyParser = (): void => void loadCoBody();

async function readBody(ctx: Context): Promise<Record<string, unknown>> {
  const coBody = loadCoBody();
  let body: unknown;
  try {
    const json = ctx.is('json');
    const form = !json && ctx.is('urlencoded');
    if (!json && !form) {
      // An unknown body type carries no parameters; drain it within the limit.
      await coBody.text(ctx.req, { limit: BODY_LIMIT });
      return {};
    }
    // The bytes first (encoding null: a Buffer, not text), since decoding to text would turn
    // bytes that are not UTF-8 into U+FFFD; then co-body parses them as it always did.
    const bytes = (await coBody.text(ctx.req, { limit: BODY_LIMIT, encoding: null as unknown as string })) as Buffer;
    if (!isUtf8(bytes)) throw badRequest('The request body is not valid UTF-8');
    const replay = Object.assign(Readable.from([bytes], { objectMode: false }), { headers: {} }) as unknown as IncomingMessage;
    if (json) body = await coBody.json(replay, { limit: BODY_LIMIT, strict: true });
    else body = await coBody.form(replay, { limit: BODY_LIMIT, queryString: { arrayLimit: 0, depth: 0, decoder: decodeFormComponent } });
  } catch (err) {
    if (err instanceof ApiError) throw err;
    const status = (err as { status?: number }).status;
    if (status === 413) throw new ApiError('payload_too_large', `Request body over ${BODY_LIMIT}`);
    if (status === 415) throw badRequest('Unsupported body encoding', 'bad_request');
    throw badRequest('The request body is not valid JSON or form data', 'bad_request');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('The request body must be an object', 'bad_request');
  // JSON's "\ud800" escape makes a string no UTF-8 can hold; a pair ("\ud83d\ude00") is one character.
  for (const [key, value] of Object.entries(body)) {
    if (LONE_SURROGATE.test(key) || (typeof value === 'string' && LONE_SURROGATE.test(value))) {
      throw badRequest(`Parameter ${key.replace(LONE_SURROGATE, REPLACEMENT)} is not valid UTF-8 (it holds a lone surrogate)`);
    }
  }
  return body as Record<string, unknown>;
}
