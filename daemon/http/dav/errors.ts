/**
 * WebDAV's refusals that name a precondition (RFC 4918 §16): a <D:error> body with the
 * condition's element, instead of the API's JSON. Thrown like any ApiError; the door
 * (door.ts) writes the XML.
 */
import type { Context } from 'koa';
import type { ErrorCode } from '../../../shared/errors.js';
import { ApiError } from '../../errors.js';
import { dropUnreadBody } from '../unread-body.js';
import { sendXml } from './xml.js';

const CODE_OF: Record<number, ErrorCode> = { 403: 'forbidden', 409: 'conflict', 412: 'precondition_failed', 423: 'locked' };

export class DavCondition extends ApiError {
  constructor(
    status: 403 | 409 | 412 | 423,
    /** The condition's element, already XML: `<D:propfind-finite-depth/>`. */
    readonly conditionXml: string,
    message: string,
  ) {
    super(CODE_OF[status], message, {}, null, status);
  }
}

/** A refusal naming `condition` (a DAV: element name). */
export const davCondition = (status: 403 | 409 | 412 | 423, condition: string, message: string): DavCondition =>
  new DavCondition(status, `<D:${condition}/>`, message);

/** Answers a DavCondition with its <D:error> body. */
export function sendCondition(ctx: Context, err: DavCondition): void {
  dropUnreadBody(ctx.req, ctx.res);
  ctx.set(err.headers);
  sendXml(ctx, err.status, `<?xml version="1.0" encoding="utf-8"?>\n<D:error xmlns:D="DAV:">${err.conditionXml}</D:error>`);
}
