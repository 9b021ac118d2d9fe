/**
 * Routing from the shared endpoint table: what a request is handed to once its endpoint is
 * found (Dispatch), and the daemon's own way of finding it (tableRouting).
 */
import type Koa from 'koa';
import type { Context } from 'koa';
import { ENDPOINTS, type Endpoint } from '../../shared/endpoints.js';

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

/** A row whose path has `{name}` segments (`/s/{token}`). */
export const isTemplated = (e: Endpoint) => e.path.includes('{');

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

/** `path` without trailing slashes (`/api/files/` is `/api/files`); `/` stays. */
export function trimSlashes(path: string): string {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 47) end--;
  return end === path.length ? path : path.slice(0, end);
}
