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
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface Reply {
  status: number;
  headers: string[];
  body: string;
}

const reply = JSON.parse(readFileSync(process.argv[2], 'utf8')) as Reply;
const body = Buffer.from(reply.body, 'base64');
const length = String(body.length);
const prefix = randomBytes(4).toString('hex');
let served = 0;
const server = http.createServer((_req, res) => {
  res.writeHead(reply.status, [...reply.headers, 'X-Request-Id', `${prefix}-${(++served).toString(36)}`, 'Content-Length', length]);
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
