import coBody from 'co-body';
import type { Context } from 'koa';
import { PARAM_CHECKS, PAGE_LIMIT_MAX, type Endpoint } from '../../shared/endpoints.js';
import { checkNonNegativeInt } from '../../shared/validation.js';
import { ApiError, badRequest } from '../errors.js';

export type Params = Record<string, unknown>;
export interface Page {
  offset: number;
  limit: number;
}

const BODY_LIMIT = '64kb';
const MAX_RAW_LENGTH = 8192;

/**
 * The endpoint's parameters from the query string and (for a POST) a JSON or urlencoded
 * body, each checked by the shared rules. A key given twice with two values is a 400;
 * so is anything missing, empty or malformed — before any disk access.
 */
export async function readParams(ctx: Context, endpoint: Endpoint): Promise<{ params: Params; page: Page }> {
  const raw = new Map<string, string>();
  collect(raw, new URLSearchParams(ctx.querystring).entries());
  if (ctx.method === 'POST' && !endpoint.bodyIsContent && hasBody(ctx)) {
    collect(raw, Object.entries(await readBody(ctx)));
  }
  const params: Params = {};
  for (const [name, spec] of Object.entries(endpoint.params)) {
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
  return { params, page: endpoint.paged ? readPage(raw) : { offset: 0, limit: Infinity } };
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
    if (before !== undefined && before !== value) throw badRequest(`Parameter ${key} is given twice with different values`, 'duplicate_parameter');
    into.set(key, value);
  }
}

function hasBody(ctx: Context): boolean {
  return ctx.get('Content-Length') !== '' ? Number(ctx.get('Content-Length')) > 0 : ctx.get('Transfer-Encoding') !== '';
}

async function readBody(ctx: Context): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    if (ctx.is('json')) body = await coBody.json(ctx.req, { limit: BODY_LIMIT, strict: true });
    else if (ctx.is('urlencoded')) body = await coBody.form(ctx.req, { limit: BODY_LIMIT, queryString: { arrayLimit: 0, depth: 0 } });
    else {
      // An unknown body type carries no parameters; drain it within the limit.
      await coBody.text(ctx.req, { limit: BODY_LIMIT });
      return {};
    }
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (status === 413) throw new ApiError('payload_too_large', `Request body over ${BODY_LIMIT}`);
    if (status === 415) throw badRequest('Unsupported body encoding', 'bad_request');
    throw badRequest('The request body is not valid JSON or form data', 'bad_request');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('The request body must be an object', 'bad_request');
  return body as Record<string, unknown>;
}
