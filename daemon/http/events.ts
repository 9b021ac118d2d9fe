/**
 * GET /api/events: Server-Sent Events, one `event: <type>` message per event of the change
 * feed (daemon/storage/change-feed.ts: the file index, the endpoint rows, the trash, other
 * daemons), written to every stream allowed to see it. Each message carries the feed's `id:`;
 * a client that reconnects with `Last-Event-ID` is first sent what it missed, filtered as its
 * live stream is, or one `reset` event when the feed cannot tell (then it refetches everything).
 *
 * Why streams are written the way they are (issue 15, bench/scenarios/events.ts): with 1,000
 * streams open, every change is 1,000 writes, one per socket, and what each write costs on the
 * way is paid 1,000 times. A stream was a PassThrough piped into the response: per event and
 * per stream, the text encoded again, a Transform, the pipe, the response's chunk framing and a
 * cork until the next tick, then a writev of three buffers. Now each event is encoded and framed
 * once, into the exact bytes a chunked response carries (`<hex length>\r\n<message>\r\n`), and
 * each stream gets them in one `socket.write`: the same bytes on the wire, the status line and
 * headers still written by node:http, the closing chunk too (`res.end()`).
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Context } from 'koa';
import type { ChangeEvent } from '../../shared/types.js';
import type { Revocations } from '../services/revocations.js';
import type { ChangeFeed } from '../storage/change-feed.js';
import { catchUpText, CONNECTED, KEEP_ALIVE, Message, messageText } from './event-messages.js';

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

/** Who opened a stream, as it was authorized: what it may see, and what ends it. */
export interface StreamCaller {
  /** What authenticated the request that opened it (see Revocations). */
  credential: string | null;
  /** For a non-admin: the user whose events it receives (plus `index.state`); null: every event. */
  onlyUser: string | null;
  /**
   * Whether the caller still stands as when the stream opened (the same user, an admin or not
   * as then); null when only a revocation can change that (the admin key, a machine key).
   */
  standsAsOpened: (() => boolean) | null;
}

/** One client's stream, with what it needs to be ended for revocation or dropped for not reading. */
interface Subscriber extends StreamCaller {
  res: ServerResponse;
  socket: Socket;
  /** Whether the response is chunked (HTTP/1.1); an HTTP/1.0 client gets the bare text, its end being the connection's. */
  chunked: boolean;
  /** Since when it has been over the buffer limit (0: it is not). */
  overSince: number;
}

/**
 * The daemon's event streams: who is subscribed, what each may see, and the writing of each
 * event to all of them.
 */
export class EventHub {
  readonly #subscribers = new Set<Subscriber>();
  readonly #changes: ChangeFeed;
  readonly #publishListeners: ((event: ChangeEvent) => void)[] = [];
  readonly #heartbeat: NodeJS.Timeout;
  readonly #maxBuffered: number;
  readonly #log: (line: string) => void;

