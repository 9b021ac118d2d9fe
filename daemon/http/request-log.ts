/**
 * One log line per request (README, "Logs"): id, method, URL, status, time and size, written
 * when the response ends (so a download or an event stream is logged with its full
 * duration). The id is also sent back as `X-Request-Id`.
 *
 * Never logged: headers (the key travels in `API-Key` or `Authorization`), bodies (passwords
 * in a form or JSON), the value of any query parameter whose name looks secret (DaneeCloud's
 * clients send `password` and `newpassword` in the query; `/verify` takes `token`), and the
 * token of a share link `/s/<token>`.
 */
import { randomBytes } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { NimbusResponse } from './response.js';
import { handWrittenSink, jsonString, lineHead } from '../logging.js';

/** Query parameter names whose values are never written: password, newpassword, token, key, apikey, api-key… */
const SECRET_PARAM = /pass|token|key|secret|auth|session|credential|cookie/i;
const REDACTED = '[redacted]';
/** A path segment after `/s/` is a share token. */
const SHARE_TOKEN = /(^|\/)s\/[^/]*/g;
/** URLs longer than this are cut in the log (a 4 KiB hostile path tells nothing more than its start). */
const MAX_URL = 2048;

/** The URL as it may be logged: share tokens and the values of secret-looking query parameters replaced. */
export function redactUrl(raw: string): string {
  const q = raw.indexOf('?');
  let pathPart = q < 0 ? raw : raw.slice(0, q);
  // Only a path with "s/" in it can hold a share token (a regex replace on every request cost ~3 µs).
  if (pathPart.includes('s/')) pathPart = pathPart.replace(SHARE_TOKEN, `$1s/${REDACTED}`);
  let url = pathPart;
  const query = q < 0 ? '' : raw.slice(q + 1);
  // Most queries name no secret and escape nothing in their names: kept as they are.
  if (q >= 0 && !SECRET_PARAM.test(query) && !query.includes('%')) url += `?${query}`;
  else if (q >= 0) {
    const pairs = query.split('&').map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      const name = pair.slice(0, eq);
      return SECRET_PARAM.test(decodeName(name)) ? `${name}=${REDACTED}` : pair;
    });
    url += `?${pairs.join('&')}`;
  }
  return url.length > MAX_URL ? `${url.slice(0, MAX_URL)}…` : url;
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/**
 * Request ids: a random prefix per daemon and a counter (`3f9c01a2-1b`), unique across
 * restarts and cheaper than a UUID per request. Not taken from the client: a proxy's id
 * could carry anything into the log.
 */
function idSource(): () => string {
  const prefix = randomBytes(4).toString('hex');
  let next = 0;
  return () => `${prefix}-${(++next).toString(36)}`;
}

const isHealthPoll = (url: string | undefined) => url === '/api/health' || url?.startsWith('/api/health?') === true;

/** One request's log line; a fixed shape (pino leaves out the undefined fields). */
export interface RequestLine {
  reqId: string;
  method: string;
  url: string;
  status: number;
  ms: number;
  bytes: number | undefined;
  ip: string | undefined;
  aborted: true | undefined;
}

/** The line's message: what a terminal shows of it. */
export const requestMessage = (r: RequestLine): string => `${r.method} ${r.url} ${r.status} ${r.ms}ms${r.aborted ? ' (aborted)' : ''}`;

/**
 * The line pino writes for `logger[level](r, requestMessage(r))`, key for key, built as one
 * template: the fields are known, and only the URL can need escaping (the id is ours, the
 * method a token node:http checked, the address numeric). Generic code walking the fields
 * cost ~1 µs more a request (bench/NOTES.md, issue 30).
 */
export function requestLineJson(level: 'debug' | 'info' | 'error', r: RequestLine): string {
  const url = jsonString(r.url);
  // The message holds the URL: it needs escaping only when the URL did (escaping adds characters).
  const msg = url.length === r.url.length + 2 ? `"${requestMessage(r)}"` : jsonString(requestMessage(r));
  let line = `${lineHead(level)},"reqId":"${r.reqId}","method":"${r.method}","url":${url},"status":${r.status},"ms":${r.ms}`;
  if (r.bytes !== undefined) line += `,"bytes":${r.bytes}`;
  if (r.ip !== undefined) line += `,"ip":"${r.ip}"`;
  if (r.aborted) line += ',"aborted":true';
  return `${line},"msg":${msg}}\n`;
}

/**
 * Logs each request once its response has ended, and hands its end to `ended` (the metrics'
 * count) with its duration; mount it outside the error handler so it sees the final status.
 * Not an async function: it hands Koa the rest of the chain's promise as it is (one promise
 * less per request).
 */
export function requestLog(logger: Logger, ended: ((ctx: Context, seconds: number) => void) | null = null): Middleware {
  const nextId = idSource();
  return (ctx, next) => {
    const started = performance.now();
    const id = nextId();
    ctx.state.requestId = id;
    const { req, res } = ctx;
    // The daemon's responses send it with their other headers (daemon/http/response.ts).
    if (res instanceof NimbusResponse) res.requestId = id;
    else ctx.set('X-Request-Id', id);
    // Read now: once the connection is gone its address is too (Node keeps it per socket).
    const ip = req.socket.remoteAddress;
    // `on`, not `once`: a response closes once, and once's wrapper is two objects more a request.
    res.on('close', () => {
      const ms = performance.now() - started;
      ended?.(ctx, ms / 1000);
      logRequest(logger, req, res, id, ms, ip);
    });
    return next();
  };
}

function logRequest(
  logger: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  id: string,
  elapsedMs: number,
  ip: string | undefined,
): void {
  const status = res.statusCode;
  // A balancer polls /api/health every few seconds: a healthy answer is not worth a line at info.
  const level = status >= 500 ? 'error' : isHealthPoll(req.url) ? 'debug' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  const ms = Math.round(elapsedMs * 10) / 10;
  const url = redactUrl(req.url ?? '');
  // A one-step JSON answer's headers went to node:http as a list, which getHeader does not see.
  const length = res instanceof NimbusResponse && res.sentLength !== undefined ? res.sentLength : Number(res.getHeader('Content-Length'));
  const line: RequestLine = {
    reqId: id,
    method: req.method ?? '',
    url,
    status,
    ms,
    bytes: Number.isFinite(length) ? length : undefined,
    ip,
    aborted: res.writableFinished ? undefined : true,
  };
  const sink = handWrittenSink(logger);
  if (sink) sink.write(requestLineJson(level, line));
  else logger[level](line, requestMessage(line));
}
