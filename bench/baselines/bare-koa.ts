/**
 * The framework's floor for the API rows: a Koa app with nothing of Nimbus in it, answering
 * with the same status, headers and JSON body as bare-http.ts does, the way a Koa app would
 * (`ctx.set` for the headers, the parsed body given to `ctx.body`, so Koa serializes it per
 * request as Nimbus does). Where Nimbus stands beside this server is what Nimbus's own work
 * costs; where this server stands beside bare-http.ts is what Koa costs on the machine.
 * `node --import tsx bench/baselines/bare-koa.ts <reply.json>` (bare-http.ts's file). Prints
 * `listening <port>`.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';

interface Reply {
  status: number;
  headers: string[];
  body: string;
}

const reply = JSON.parse(readFileSync(process.argv[2], 'utf8')) as Reply;
const headers: Record<string, string> = {};
for (let i = 0; i < reply.headers.length; i += 2) headers[reply.headers[i]] = reply.headers[i + 1];
const body: unknown = JSON.parse(Buffer.from(reply.body, 'base64').toString('utf8'));
const prefix = randomBytes(4).toString('hex');
let served = 0;
const app = new Koa();
app.use((ctx) => {
  ctx.set(headers);
  ctx.set('X-Request-Id', `${prefix}-${(++served).toString(36)}`);
  ctx.status = reply.status;
  ctx.body = body;
});
const server = http.createServer(app.callback());
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
