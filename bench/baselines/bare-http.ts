/**
 * The baseline of the API rows: bare node:http answering one fixed JSON body, the same
 * bytes Nimbus sends for the scenario. Run as a child process (like the daemon) so both
 * get a core of their own: `node --import tsx bench/baselines/bare-http.ts <body-file>`.
 * Prints `listening <port>`.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const body = readFileSync(process.argv[2]);
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
