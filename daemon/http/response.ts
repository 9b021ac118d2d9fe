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
import http, { type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';
import { ADDS_SECURITY_HEADERS, SECURITY_HEADER_LIST } from './security.js';

const JSON_TYPE = 'application/json; charset=utf-8';

export class NimbusResponse extends http.ServerResponse {
  readonly [ADDS_SECURITY_HEADERS] = true;
  /** Sent as X-Request-Id (daemon/http/request-log.ts); empty for none. */
  requestId = '';
  /** Whether the security headers and the request id are still to be added when the response starts. */
  #defaultsPending = true;

  override writeHead(statusCode: number, statusMessage?: string, headers?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this;
  override writeHead(statusCode: number, headers?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this;
  override writeHead(statusCode: number, ...rest: unknown[]): this {
    if (this.#defaultsPending) this.#addMissingDefaults();
    return (super.writeHead as (statusCode: number, ...rest: unknown[]) => this).call(this, statusCode, ...rest);
  }

  /**
   * Sends a whole JSON body with `status` and ends the response. When no header was set
   * before (the common case), the status line and every header go to node:http as one list.
   */
  sendJson(status: number, body: string): void {
    const length = String(Buffer.byteLength(body));
    if (this.#defaultsPending && this.getHeaderNames().length === 0) {
      this.#defaultsPending = false;
      const headers = this.requestId
        ? [...SECURITY_HEADER_LIST, 'X-Request-Id', this.requestId, 'Content-Type', JSON_TYPE, 'Content-Length', length]
        : [...SECURITY_HEADER_LIST, 'Content-Type', JSON_TYPE, 'Content-Length', length];
      super.writeHead(status, headers);
    } else {
      this.statusCode = status;
      this.setHeader('Content-Type', JSON_TYPE);
      this.setHeader('Content-Length', length);
    }
    this.end(body);
  }

  #addMissingDefaults(): void {
    this.#defaultsPending = false;
    for (let i = 0; i < SECURITY_HEADER_LIST.length; i += 2) {
      if (!this.hasHeader(SECURITY_HEADER_LIST[i])) this.setHeader(SECURITY_HEADER_LIST[i], SECURITY_HEADER_LIST[i + 1]);
    }
    if (this.requestId && !this.hasHeader('X-Request-Id')) this.setHeader('X-Request-Id', this.requestId);
  }
}
