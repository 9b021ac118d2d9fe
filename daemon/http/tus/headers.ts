/**
 * The tus 1.0 request headers (https://tus.io/protocols/resumable-upload), each read and
 * checked before anything is changed: Tus-Resumable, Upload-Length, Upload-Offset, the PATCH
 * body's Content-Type, and Upload-Metadata, whose `username`, `folder`, `filename` and
 * `overwrite` are checked by the very rules of files.upload's parameters (shared/endpoints.ts).
 */
import { isUtf8 } from 'node:buffer';
import type { Context } from 'koa';
import { ENDPOINT_BY_ID, PARAM_CHECKS } from '../../../shared/endpoints.js';
import { ApiError, badRequest } from '../../errors.js';
import type { TusTarget } from '../../services/tus-policy.js';

export const TUS_VERSION = '1.0.0';
export const TUS_EXTENSIONS = 'creation,creation-with-upload,termination,expiration';
/** The one media type of a PATCH body (and of a creation-with-upload's). */
export const OFFSET_OCTET_STREAM = 'application/offset+octet-stream';

/** 412 (with the versions spoken) unless the request speaks tus 1.0.0; the spec's answer to any other. */
export function requireTusResumable(ctx: Context): void {
  const version = ctx.get('Tus-Resumable');
  if (version !== TUS_VERSION)
    throw new ApiError(
      'tus_version_unsupported',
      version ? `Tus-Resumable ${version} is not spoken here; use ${TUS_VERSION}` : `Send Tus-Resumable: ${TUS_VERSION}`,
      { 'Tus-Version': TUS_VERSION },
    );
}

/** A header that must be a whole number of bytes (Upload-Length, Upload-Offset); 400 otherwise. */
function byteCount(ctx: Context, name: string): number {
  const raw = ctx.get(name);
  if (raw === '') throw badRequest(`Missing header: ${name}`, 'missing_parameter');
  const value = Number(raw);
  if (!/^[0-9]{1,16}$/.test(raw) || !Number.isSafeInteger(value)) throw badRequest(`${name} must be a whole number of bytes`);
  return value;
}

/**
 * A part of one file sent as several uploads (tus's concatenation extension, tus-js-client's
 * `parallelUploads`) is 400 before anything is made: the extension is not offered, and its
 * parts carry no metadata, which read as "lacks username" and left the client guessing.
 */
export function refuseConcatenation(ctx: Context): void {
  if (ctx.get('Upload-Concat') !== '')
    throw badRequest(
      `Upload-Concat is not supported here (Tus-Extension: ${TUS_EXTENSIONS}): send the file as one upload (tus-js-client: parallelUploads 1)`,
    );
}

/** Upload-Length of a creation. A deferred length is refused: the quota is held at creation, so the length must be known then. */
export function uploadLength(ctx: Context): number {
  if (ctx.get('Upload-Defer-Length') !== '')
    throw badRequest('Upload-Defer-Length is not supported here: send Upload-Length (the quota is held for it at creation)');
  return byteCount(ctx, 'Upload-Length');
}

export const uploadOffset = (ctx: Context): number => byteCount(ctx, 'Upload-Offset');

/** The request's declared body length, or null (chunked). */
export function contentLength(ctx: Context): number | null {
  const raw = ctx.get('Content-Length');
  return /^[0-9]+$/.test(raw) ? Number(raw) : null;
}

/** Whether the request has a body with the bytes of the upload; 415 for a body of another type. */
export function carriesBytes(ctx: Context, required: boolean): boolean {
  const type = ctx.get('Content-Type').split(';')[0].trim().toLowerCase();
  const length = contentLength(ctx);
  const hasBody = length === null ? ctx.get('Transfer-Encoding') !== '' : length > 0;
  if (type === OFFSET_OCTET_STREAM) return hasBody;
  if (required || hasBody)
    throw new ApiError('unsupported_media_type', `The upload's bytes are sent with Content-Type: ${OFFSET_OCTET_STREAM}`);
  return false;
}

/**
 * Upload-Metadata: comma-separated pairs of a key and its base64 value (a key alone has an
 * empty value). A malformed pair, a repeated key, or a value that is not UTF-8 is 400.
 */
export function parseMetadata(raw: string): Map<string, string> {
  const pairs = new Map<string, string>();
  if (raw.trim() === '') return pairs;
  for (const pair of raw.split(',')) {
    const match = /^\s*([^\s,]+)(?: ([A-Za-z0-9+/]*={0,2}))?\s*$/.exec(pair);
    if (!match || (match[2] !== undefined && match[2].length % 4 !== 0))
      throw badRequest('Upload-Metadata must be comma-separated pairs of a key and its base64 value');
    const [, key, encoded = ''] = match;
    if (pairs.has(key)) throw badRequest(`Upload-Metadata gives ${key} twice`, 'duplicate_parameter');
    const bytes = Buffer.from(encoded, 'base64');
    if (!isUtf8(bytes)) throw badRequest(`Upload-Metadata's ${key} is not UTF-8`);
    pairs.set(key, bytes.toString('utf8'));
  }
  return pairs;
}

/** The longest value a parameter may have (daemon/http/params.ts, MAX_RAW_LENGTH). */
const MAX_VALUE_LENGTH = 8192;
/** files.upload's parameters by their Upload-Metadata keys (`filename` is its `file`); other keys are the client's own. */
const PARAMS_BY_KEY = { username: 'username', folder: 'folder', filename: 'file', overwrite: 'overwrite' } as const;

/**
 * Where the upload goes, checked as files.upload checks its parameters: each by its row's
 * rule, a missing required one or an empty one 400 (`missing_parameter`), a malformed one 400.
 */
export function targetOf(metadata: Map<string, string>): TusTarget {
  const row = ENDPOINT_BY_ID['files.upload'];
  const checked: Record<string, unknown> = {};
  for (const [key, param] of Object.entries(PARAMS_BY_KEY)) {
    const spec = row.params[param];
    const value = metadata.get(key);
    if (value === undefined || value === '') {
      if (spec.required) throw badRequest(`Upload-Metadata lacks ${key}`, 'missing_parameter');
      continue;
    }
    if (value.length > MAX_VALUE_LENGTH) throw badRequest(`Upload-Metadata's ${key} is too long`);
    const result = PARAM_CHECKS[spec.kind](value);
    if (!result.ok) throw badRequest(`Upload-Metadata's ${key} ${result.message}`);
    checked[param] = result.value;
  }
  return {
    username: checked.username as string,
    folder: (checked.folder as string | undefined) ?? null,
    file: checked.file as string,
    overwrite: checked.overwrite === true,
  };
}
