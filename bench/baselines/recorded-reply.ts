/**
 * What bare-http.ts and bare-koa.ts share: the reply Nimbus sent, recorded by
 * bench/scenarios/api.ts (`{status, headers: [name, value, …], body}`, the body base64), request
 * ids of Nimbus's form, and the loopback listener that prints `listening <port>`.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedReply {
  status: number;
  headers: string[];
  body: Buffer;
}

export function readReply(file: string): RecordedReply {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { status: number; headers: string[]; body: string };
  return { ...raw, body: Buffer.from(raw.body, 'base64') };
}

/** A fresh X-Request-Id per call, a random prefix and a counter, as Nimbus makes them. */
export function requestIds(): () => string {
  const prefix = randomBytes(4).toString('hex');
  let served = 0;
  return () => `${prefix}-${(++served).toString(36)}`;
}

/** Listens on a free loopback port, says which on stdout, and closes on SIGTERM. */
export function serveOnLoopback(server: http.Server): void {
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
