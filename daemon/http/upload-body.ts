/**
 * What an upload's request body holds, by its Content-Type (issue 22): the file's raw bytes,
 * or a multipart/form-data form whose one file part is the file. Any other form encoding is
 * refused with 415 before a byte is read: stored as it came, the file would be the form's
 * encoding of it (curl's --data-binary sends application/x-www-form-urlencoded by default).
 */
import type { Context } from 'koa';
import type { Readable } from 'node:stream';
import { ApiError } from '../errors.js';
import { FormFilePart } from './form-file.js';

/** The file's bytes and, when the client said how many, their number. */
export interface UploadBody {
  body: Readable;
  /** Content-Length of a raw body; null for a form (its length is the form's, not the file's) or a chunked body. */
  declaredLength: number | null;
}

/** Encodings of form fields (HTML's enctypes besides multipart/form-data and text/plain): never a file's content. */
const FORM_ENCODINGS = new Set(['application/x-www-form-urlencoded']);

/** The media type of a Content-Type header, lower-case and without parameters; '' when there is none. */
function mediaTypeOf(contentType: string): string {
  const semicolon = contentType.indexOf(';');
  return (semicolon < 0 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}

/**
 * Runs `upload` with the file's bytes from the request: the raw body (no Content-Type,
 * application/octet-stream or any ordinary media type: image/jpeg, text/plain…) or a form's
 * file part. 415 `unsupported_media_type` for another form encoding or multipart type, before
 * any byte of the body is read. A form still being read when `upload` fails (a 507 mid-file) is
 * let go of, its rest read and dropped.
 */
export async function withUploadBody<T>(ctx: Context, upload: (body: UploadBody) => Promise<T>): Promise<T> {
  const type = mediaTypeOf(ctx.get('Content-Type'));
  if (type === 'multipart/form-data') {
    const part = new FormFilePart(ctx.req);
    try {
      return await upload({ body: part, declaredLength: null });
    } finally {
      part.destroy();
    }
  }
  if (FORM_ENCODINGS.has(type) || type.startsWith('multipart/'))
    throw new ApiError(
      'unsupported_media_type',
      `A body of type ${type} is a form, not a file: send the file's bytes as the body with Content-Type: application/octet-stream ` +
        `(curl --data-binary @file -H 'Content-Type: application/octet-stream'), or as a multipart/form-data form (curl -F file=@file)`,
    );
  const length = ctx.get('Content-Length');
  return upload({ body: ctx.req, declaredLength: /^\d+$/.test(length) ? Number(length) : null });
}
