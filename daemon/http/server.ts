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
  return http.createServer({ ServerResponse, connectionsCheckingInterval });
}
