/**
 * The HTTP stack, outermost first: error handler → checkHostAndCors (security headers, Host
 * check, CORS) → routing → dispatch (authorization: the caller from a key or the session
 * cookie and the row's audience; parameters; handler; the row's events). Routes come from the
 * shared endpoint table (daemon/http/routing.ts); the dispatch is daemon/http/dispatch.ts.
 * Throughout, `ctx` is Koa's context of the request and `nimbus` the daemon's (NimbusContext).
 */
import Koa from 'koa';
import type { NimbusContext } from '../context.js';
import { dummyPasswordHash } from '../services/auth.js';
import { mayStillHave } from '../services/standing.js';
import type { Guards } from './authorize.js';
import { ConnectionTracker } from './connections.js';
import { answersOptions, davDoor } from './dav/door.js';
import { createDispatch } from './dispatch.js';
import { errorHandler } from './error-handler.js';
import { requestCounter, servingMetrics } from './metrics.js';
import type { EventHub } from './events.js';
import { LoginThrottle } from '../services/login-throttle.js';
import { requestLog } from './request-log.js';
import { tableRouting, type Routing } from './routing.js';
import { allowedHosts, checkHostAndCors, ownOrigins } from './security.js';
import { FailureThrottle } from './throttle.js';
import { answersTusOptions, tusDoor } from './tus/door.js';
import type { TusService } from '../services/tus-uploads.js';

export { tableRouting, type Dispatch, type Routing } from './routing.js';

export interface AppOptions {
  /** How requests find their endpoint; `tableRouting` unless a benchmark passes another. */
  routing?: Routing;
  /** Resumable uploads (docs/uploads.md); without them /api/uploads/ answers 501. */
  tus?: TusService | null;
}

export function createApp(nimbus: NimbusContext, events: EventHub, port: () => number, options: AppOptions = {}): Koa {
  const app = new Koa();
  const throttle = new FailureThrottle(nimbus.log);
  const logins = new LoginThrottle(nimbus.log);
  const connections = new ConnectionTracker(nimbus.revocations, events, (caller, named) => mayStillHave(nimbus, caller, named));
  // Made now, so that the first unknown user's sign-in takes no longer than the others.
  void dummyPasswordHash();
  // The host of NIMBUS_PUBLIC_URL is the daemon's own too: share and verify links point there.
  const ownHosts = nimbus.config.publicUrl
    ? [...nimbus.config.allowedHosts, new URL(nimbus.config.publicUrl).host]
    : nimbus.config.allowedHosts;
  let hosts = allowedHosts(port(), ownHosts);
  // Koa reports stream errors after the response started here (by default to stderr, past
  // the daemon's log). A client that leaves mid-download or closes an event stream is normal.
  app.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'ERR_STREAM_PREMATURE_CLOSE' || err.code === 'ECONNRESET' || err.code === 'EPIPE' || err.code === 'ECONNABORTED')
      return;
    nimbus.log(`Nimbus: response error: ${err.stack ?? err.message}`);
  });

  // A listening server keeps its port: ask server.address() only until it is known (per request it cost ~3% of a GET).
  let hostsPort = 0;
  const currentHosts = () => {
    if (hostsPort !== 0) return hosts;
    const current = port();
    if (!hosts.has(`127.0.0.1:${current}`)) hosts = allowedHosts(current, ownHosts);
    hostsPort = current;
    return hosts;
  };
  // The daemon's own origins (the cross-site rule), made again whenever the hosts are.
  let origins: { hosts: Set<string>; origins: Set<string> } | null = null;
  const currentOrigins = () => {
    const now = currentHosts();
    if (origins?.hosts !== now) origins = { hosts: now, origins: ownOrigins(now, nimbus.config.publicUrl) };
    return origins.origins;
  };
  const guards: Guards = { nimbus, throttle, connections, origins: currentOrigins };
  // Names each request's endpoint for the metrics, and answers /metrics (daemon/http/metrics.ts).
  const dispatch = servingMetrics(createDispatch(guards, events, logins), guards, events);
  // Outermost: sees the status the error handler sets; the metrics count each request as it is logged.
  app.use(requestLog(nimbus.logger, nimbus.metrics ? requestCounter(nimbus.metrics) : null));
  app.use(errorHandler(nimbus.log));
  app.use(checkHostAndCors(currentHosts, nimbus.config.corsOrigins, (path) => answersOptions(path) || answersTusOptions(path)));
  // WebDAV's own door, before the API's routing: its methods, paths and authentication are its own.
  app.use(davDoor({ nimbus, logins, throttle, origins: currentOrigins, hosts: currentHosts, connections }));
  // tus's own door (HEAD, PATCH, DELETE, OPTIONS on /api/uploads/), authorized as files.upload.
  app.use(tusDoor(guards, options.tus ?? null));
  app.use((options.routing ?? tableRouting)(dispatch));
  return app;
}
