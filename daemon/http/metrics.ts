/**
 * The HTTP side of the metrics (docs/metrics.md): every request counted by endpoint and status
 * and timed, and `GET /metrics` answered, to whom and why.
 *
 * The endpoint of a request is named where routing found it (the dispatch below sets it before
 * handing the request on), so the label is the endpoint table's id, never the raw path: a path
 * carries usernames and file names, and one label value per path would grow without bound.
 * What no row serves is named by its door: `dav.<METHOD>` for WebDAV, `tus.<METHOD>` for
 * resumable uploads, `other` for everything else (the web UI's files, unknown paths, a foreign
 * Host refused before routing).
 *
 * Who may scrape: a connection from an address of NIMBUS_METRICS_ALLOW (none by default:
 * daemon/util/metrics-allow.ts says why loopback is not), or a request carrying a credential
 * that may read an administrator's GET row (the admin key, an admin or `read` machine key, an
 * admin's session), exactly as `GET /api/dash` is authorized. Anyone else gets the API's 401 or
 * 403 and not a byte of the metrics.
 */
import type { Context } from 'koa';
import { ENDPOINTS } from '../../shared/endpoints.js';
import { ApiError } from '../errors.js';
import type { Metrics } from '../util/metrics.js';
import { addressMatcher } from '../util/metrics-allow.js';
import { authorize, credentialUnknown, type Guards } from './authorize.js';
import { DAV_PREFIX } from './dav/paths.js';
import type { EventHub } from './events.js';
import { trimSlashes, type Dispatch } from './routing.js';
import { TUS_PREFIX } from './tus/door.js';

export const METRICS_PATH = '/metrics';

/** The row /metrics is authorized as: the daemon's overview, an administrator's GET (a `read` key may call it). */
const AUTHORIZED_AS = ENDPOINTS.find((e) => e.id === 'dash.get')!;

/** Where the dispatch leaves the endpoint's id for the counter (Koa's per-request state). */
interface NamedState {
  endpointId?: string;
}

/** A door's label per method, made once: a fixed set, whatever method a client invents. */
const doorLabels = (door: string, methods: string[]) => new Map(methods.map((method) => [method, `${door}.${method}`]));
const DAV_LABELS = doorLabels('dav', [
  'OPTIONS',
  'GET',
  'HEAD',
  'PUT',
  'DELETE',
  'PROPFIND',
  'PROPPATCH',
  'MKCOL',
  'COPY',
  'MOVE',
  'LOCK',
  'UNLOCK',
]);
const TUS_LABELS = doorLabels('tus', ['OPTIONS', 'POST', 'HEAD', 'PATCH', 'DELETE']);

const inside = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** The label of a request no row of the table served. */
function doorOf(ctx: Context): string {
  const path = ctx.path;
  if (inside(path, DAV_PREFIX) || (path === '/' && ctx.method === 'OPTIONS')) return DAV_LABELS.get(ctx.method) ?? 'dav.other';
  if (inside(path, TUS_PREFIX)) return TUS_LABELS.get(ctx.method) ?? 'tus.other';
  return 'other';
}

/**
 * Counts and times a request once its response has ended (so a download is timed to its last
 * byte): the request log's hook (request-log.ts), which is outside the error handler, so the
 * status and the error body's code are final (a 507 is a quota refusal only when its code says
 * so; a full disk is 507 `disk_full`). One listener a request for both, not one each: the
 * metrics' own middleware and listener were ~1.5 µs of a `GET /api/user` (bench/NOTES.md, issue 30).
 */
export function requestCounter(metrics: Metrics): (ctx: Context, seconds: number) => void {
  return (ctx, seconds) => {
    const endpoint = (ctx.state as NamedState).endpointId ?? doorOf(ctx);
    const status = ctx.res.statusCode;
    // An event stream lasts as long as its client stays: its duration says nothing of the daemon.
    metrics.request(endpoint, status, endpoint === 'events.stream' ? null : seconds);
    if (status === 507 && (ctx.body as { code?: unknown } | null)?.code === 'quota_exceeded') metrics.quotaRefused();
  };
}

/**
 * The dispatch, naming each routed request's endpoint for `requestCounter`, and answering
 * `/metrics` before the web UI could (a scraper must never get the page with a 200). Also
 * exports the open event streams, which only the app's EventHub knows.
 */
export function servingMetrics(inner: Dispatch, guards: Guards, events: EventHub): Dispatch {
  const metrics = guards.nimbus.metrics ?? null;
  metrics?.gauge('nimbus_event_streams_open', 'Open GET /api/events streams', () => events.size);
  const allowed = addressMatcher(guards.nimbus.config.metricsAllow);
  return {
    serve(ctx, endpoint, pathParams) {
      (ctx.state as NamedState).endpointId = endpoint.id;
      return inner.serve(ctx, endpoint, pathParams);
    },
    unrouted(ctx) {
      if (trimSlashes(ctx.path) !== METRICS_PATH) return inner.unrouted(ctx);
      (ctx.state as NamedState).endpointId = 'metrics';
      return answerMetrics(ctx, guards, metrics, allowed);
    },
  };
}

async function answerMetrics(ctx: Context, guards: Guards, metrics: Metrics | null, allowed: (address?: string) => boolean): Promise<void> {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw new ApiError('method_not_allowed', 'Use GET', { Allow: 'GET, HEAD' });
  // The connection's own address: a header naming another (X-Forwarded-For) is the client's word.
  if (!allowed(ctx.req.socket.remoteAddress)) {
    const { nimbus } = guards;
    // Another daemon may have made this key a moment ago (as the dispatch does); not while the database is gone.
    if (nimbus.store.database && nimbus.store.available && credentialUnknown(nimbus, ctx)) await nimbus.store.catchUp();
    authorize(guards, ctx, AUTHORIZED_AS);
  }
  if (!metrics) throw new ApiError('route_not_found', 'No such route');
  const text = await metrics.text();
  ctx.set('Cache-Control', 'no-store');
  ctx.type = metrics.contentType;
  ctx.body = text;
}
