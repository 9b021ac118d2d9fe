/**
 * The daemon's response class (node:http's ServerResponse, given to the server in
 * daemon/http/server.ts): every response carries the inert security headers and its request
 * id, and a JSON answer can go out in one step.
 *
 * Why a subclass: the headers every response needs used to be set with `setHeader` when a
 * request came in, eight calls that node:http validates, lowercases and stores one by one,
 * before Koa's respond set three more. Measured on `GET /api/user` (issue 15, bench/NOTES.md):
 * a Koa app sending the same headers that way costs 64 µs of CPU a request, the same app
 * handing node:http one flat header list in `writeHead` 48 µs, and bare node:http 45 µs.
 * Here the defaults wait until the response starts, which every path does through
 * `writeHead` (Koa's respond, a handler's own writeHead, an implicit header on the first
 * write): `sendJson` gives them in the one list; any other path gets the ones it did not set
 * itself (a download's CSP stays the download's).
 */
import type { Context } from 'koa';
import http, { type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';
import { ADDS_SECURITY_HEADERS, SECURITY_HEADER_LIST } from './security.js';

const JSON_TYPE = 'application/json; charset=utf-8';

export class NimbusResponse extends http.ServerResponse {
  readonly [ADDS_SECURITY_HEADERS] = true;
  /** Sent as X-Request-Id (daemon/http/request-log.ts); empty for none. */
  requestId = '';
  /** The body's length as sent by `sendJson` (its header goes in the one list, which getHeader does not see). */
  sentLength: number | undefined;
  /** Whether the security headers and the request id are still to be added when the response starts. */
  #defaultsPending = true;
  /** Headers of the answer given with `addHeader`, name, value, …: sent with the others. */
  #answerHeaders: string[] = [];

  /** A header of the answer (X-Total-Count), kept for the one list `sendJson` gives node:http; any other start sets it too. */
  addHeader(name: string, value: string): void {
    this.#answerHeaders.push(name, value);
  }

  override writeHead(statusCode: number, statusMessage?: string, headers?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this;
  override writeHead(statusCode: number, headers?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this;
  override writeHead(statusCode: number, ...rest: unknown[]): this {
    if (this.#defaultsPending) this.#addMissingDefaults();
    return (super.writeHead as (statusCode: number, ...rest: unknown[]) => this).call(this, statusCode, ...rest);
  }

  /**
   * Sends a whole JSON body (text, or UTF-8 bytes) with `status` and ends the response. When no header was set
   * before (the common case), the status line and every header go to node:http as one list.
   */
  sendJson(status: number, body: string | Buffer): void {
    this.sentLength = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
    const length = String(this.sentLength);
    if (this.#defaultsPending && this.getHeaderNames().length === 0) {
      this.#defaultsPending = false;
      const headers = [...SECURITY_HEADER_LIST, ...this.#answerHeaders];
      if (this.requestId) headers.push('X-Request-Id', this.requestId);
      headers.push('Content-Type', JSON_TYPE, 'Content-Length', length);
      if (this.#shuttingDown()) headers.push('Connection', 'close');
      super.writeHead(status, headers);
    } else {
      this.statusCode = status;
      this.setHeader('Content-Type', JSON_TYPE);
      this.setHeader('Content-Length', length);
      if (this.#shuttingDown()) this.setHeader('Connection', 'close');
    }
    this.end(body);
  }

  /**
   * Whether the server stopped listening (the daemon is shutting down): the answer then closes
   * its connection, as the error handler does for the others, or an idle keep-alive socket
   * would hold the process until the shutdown's grace period ends.
   */
  #shuttingDown(): boolean {
    return (this.socket as { server?: { listening?: boolean } } | null)?.server?.listening === false;
  }

  #addMissingDefaults(): void {
    this.#defaultsPending = false;
    for (let i = 0; i < SECURITY_HEADER_LIST.length; i += 2) {
      if (!this.hasHeader(SECURITY_HEADER_LIST[i])) this.setHeader(SECURITY_HEADER_LIST[i], SECURITY_HEADER_LIST[i + 1]);
    }
    if (this.requestId && !this.hasHeader('X-Request-Id')) this.setHeader('X-Request-Id', this.requestId);
    for (let i = 0; i < this.#answerHeaders.length; i += 2) this.setHeader(this.#answerHeaders[i], this.#answerHeaders[i + 1]);
  }
}

/** Sets a header of a JSON answer: kept for the one-step write on the daemon's responses, else set as usual. */
export function answerHeader(ctx: Context, name: string, value: string): void {
  if (ctx.res instanceof NimbusResponse) ctx.res.addHeader(name, value);
  else ctx.set(name, value);
}
