/**
 * The baseline of the API rows: bare node:http answering with the same bytes Nimbus sends for
 * the scenario — its status, its headers (the security headers and the rest, a fresh
 * X-Request-Id of the same form per request) and its JSON body — in the fastest way node:http
 * offers (one flat header list to writeHead, one end). Run as a child process (like the
 * daemon) so both get a core of their own:
 * `node --import tsx bench/baselines/bare-http.ts <reply.json>`, where reply.json is
 * `{status, headers: [name, value, …], body}` (headers without Date, Connection, Keep-Alive,
 * Content-Length and X-Request-Id, which node:http or this server add). Prints `listening <port>`.
 */
import http from 'node:http';
import { readReply, requestIds, serveOnLoopback } from './recorded-reply.js';

const reply = readReply(process.argv[2]);
const length = String(reply.body.length);
const nextId = requestIds();
const server = http.createServer((_req, res) => {
  res.writeHead(reply.status, [...reply.headers, 'X-Request-Id', nextId(), 'Content-Length', length]);
  res.end(reply.body);
});
serveOnLoopback(server);
