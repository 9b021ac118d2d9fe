/**
 * The daemon's HTTP server (started by daemon.ts): the app on a node:http server with the
 * limits that keep slow or many clients from holding it, listening on the configured address.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NimbusContext } from './context.js';
import type { DaemonOptions } from './daemon-types.js';
import { createApp } from './http/app.js';
import { limitSlowBodies } from './http/body-timeout.js';
import type { EventHub } from './http/events.js';
import { createHttpServer } from './http/server.js';
import type { TusService } from './services/tus-uploads.js';

/** Creates the server for `nimbus`, listens, and gives the server and the URL it answers on. */
export async function serveHttp(
  nimbus: NimbusContext,
  events: EventHub,
  tus: TusService | null,
  options: Pick<DaemonOptions, 'routing'>,
  log: (line: string) => void,
): Promise<{ server: http.Server; port: number; url: string }> {
  const { config } = nimbus;
  // Node checks the headers timeout on this interval (30 s by default, longer than the timeout).
  const server = createHttpServer(Math.max(100, Math.min(5000, config.headersTimeoutMs / 4)));
  const app = createApp(nimbus, events, () => (server.address() as AddressInfo | null)?.port ?? config.port, {
    routing: options.routing,
    tus,
  });
  server.on('request', app.callback());
  server.requestTimeout = 0; // uploads of many GiB may take long; idle sockets still time out
  server.headersTimeout = config.headersTimeoutMs;
  // ...and so do idle and too slow bodies
  limitSlowBodies(server, { idleMs: config.bodyIdleMs, minBytesPerSecond: config.minBodyRate, graceMs: config.minBodyGraceMs });
  // Past this many, connections are refused rather than the process running out of file handles.
  server.maxConnections = config.maxConnections;
  let dropLogged = false;
  server.on('drop', () => {
    if (!dropLogged) log(`Nimbus: ${config.maxConnections} connections are open; refusing more (NIMBUS_MAX_CONNECTIONS).`);
    dropLogged = true;
  });
  await listen(server, config.port, config.host);
  const port = (server.address() as AddressInfo).port;
  const urlHost =
    config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  return { server, port, url: `http://${urlHost}:${port}` };
}

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE')
        reject(new Error(`Port ${port} on ${host} is already in use: stop what uses it, or pass --port (0 picks a free one).`));
      else reject(err);
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}
