/**
 * A failed call to the daemon, whichever way it was sent (fetch in client.ts, XMLHttpRequest in
 * fileUpload.ts): the error, how it is read from the daemon's answer, and how it is worded.
 */
import type { ErrorBody } from '../../shared/types.js';
import { userMessage } from './errorText.js';

/** A failed call: the daemon's `error` message and `code`, or status 0 when it could not be reached. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** Seconds until trying again may work (a 429's Retry-After), when the daemon said. */
  readonly retryAfter: number | null;
  /** A quota refusal's bytes: what was needed and what was free, as far as the daemon said. */
  readonly room: QuotaRoom | null;
  constructor(status: number, code: string, message: string, retryAfter: number | null = null, room: QuotaRoom | null = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
    this.room = room;
  }
}

/** A 507 `quota_exceeded` body's `needed` and `available` bytes (null where it has none). */
export interface QuotaRoom {
  needed: number | null;
  available: number | null;
}

/** The room a daemon's error body states, or null when it states none. */
export function roomOf(body: { needed?: unknown; available?: unknown }): QuotaRoom | null {
  const count = (value: unknown) => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null);
  const room = { needed: count(body.needed), available: count(body.available) };
  return room.needed === null && room.available === null ? null : room;
}

export const UNREACHABLE = 'Cannot reach the Nimbus daemon';

export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

/** The message to show a person for any thrown value (API wording reworded: see errorText.ts). */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return userMessage(error.code, error.message, error.retryAfter);
  if (error instanceof Error && error.message) return error.message;
  return 'Something went wrong';
}

function isErrorBody(value: unknown): value is ErrorBody {
  return typeof value === 'object' && value !== null && typeof (value as ErrorBody).error === 'string';
}

/** The error a failed answer stands for: its JSON error body when it has one, else its status line. */
export function errorFromBody(status: number, statusText: string, text: string, wait: number | null = null): ApiError {
  try {
    const body: unknown = JSON.parse(text);
    if (isErrorBody(body)) return new ApiError(status, body.code ?? 'error', body.error, wait, roomOf(body));
  } catch {
    // not JSON: fall through to the status line
  }
  if (status === 500) return new ApiError(status, 'internal', 'The daemon hit an internal error');
  return new ApiError(status, 'http_' + status, `${status} ${statusText || 'Request failed'}`.trim());
}

/**
 * Whether a failed call means the key or session no longer works (back to sign-in). A wrong
 * password is also a 401 (`invalid_credentials`, from sign-in or a password change): that one
 * is the person's typo, not the end of their session.
 */
export function endsCredential(error: ApiError): boolean {
  return error.status === 401 && error.code !== 'invalid_credentials';
}
