/**
 * The framework's floor for the API rows: a Koa app with nothing of Nimbus in it, answering
 * with the same status, headers and JSON body as bare-http.ts does, the way a Koa app would
 * (`ctx.set` for the headers, the parsed body given to `ctx.body`, so Koa serializes it per
 * request as Nimbus does). Where Nimbus stands beside this server is what Nimbus's own work
 * costs; where this server stands beside bare-http.ts is what Koa costs on the machine.
 * `node --import tsx bench/baselines/bare-koa.ts <reply.json>` (bare-http.ts's file). Prints
 * `listening <port>`.
 */
import http from 'node:http';
import Koa from 'koa';
import { readReply, requestIds, serveOnLoopback } from './recorded-reply.js';

const reply = readReply(process.argv[2]);
const headers: Record<string, string> = {};
for (let i = 0; i < reply.headers.length; i += 2) headers[reply.headers[i]] = reply.headers[i + 1];
const body: unknown = JSON.parse(reply.body.toString('utf8'));
const nextId = requestIds();
const app = new Koa();
app.use((ctx) => {
  ctx.set(headers);
  ctx.set('X-Request-Id', nextId());
  ctx.status = reply.status;
  ctx.body = body;
});
serveOnLoopback(http.createServer(app.callback()));
