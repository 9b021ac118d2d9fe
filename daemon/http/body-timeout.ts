import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '../errors.js';
import { errorBody } from './error-handler.js';

/** How slow a request body may be before it is cut (daemon/config.ts). */
export interface BodyLimits {
  /** No byte for this long while the daemon waits for one: 408 (NIMBUS_BODY_IDLE_SECONDS). */
  idleMs: number;
  /** The average a body must keep once `graceMs` of reading have passed; 0 turns the rule off (NIMBUS_MIN_BODY_RATE). */
  minBytesPerSecond: number;
  /** NIMBUS_MIN_BODY_GRACE_SECONDS. */
  graceMs: number;
}

/** A request whose body is still arriving. */
interface Pending {
  req: IncomingMessage;
  res: ServerResponse;
  socket: Socket;
  /** socket.bytesRead when progress was last seen, and when. */
  bytes: number;
  since: number;
  /** When the response was complete while the body still came (it is being discarded). */
  answeredAt: number;
  /** socket.bytesRead when the request arrived: what came after is its body. */
  startBytes: number;
  /** Time the daemon spent taking bytes from the socket for this body, besides the stretch since `takingSince`. */
  takingMs: number;
  /** Since when the socket is being read; null while it is paused (the daemon does not read). */
  takingSince: number | null;
  onPause: () => void;
  onResume: () => void;
}

/**
 * Aborts a request whose body stops coming, or comes too slowly. server.requestTimeout is off
 * (an upload of many GiB may rightly take hours), so a client that sends an upload's headers
 * and then a byte now and then would hold its connection, its temp file and its quota
 * reservation for ever.
 *
 * Idle means: no byte arrived for `idleMs` while the daemon was waiting for one. Time the
 * daemon itself spends not reading (bytes sit unread in the request) does not count.
 *
 * Too slow means Kestrel's rule (MinRequestBodyDataRate): once the daemon has been taking the
 * body's bytes for `graceMs`, their average over that time must be at least
 * `minBytesPerSecond`. The clock runs only while Node reads the socket: when the daemon stops
 * reading (a disk or bucket slower than the client), the request's buffer fills, Node pauses
 * the socket, and the clock stops until it reads again, so a body the daemon holds up is
 * never held against its client.
 *
 * Either way the client gets 408 if nothing was answered yet, and its connection is closed;
 * the upload's own failure path removes the temp file. A body still coming after the answer
 * (Node reads and discards it, to reuse the connection) gets `idleMs` in all.
 *
 * One timer sweeps every pending body, only while there are some; a request without a
 * body costs two header lookups.
 */
export function limitSlowBodies(server: Server, limits: BodyLimits): void {
  const { idleMs, minBytesPerSecond, graceMs } = limits;
  const pending = new Set<Pending>();
  const periodCap = minBytesPerSecond > 0 ? Math.min(idleMs, graceMs) : idleMs;
  const period = Math.max(50, Math.min(1000, periodCap / 4));
  let timer: NodeJS.Timeout | null = null;
  let lastSweep = 0;

  const forget = (p: Pending) => {
    pending.delete(p);
    p.socket.off('pause', p.onPause);
    p.socket.off('resume', p.onResume);
  };

  const skipStall = (p: Pending, stall: number, now: number) => {
    p.since = Math.min(now, p.since + stall);
    if (p.answeredAt !== 0) p.answeredAt = Math.min(now, p.answeredAt + stall);
    if (p.takingSince !== null) p.takingSince = Math.min(now, p.takingSince + stall);
  };

  const tooSlow = (p: Pending, now: number): boolean => {
    if (minBytesPerSecond <= 0) return false;
    const takingMs = p.takingMs + (p.takingSince === null ? 0 : now - p.takingSince);
    return takingMs >= graceMs && (p.socket.bytesRead - p.startBytes) * 1000 < minBytesPerSecond * takingMs;
  };

  const sweep = () => {
    const now = Date.now();
    // A sweep late by more than a period means the daemon itself did not run (SIGSTOP, a paused
    // VM, a blocked loop): what a client sent meanwhile waits unread in the kernel, and this sweep
    // may run before the daemon reads it. The stall is the daemon's, so every clock moves past it.
    const stall = now - lastSweep - period;
    lastSweep = now;
    if (stall > period) for (const p of pending) skipStall(p, stall, now);
    for (const p of pending) {
      if (p.req.complete || p.socket.destroyed) {
        forget(p);
        continue;
      }
      if (p.res.writableFinished) {
        if (p.answeredAt === 0) p.answeredAt = now;
        else if (now - p.answeredAt >= idleMs) {
          forget(p);
          p.socket.destroy();
        }
        continue;
      }
      const bytes = p.socket.bytesRead;
      if (bytes !== p.bytes || p.req.readableLength > 0) {
        p.bytes = bytes;
        p.since = now;
      } else if (now - p.since >= idleMs) {
        forget(p);
        timeOut(p, `No request body received for ${idleMs / 1000} s`);
        continue;
      }
      if (tooSlow(p, now)) {
        forget(p);
        timeOut(p, `The request body came slower than ${minBytesPerSecond} bytes/s`);
      }
    }
    if (pending.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const length = req.headers['content-length'];
    if ((length === undefined || length === '0') && req.headers['transfer-encoding'] === undefined) return;
    const socket = req.socket;
    const now = Date.now();
    const p: Pending = {
      req,
      res,
      socket,
      bytes: socket.bytesRead,
      since: now,
      answeredAt: 0,
      startBytes: socket.bytesRead,
      takingMs: 0,
      takingSince: socket.isPaused() ? null : now,
      onPause: () => {
        if (p.takingSince !== null) p.takingMs += Date.now() - p.takingSince;
        p.takingSince = null;
      },
      onResume: () => {
        p.takingSince ??= Date.now();
      },
    };
    socket.on('pause', p.onPause);
    socket.on('resume', p.onResume);
    // At once, not at the next sweep: requests following each other on one keep-alive socket
    // would otherwise pile their listeners on it.
    req.once('close', () => forget(p));
    pending.add(p);
    if (!timer) {
      lastSweep = now;
      timer = setInterval(sweep, period);
      timer.unref();
    }
  });
  server.on('close', () => {
    if (timer) clearInterval(timer);
    timer = null;
    for (const p of pending) forget(p);
  });
}

function timeOut({ req, res, socket }: Pending, message: string): void {
  if (res.headersSent || !socket.writable) {
    req.destroy();
    socket.destroy();
    return;
  }
  // Answered here, outside Koa: the handler is still waiting for the body, and Koa leaves a
  // response alone once it has been sent. Destroying the request ends that wait (its reader
  // fails, and an upload removes its temp file); Node would not: once answered, a request
  // is no longer aborted when its connection closes. The body is the error handler's.
  const error = new ApiError('request_timeout', message);
  const body = JSON.stringify(errorBody(error));
  res.shouldKeepAlive = false;
  res.writeHead(error.status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    Connection: 'close',
  });
  res.end(body);
  res.once('finish', () => req.destroy());
  res.once('close', () => req.destroy());
}
