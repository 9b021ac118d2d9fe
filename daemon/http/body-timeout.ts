import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '../errors.js';
import { errorBody } from './error-handler.js';

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
}

/**
 * Aborts a request whose body stops coming. server.requestTimeout is off (an upload of many
 * GiB may rightly take hours), so a client that sends an upload's headers and then a byte
 * now and then would hold its connection, its temp file and its quota reservation for ever.
 *
 * Idle means: no byte arrived for `idleMs` while the daemon was waiting for one. Time the
 * daemon itself spends not reading (bytes sit unread in the request) does not count. An
 * idle client gets 408 if nothing was answered yet, and its connection is closed; the
 * upload's own failure path removes the temp file. A body still coming after the answer
 * (Node reads and discards it, to reuse the connection) gets `idleMs` in all.
 *
 * One timer sweeps every pending body, only while there are some; a request without a
 * body costs two header lookups.
 */
export function limitBodyIdle(server: Server, idleMs: number): void {
  const pending = new Set<Pending>();
  const period = Math.max(50, Math.min(1000, idleMs / 4));
  let timer: NodeJS.Timeout | null = null;

  const sweep = () => {
    const now = Date.now();
    for (const p of pending) {
      if (p.req.complete || p.socket.destroyed) {
        pending.delete(p);
        continue;
      }
      if (p.res.writableFinished) {
        if (p.answeredAt === 0) p.answeredAt = now;
        else if (now - p.answeredAt >= idleMs) {
          pending.delete(p);
          p.socket.destroy();
        }
        continue;
      }
      const bytes = p.socket.bytesRead;
      if (bytes !== p.bytes || p.req.readableLength > 0) {
        p.bytes = bytes;
        p.since = now;
      } else if (now - p.since >= idleMs) {
        pending.delete(p);
        timeOut(p, idleMs);
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
    pending.add({ req, res, socket: req.socket, bytes: req.socket.bytesRead, since: Date.now(), answeredAt: 0 });
    if (!timer) {
      timer = setInterval(sweep, period);
      timer.unref();
    }
  });
  server.on('close', () => {
    if (timer) clearInterval(timer);
    timer = null;
    pending.clear();
  });
}

function timeOut({ req, res, socket }: Pending, idleMs: number): void {
  if (res.headersSent || !socket.writable) {
    req.destroy();
    socket.destroy();
    return;
  }
  // Answered here, outside Koa: the handler is still waiting for the body, and Koa leaves a
  // response alone once it has been sent. Destroying the request ends that wait (its reader
  // fails, and an upload removes its temp file); Node would not: once answered, a request
  // is no longer aborted when its connection closes. The body is the error handler's.
  const error = new ApiError('request_timeout', `No request body received for ${idleMs / 1000} s`);
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
