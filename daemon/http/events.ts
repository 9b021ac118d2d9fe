import type { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import type { ChangeEvent } from '../../shared/types.js';
import type { Revocations } from '../services/revocations.js';
import type { FileIndex } from '../storage/file-index.js';

const HEARTBEAT_MS = 25_000;
export const DEFAULT_EVENT_BUFFER_BYTES = 1024 * 1024;
/** How long a stream may stay over its buffer limit (a burst being sent) before it counts as not reading. */
const STALL_MS = 5000;
/**
 * Over this many times the limit, a stream is dropped at once, burst or not: the bound on
 * memory. Generous, because one burst is written in one go, before any of it can drain: a
 * copy of a few thousand files queued 1.5 MB for a client that was reading, and a factor
 * of 8 over a 64 KiB limit cut it off (CI, under load).
 */
const HARD_LIMIT_FACTOR = 32;

export interface EventHubOptions {
  /** Streams opened with a revoked credential end at once. */
  revocations?: Revocations;
  /** Unsent bytes one client may hold in the daemon for a few seconds (a burst) before it is dropped. */
  maxBufferedBytes?: number;
  log?: (line: string) => void;
}

/** One client's stream, with what it needs to be ended for revocation or dropped for not reading. */
interface Subscriber {
  stream: PassThrough;
  socket: Socket;
  /** What authenticated the request that opened it (see Revocations). */
  credential: string | null;
  /** For a non-admin: the user whose events it receives (plus `index.state`); null: every event. */
  onlyUser: string | null;
  /** Since when it has been over the buffer limit (0: it is not). */
  overSince: number;
}

/**
 * Server-Sent Events: one `event: <type>` message per change of the file index, whatever
 * caused it, plus the service-level events the daemon publishes (users, roles, shares).
 */
export class EventHub {
  readonly #subscribers = new Set<Subscriber>();
  readonly #heartbeat: NodeJS.Timeout;
  readonly #maxBuffered: number;
  readonly #log: (line: string) => void;

  constructor(index: FileIndex, options: EventHubOptions = {}) {
    this.#maxBuffered = options.maxBufferedBytes ?? DEFAULT_EVENT_BUFFER_BYTES;
    this.#log = options.log ?? (() => undefined);
    index.on('change', (event) => this.publish(event));
    options.revocations?.onRevoke((credential) => this.#endFor(credential));
    this.#heartbeat = setInterval(() => this.#write(': keep-alive\n\n'), HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  /** How many clients are subscribed now. */
  get size(): number {
    return this.#subscribers.size;
  }

  publish(event: ChangeEvent): void {
    if (this.#subscribers.size === 0) return;
    this.#write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`, event);
  }

  /**
   * Turns the response into an event stream that lasts until the client leaves, or until
   * `credential` (the caller's key hash or session) is revoked. With `onlyUser` (a caller who
   * is not an admin) it carries only the events naming that user, and `index.state`.
   */
  attach(ctx: Context, credential: string | null, onlyUser: string | null = null): void {
    const stream = new PassThrough();
    const subscriber: Subscriber = { stream, socket: ctx.req.socket, credential, onlyUser, overSince: 0 };
    this.#subscribers.add(subscriber);
    const drop = () => {
      if (this.#subscribers.delete(subscriber)) stream.end();
    };
    // The response's close is the reliable sign the client left (the request's may come
    // as soon as its empty body is read).
    ctx.res.on('close', drop);
    ctx.req.on('error', drop);
    ctx.req.socket.setTimeout(0);
    ctx.req.socket.setNoDelay(true);
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('X-Accel-Buffering', 'no');
    ctx.type = 'text/event-stream';
    ctx.status = 200;
    ctx.body = stream;
    stream.write(': connected\n\nretry: 2000\n\n');
  }

  close(): void {
    clearInterval(this.#heartbeat);
    for (const { stream } of this.#subscribers) stream.end();
    this.#subscribers.clear();
  }

  #write(chunk: string, event?: ChangeEvent): void {
    let now = 0;
    for (const subscriber of this.#subscribers) {
      if (event && subscriber.onlyUser !== null && event.type !== 'index.state' && event.username !== subscriber.onlyUser) continue;
      // Once the socket and the kernel stop taking bytes, everything written waits in the
      // stream: a client that never reads would grow the daemon without bound. A burst of
      // events (a copy of many files) waits there too, for a moment, even for a client that
      // reads: so a stream is dropped when it stays over the limit for STALL_MS, or at once
      // when it passes HARD_LIMIT_FACTOR times the limit.
      const unsent = subscriber.stream.writableLength + subscriber.stream.readableLength;
      if (unsent <= this.#maxBuffered) subscriber.overSince = 0;
      else {
        now ||= Date.now();
        if (subscriber.overSince === 0) subscriber.overSince = now;
        if (unsent > this.#maxBuffered * HARD_LIMIT_FACTOR || now - subscriber.overSince >= STALL_MS) {
          this.#dropSlow(subscriber, unsent);
          continue;
        }
      }
      subscriber.stream.write(chunk);
    }
  }

  #dropSlow(subscriber: Subscriber, unsent: number): void {
    this.#subscribers.delete(subscriber);
    const { remoteAddress, remotePort } = subscriber.socket;
    this.#log(
      `Nimbus: closed an event stream to ${remoteAddress}:${remotePort} that stopped reading (${Math.round(unsent / 1024)} KiB unsent).`,
    );
    // Destroying the socket frees what is queued for it; an EventSource that resumes reconnects.
    subscriber.stream.destroy();
    subscriber.socket.destroy();
  }

  /** Ends the streams a revoked credential opened; the client sees the stream end. */
  #endFor(credential: string): void {
    for (const subscriber of this.#subscribers) {
      if (subscriber.credential !== credential) continue;
      this.#subscribers.delete(subscriber);
      subscriber.stream.end();
    }
  }
}
