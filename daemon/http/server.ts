/**
 * The daemon's node:http server. Its responses are `NimbusResponse`s, so that every way a
 * response can start (Koa's respond, a handler's own writeHead, an implicit header on the
 * first write) passes through one place (daemon/http/response.ts).
 */
import http from 'node:http';
import { NimbusResponse } from './response.js';

export function createHttpServer(connectionsCheckingInterval: number): http.Server {
  // @types/node declares ServerResponse's constructor generic over the request type, which a
  // subclass cannot repeat; at run time node:http only calls `new ServerResponse(req, options)`.
  const ServerResponse = NimbusResponse as unknown as typeof http.ServerResponse;
  const server = http.createServer({ ServerResponse, connectionsCheckingInterval });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  return server;
}

/**
 * How long an idle keep-alive connection stays open: longer than a reverse proxy keeps its
 * idle upstream connections (nginx: 60 s, deploy/nginx.conf says so), so that the daemon never
 * closes one just as the proxy sends a request on it. Node's default, 5 s, made nginx answer
 * an upload 502 now and then (the soak test caught it): a POST whose body is streamed cannot be
 * retried on another connection.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
