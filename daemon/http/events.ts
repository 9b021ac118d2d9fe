import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import type { ChangeEvent } from '../../shared/types.js';
import type { FileIndex } from '../storage/file-index.js';

const HEARTBEAT_MS = 25_000;

/**
 * Server-Sent Events: one `event: <type>` message per change of the file index, whatever
 * caused it, plus the service-level events the daemon publishes (users, roles, shares).
 */
export class EventHub {
  readonly #streams = new Set<PassThrough>();
  readonly #heartbeat: NodeJS.Timeout;

  constructor(index: FileIndex) {
    index.on('change', (event) => this.publish(event));
    this.#heartbeat = setInterval(() => this.#write(': keep-alive\n\n'), HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  publish(event: ChangeEvent): void {
    if (this.#streams.size === 0) return;
    this.#write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  }

  /** Turns the response into an event stream that lasts until the client leaves. */
  attach(ctx: Context): void {
    const stream = new PassThrough();
    this.#streams.add(stream);
    const drop = () => {
      if (this.#streams.delete(stream)) stream.end();
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
    for (const stream of this.#streams) stream.end();
    this.#streams.clear();
  }

  #write(chunk: string): void {
    for (const stream of this.#streams) stream.write(chunk);
  }
}
