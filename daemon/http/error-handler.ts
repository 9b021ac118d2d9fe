import type { Middleware } from 'koa';
import { ERROR_STATUS, type ErrorCode } from '../../shared/errors.js';
import type { ErrorBody } from '../../shared/types.js';
import { ApiError, QuotaExceeded, fromFsError } from '../errors.js';
import { pageWords } from './page-words.js';
import { sendPage } from './pages.js';
import { sendSharePassword } from './share-pages.js';
import { redactUrl } from './request-log.js';
import { dropUnreadBody } from './unread-body.js';

const CODE_FOR_STATUS: Record<number, ErrorCode> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  416: 'range_not_satisfiable',
  429: 'too_many_requests',
};

/**
 * The one place errors become responses: `{error, code}` with the error's status (or the
 * small page an ApiError carries for a person: `ErrorPage`, daemon/errors.ts). The
 * message is shown only for 4xx and the API's own errors; anything unexpected is a 500
 * with `code: "internal"` and no message, and is logged (never with request headers).
 * Once shutdown has begun (the server stopped listening), every answer also closes its
 * connection: a keep-alive socket that turned idle after the close would otherwise hold
 * the process until the shutdown grace period ends.
 */
export function errorHandler(log: (line: string) => void): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const apiError = toApiError(err, ctx.req.destroyed);
      if (!apiError) {
        log(
          `Nimbus: internal error on ${ctx.method} ${redactUrl(ctx.path)} (request ${ctx.state.requestId}): ${(err as Error)?.stack ?? String(err)}`,
        );
      }
      const status = apiError?.status ?? 500;
      ctx.status = status;
      ctx.set(apiError?.headers ?? {});
      ctx.remove('Content-Disposition');
      dropUnreadBody(ctx.req, ctx.res);
      const page = apiError?.page;
      if (page?.passwordFor && ctx.accepts('json', 'html') === 'html') {
        sendSharePassword(ctx, page.passwordFor.token, page.passwordFor.wrong);
        return;
      }
      if (page && !page.passwordFor && (!page.browsersOnly || ctx.accepts('json', 'html') === 'html')) {
        const { w } = pageWords(ctx);
        const [title, message] = page.words ? [w[`${page.words}Title`], w[`${page.words}Message`]] : [page.title, page.message];
        sendPage(ctx, status, title, message);
        return;
      }
      ctx.type = 'application/json';
      ctx.body = errorBody(apiError);
      // A client that sent the whole body of a refused upload is told not to send another on this
      // connection; one still sending is read to the end instead (unread-body.ts says why).
      if (ctx.req.complete && (status === 413 || status === 507)) ctx.set('Connection', 'close');
    } finally {
      const server = (ctx.req.socket as { server?: { listening?: boolean } }).server;
      if (server?.listening === false && !ctx.headerSent) ctx.set('Connection', 'close');
    }
  };
}

/**
 * The body of an error response: the ApiError's message and code, or a bare `internal` for
 * anything else; a quota refusal adds the bytes it needed and those free, where it knows them.
 */
export function errorBody(error: ApiError | null): ErrorBody {
  if (!error) return { error: 'Internal error', code: 'internal' };
  const body: ErrorBody = { error: error.message, code: error.code };
  if (error instanceof QuotaExceeded) {
    if (error.needed !== null) body.needed = error.needed;
    if (error.available !== null) body.available = error.available;
  }
  return body;
}

function toApiError(err: unknown, clientGone: boolean): ApiError | null {
  if (err instanceof ApiError) return err;
  const fsError = fromFsError(err);
  if (fsError) return fsError;
  const status = (err as { status?: unknown }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const code = CODE_FOR_STATUS[status] ?? 'bad_request';
    return new ApiError(code, ERROR_STATUS[code] === status ? (err as Error).message : 'Bad request');
  }
  if (clientGone) return new ApiError('bad_request', 'The client went away');
  return null;
}