  constructor(changes: ChangeFeed, options: EventHubOptions = {}) {
    this.#changes = changes;
    this.#maxBuffered = options.maxBufferedBytes ?? DEFAULT_EVENT_BUFFER_BYTES;
    this.#log = options.log ?? (() => undefined);
    changes.subscribe((event, seq) => this.#publish(event, seq));
    options.revocations?.onRevoke((credential) => this.#endFor(credential));
    this.#heartbeat = setInterval(() => this.#write(new Message(KEEP_ALIVE)), HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  /** How many clients are subscribed now. */
  get size(): number {
    return this.#subscribers.size;
  }

  #publish(event: ChangeEvent, seq: number): void {
    if (this.#subscribers.size > 0) this.#write(new Message(messageText(this.#changes.idOf(seq), event)), event);
    for (const listener of this.#publishListeners) listener(event);
  }

  /** Calls `listener` with every event published from now on, once the streams had it. */
  onPublish(listener: (event: ChangeEvent) => void): void {
    this.#publishListeners.push(listener);
  }

  /**
   * Turns the response into an event stream that lasts until the client leaves, until the
   * caller's credential (key hash or session) is revoked, or until the caller no longer stands
   * as it did now (a role change, a rename). With `onlyUser` (a caller who is not an admin) it
   * carries only the events naming that user, and `index.state`. With a `Last-Event-ID`
   * header it starts with what the client missed since that id (or a `reset` event).
   */
  attach(ctx: Context, caller: StreamCaller): void {
    const { req, res } = ctx;
    req.socket.setTimeout(0);
    req.socket.setNoDelay(true);
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('X-Accel-Buffering', 'no');
    ctx.type = 'text/event-stream';
    ctx.status = 200;
    // The stream writes its own response (Koa's respond would pipe a body into it).
    ctx.respond = false;
    if (ctx.method === 'HEAD') {
      res.end();
      return;
    }
    // node:http writes the status line, the headers and the first chunk, and decides the framing.
    res.write(CONNECTED);
    const subscriber: Subscriber = { ...caller, res, socket: req.socket, chunked: res.chunkedEncoding, overSince: 0 };
    // Checked before anything is replayed, as before each live message: a caller who no longer
    // stands as authorized gets nothing, and reconnects to be authorized afresh. (A revoked
    // credential cannot get here: the request was authenticated in this same tick.)
    if (caller.standsAsOpened !== null && !caller.standsAsOpened()) {
      res.end();
      return;
    }
    // The catch-up and the joining happen in one tick: no event can fall between them.
    res.write(catchUpText(this.#changes, ctx.get('Last-Event-ID'), (event) => this.#mayReceive(subscriber, event)));
    this.#subscribers.add(subscriber);
    this.#changes.setReaders(this.#subscribers.size);
    // The response's close is the reliable sign the client left (the request's may come
    // as soon as its empty body is read).
    const drop = () => this.#remove(subscriber);
    res.on('close', drop);
    req.on('error', drop);
  }

  close(): void {
    clearInterval(this.#heartbeat);
    for (const { res } of this.#subscribers) res.end();
    this.#subscribers.clear();
    this.#changes.setReaders(0);
  }

  /** Whether a stream may carry the event: the one audience rule of live delivery and replay alike. */
  #mayReceive(subscriber: Subscriber, event: ChangeEvent): boolean {
    return subscriber.onlyUser === null || event.type === 'index.state' || event.username === subscriber.onlyUser;
  }

  #remove(subscriber: Subscriber): void {
    if (this.#subscribers.delete(subscriber)) this.#changes.setReaders(this.#subscribers.size);
  }

  #write(message: Message, event?: ChangeEvent): void {
    let now = 0;
    for (const subscriber of this.#subscribers) {
      // Asked at each message, before what it may see: a role change or rename is in the store
      // before the event announcing it, and nothing in between may reach a caller who could no
      // longer read it. That event (user.changed, user.removed, here or from another daemon)
      // then ends the stream at once; the client reconnects and is authorized afresh.
      if (subscriber.standsAsOpened !== null && !subscriber.standsAsOpened()) {
        this.#end(subscriber);
        continue;
      }
      if (event && !this.#mayReceive(subscriber, event)) continue;
      const { socket, res } = subscriber;
      // Gone, its close not yet seen: nothing to write to.
      if (socket.destroyed || !socket.writable) continue;
      // Once the socket and the kernel stop taking bytes, everything written waits in the
      // socket (or the response, below): a client that never reads would grow the daemon without bound. A burst of
      // events (a copy of many files) waits there too, for a moment, even for a client that
      // reads: so a stream is dropped when it stays over the limit for STALL_MS, or at once
      // when it passes HARD_LIMIT_FACTOR times the limit.
      const unsent = res.writableLength;
      if (unsent <= this.#maxBuffered) subscriber.overSince = 0;
      else {
        now ||= Date.now();
        if (subscriber.overSince === 0) subscriber.overSince = now;
        if (unsent > this.#maxBuffered * HARD_LIMIT_FACTOR || now - subscriber.overSince >= STALL_MS) {
          this.#dropSlow(subscriber, unsent);
          continue;
        }
      }
      // The socket is the stream's own once node:http gave it to the response; before that (a
      // client pipelining this request behind one still being answered) node:http keeps the
      // stream's bytes for later, and they go through it to come after that answer's.
      if (res.socket === socket) socket.write(message.bytes(subscriber.chunked));
      else res.write(message.text);
    }
  }

  #dropSlow(subscriber: Subscriber, unsent: number): void {
    this.#remove(subscriber);
    const { remoteAddress, remotePort } = subscriber.socket;
    this.#log(
      `Nimbus: closed an event stream to ${remoteAddress}:${remotePort} that stopped reading (${Math.round(unsent / 1024)} KiB unsent).`,
    );
    // Destroying the socket frees what is queued for it; an EventSource that resumes reconnects.
    subscriber.socket.destroy();
  }

  /** Ends the streams a revoked credential opened; the client sees the stream end. */
  #endFor(credential: string): void {
    for (const subscriber of this.#subscribers) if (subscriber.credential === credential) this.#end(subscriber);
  }

  #end(subscriber: Subscriber): void {
    this.#remove(subscriber);
    subscriber.res.end();
  }
}
