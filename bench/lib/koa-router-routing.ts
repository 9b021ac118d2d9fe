/**
 * @koa/router built from the endpoint table, in place of the daemon's Map lookup
 * (`tableRouting` in daemon/http/app.ts): one `router.get`/`router.post` per table row,
 * each handing the request to the daemon's own dispatch (key check, parameters, handler,
 * dialect, event). Only the bench's routing row uses it (bench/scenarios/router.ts).
 */
import Router, { type RouterContext, type RouterMiddleware } from '@koa/router';
import type { Routing } from '../../daemon/index.js';
import { ENDPOINTS } from '../../shared/endpoints.js';

export const koaRouterRouting: Routing = (dispatch) => {
  const router = new Router();
  for (const endpoint of ENDPOINTS) {
    const path = endpoint.path.replace(/\{(\w+)\}/g, ':$1'); // '/s/{token}' → '/s/:token'
    // Path parameters (`:token`) are checked by the dispatch, as for the table routing.
    const handle: RouterMiddleware = (ctx) => dispatch.serve(ctx, endpoint, ctx.params);
    if (endpoint.method === 'GET') router.get(path, handle);
    else router.post(path, handle);
  }
  const routes = router.routes();
  // No route matched: the same 405 / web UI / 404 as the table routing.
  return (ctx) => routes(ctx as RouterContext, () => dispatch.unrouted(ctx));
};
