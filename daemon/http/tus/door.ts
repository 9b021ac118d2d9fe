/**
 * The /api/uploads/ door: resumable uploads, tus 1.0 core with the creation,
 * creation-with-upload, termination and expiration extensions (docs/uploads.md). Mounted
 * beside the WebDAV door (app.ts), before the endpoint routing, because tus needs HEAD,
 * PATCH, DELETE and OPTIONS on paths the endpoint table does not describe.
 *
 * Every request but OPTIONS: Tus-Resumable 1.0.0 (else 412), the store available, then the
 * caller authorized exactly as for `files.upload` (its row goes through `authorize`: keys or
 * the session cookie with the same cross-site rule, a read key 403, NIMBUS_REQUIRE_VERIFIED),
 * and only the caller's own uploads (another user's is 404, as a user that does not exist).
 */
import type { Context, Middleware } from 'koa';
import { ENDPOINT_BY_ID } from '../../../shared/endpoints.js';
import { ApiError, databaseUnavailable, notFound } from '../../errors.js';
import type { Caller } from '../../services/keys.js';
import type { TusService } from '../../services/tus-uploads.js';
import { bodyTooLong } from '../../storage/tus-append.js';
import { isUploadId, type TusRecord } from '../../storage/tus-partials.js';
import { admitNamed, authorize, credentialUnknown, type Guards } from '../authorize.js';
import { assertMayPublish } from '../file-handlers.js';
import {
  carriesBytes,
  contentLength,
  parseMetadata,
  refuseConcatenation,
  requireTusResumable,
  targetOf,
  TUS_EXTENSIONS,
  TUS_VERSION,
  uploadLength,
  uploadOffset,
} from './headers.js';
import { Readable } from 'node:stream';

export const TUS_PREFIX = '/api/uploads';
/** The row whose audience and rules a resumable upload shares. */
const UPLOAD_ROW = ENDPOINT_BY_ID['files.upload'];
/** Response headers a page on a configured CORS origin may read. */
const EXPOSED = 'Location, Upload-Offset, Upload-Length, Upload-Expires, Upload-Metadata, Tus-Resumable, Tus-Version, Tus-Extension';

const inDoor = (path: string) => path === TUS_PREFIX || path.startsWith(`${TUS_PREFIX}/`);
/** The paths whose OPTIONS (not a CORS preflight) this door answers: tus's discovery. */
export const answersTusOptions = inDoor;

/** `uploads` is null until they are open (a test app without them): every request but OPTIONS is 501. */
export function tusDoor(guards: Guards, uploads: TusService | null): Middleware {
  return (ctx, next) => (inDoor(ctx.path) ? serve(ctx, guards, uploads) : next());
}

async function serve(ctx: Context, guards: Guards, uploads: TusService | null): Promise<void> {
  ctx.set('Tus-Resumable', TUS_VERSION);
  if (ctx.response.get('Access-Control-Allow-Origin')) ctx.set('Access-Control-Expose-Headers', EXPOSED);
  if (ctx.method === 'OPTIONS') return answerOptions(ctx);
  requireTusResumable(ctx);
  const { nimbus } = guards;
  if (!nimbus.store.available) throw databaseUnavailable();
  // Another daemon may have made this key or session a moment ago (as the dispatch does).
  if (nimbus.store.database && credentialUnknown(nimbus, ctx)) await nimbus.store.catchUp();
  const caller = authorize(guards, ctx, UPLOAD_ROW)!;
  if (!uploads) throw new ApiError('not_implemented', 'Resumable uploads are not open yet; use POST /api/files/upload');
  const id = ctx.path.slice(TUS_PREFIX.length).replace(/^\/+|\/+$/g, '');
  if (id === '') {
    if (ctx.method !== 'POST') throw notAllowed(ctx, 'POST, OPTIONS');
    return create(ctx, guards, uploads, caller);
  }
  if (!isUploadId(id)) throw notFound('upload_not_found', 'No such upload');
  guards.connections.name(ctx.req.socket, ctx.res, caller.username);
  switch (ctx.method) {
    case 'HEAD':
      return answer(ctx, 200, await uploads.head(caller, id), false);
    case 'PATCH': {
      carriesBytes(ctx, true);
      const offset = uploadOffset(ctx);
      assertMayPublish(nimbus, caller);
      return answer(ctx, 204, await uploads.patch(caller, id, offset, ctx.req, contentLength(ctx)), true);
    }
    case 'DELETE':
      await uploads.terminate(caller, id);
      ctx.body = null;
      ctx.status = 204;
      return;
    default:
      throw notAllowed(ctx, 'HEAD, PATCH, DELETE, OPTIONS');
  }
}

/** POST: a new upload (creation), with its first bytes when the body carries them (creation-with-upload). */
async function create(ctx: Context, guards: Guards, uploads: TusService, caller: Caller): Promise<void> {
  refuseConcatenation(ctx);
  const length = uploadLength(ctx);
  const metadata = ctx.get('Upload-Metadata');
  const target = targetOf(parseMetadata(metadata));
  admitNamed(caller, UPLOAD_ROW, target);
  guards.connections.name(ctx.req.socket, ctx.res, target.username);
  assertMayPublish(guards.nimbus, caller);
  const withBytes = carriesBytes(ctx, false);
  const declared = contentLength(ctx);
  if (withBytes && declared !== null && declared > length) throw bodyTooLong();
  const { record } = await uploads.create(target, length, metadata);
  ctx.set('Location', `${TUS_PREFIX}/${record.id}`);
  // An empty upload is finished at once: placed now, as files.upload places an empty body.
  if (withBytes || length === 0) {
    const body = withBytes ? ctx.req : Readable.from([]);
    return answer(ctx, 201, await uploads.patch(caller, record.id, 0, body, withBytes ? declared : 0), true);
  }
  return answer(ctx, 201, record, false);
}

/** The upload's state in tus headers, no body. */
function answer(ctx: Context, status: number, record: TusRecord, offsetOnly: boolean): void {
  ctx.set('Upload-Offset', String(record.offset));
  if (!offsetOnly) {
    ctx.set('Upload-Length', String(record.length));
    if (record.metadata) ctx.set('Upload-Metadata', record.metadata);
  }
  if (!record.done) ctx.set('Upload-Expires', new Date(record.expiresAt).toUTCString());
  ctx.body = null;
  ctx.status = status;
}

/** tus discovery: the version and extensions, to anyone (no credentials needed, nothing revealed). */
async function answerOptions(ctx: Context): Promise<void> {
  ctx.set('Tus-Version', TUS_VERSION);
  ctx.set('Tus-Extension', TUS_EXTENSIONS);
  ctx.body = null;
  ctx.status = 204;
}

function notAllowed(ctx: Context, allow: string): ApiError {
  ctx.set('Allow', allow);
  return new ApiError('method_not_allowed', `Use ${allow}`, { Allow: allow });
}
