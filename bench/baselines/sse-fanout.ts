/**
 * The baseline of the event-stream row: bare node:http fanning one Server-Sent Event out to
 * every open stream, the textbook way (`res.write(message)` to each response), with nothing
 * else to do: no key check, no index, no folder made. It answers the few routes the row's
 * subscribers use, with the same bytes Nimbus streams:
 *   GET /api/events                  the stream (`: connected` first)
 *   POST /api/folders/create?…       201, and `folder.added` for that folder to every stream
 *   GET /api/user, POST /api/folders/delete   200 (the row's set-up and tidying)
 * Run as a child process, like the daemon: `node --import tsx bench/baselines/sse-fanout.ts`.
 * Prints `listening <port>`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const streams = new Set<http.ServerResponse>();

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (req.method === 'GET' && url.pathname === '/api/events') {
    req.socket.setNoDelay(true);
    res.writeHead(200, { 'Cache-Control': 'no-cache', 'Content-Type': 'text/event-stream; charset=utf-8' });
    res.write(': connected\n\nretry: 2000\n\n');
    streams.add(res);
    res.on('close', () => streams.delete(res));
    return;
  }
  if (req.method === 'POST' && url.pathname === '/api/folders/create') {
    const event = { type: 'folder.added', username: url.searchParams.get('username'), folder: url.searchParams.get('folder'), file: null };
    const message = `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
    for (const stream of streams) stream.write(message);
    res.writeHead(201, { 'Content-Type': 'application/json; charset=utf-8' }).end('{}');
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end('{}');
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => {
  for (const stream of streams) stream.destroy();
  server.close(() => process.exit(0));
});
