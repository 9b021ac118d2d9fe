/**
 * Errors the daemon's layers throw. Storage and store code throw these; only the
 * error middleware turns them into HTTP responses.
 */
import { ERROR_STATUS, type ErrorCode } from '../shared/errors.js';

/**
 * A small page (daemon/http/pages.ts) to answer instead of `{error, code}`, for the public
 * routes a person opens from a mail or a link: always, or only to a client that prefers HTML
 * over JSON (a browser), so API clients keep the JSON error.
 */
export interface ErrorPage {
  title: string;
  message: string;
  browsersOnly: boolean;
  /** The page's words in the reader's language (daemon/http/page-words.ts), where it has them; else `title` and `message`. */
  words?: 'deadLink' | 'nothingHere' | 'usedLink' | 'noSuchPage';
  /** Instead, the password page of this share link (daemon/http/share-pages.ts); `wrong`: the last try was wrong. */
  passwordFor?: { token: string; wrong: boolean };
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  /** Extra response headers, e.g. Retry-After. */
  readonly headers: Record<string, string>;
  /** Answered as this page rather than JSON (see ErrorPage). */
  readonly page: ErrorPage | null;

  /** `status`: the code's own (ERROR_STATUS), but for the few a route answers otherwise (invalidToken). */
  constructor(
    code: ErrorCode,
    message: string,
    headers: Record<string, string> = {},
    page: ErrorPage | null = null,
    status = ERROR_STATUS[code],
  ) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.headers = headers;
    this.page = page;
  }
}

/** Rethrows a 404 ApiError to be answered as `page`; any other error unchanged. For `.catch()`. */
export const explainedBy =
  (page: ErrorPage) =>
  (err: unknown): never => {
    if (err instanceof ApiError && err.status === 404) throw new ApiError(err.code, err.message, err.headers, page, err.status);
    throw err;
  };

export const badRequest = (message: string, code: ErrorCode = 'invalid_parameter') => new ApiError(code, message);
/**
 * A one-time link (a password reset, an e-mail verification) that is unknown, used or expired:
 * one code for both. The reset's API answers it 400; the verification link, opened in a
 * browser, 404 (a page that is gone), as each always has.
 */
export const invalidToken = (message: string, status: 400 | 404 = 400) => new ApiError('invalid_token', message, {}, null, status);
export const notFound = (code: ErrorCode, message: string) => new ApiError(code, message);
export const conflict = (code: ErrorCode, message: string) => new ApiError(code, message);
/**
 * 409 `conflict` from the database: a commit refused because another daemon changed the same
 * rows first. Nothing of it was written and the store holds the database's rows again, so a
 * change decided on rows this daemon had not yet heard of may be decided once more.
 */
export class CommitConflict extends ApiError {
  constructor() {
    super('conflict', 'Someone else changed this at the same time; the current state was reloaded, try again');
  }
}
/**
 * 507 `quota_exceeded`, with the bytes the request needed (when its size was known) and what
 * was left of the quota, so a client can say both in its own words and units (the body's
 * `needed` and `available`; `error` keeps the daemon's sentence).
 */
export class QuotaExceeded extends ApiError {
  readonly needed: number | null;
  readonly available: number | null;

  constructor(message: string, room: QuotaRoom = {}) {
    super('quota_exceeded', message);
    this.needed = room.needed ?? null;
    this.available = room.available === undefined || room.available === null ? null : Math.max(0, room.available);
  }
}

/** What a quota refusal knows: the bytes asked for, and the bytes free (never below 0). */
export interface QuotaRoom {
  needed?: number | null;
  available?: number | null;
}

export const quotaExceeded = (message = 'Storage quota exceeded', room: QuotaRoom = {}) => new QuotaExceeded(message, room);
/** A name self-registration may not take; it says no more than that (what storage holds is nobody else's business). */
export const nameUnavailable = () => conflict('name_unavailable', 'This name cannot be registered; choose another');
/** An upload or rename onto a name a file already has (the UI words it from the code). */
export const fileTaken = () => conflict('file_exists', 'A file with that name already exists (pass overwrite=true to replace it)');

/**
 * The object store (the bucket) could not be read or written: the server's failure, never the
 * client's, so a 503 with Retry-After that clients and balancers retry. `cause` keeps the
 * store's own error for whoever logs it.
 */
export const bucketUnavailable = (cause?: unknown) =>
  Object.assign(new ApiError('storage_unavailable', 'The file store cannot be reached; try again in a moment', { 'Retry-After': '5' }), {
    cause,
  });

/** The database cannot be reached (the store lost its connection): 503 with Retry-After, as the bucket's. */
export const databaseUnavailable = () =>
  new ApiError('database_unavailable', 'The database cannot be reached; try again in a moment', { 'Retry-After': '5' });

/**
 * The database is there but every pooled connection stayed busy while this request waited
 * for one (Database.isPoolBusy): this request alone answers 503, with the code clients already
 * retry on (a code of its own would ask every client to learn it for the same retry), and a
 * message and a shorter Retry-After that say it is load, not an outage.
 */
export const databaseBusy = () =>
  new ApiError('database_unavailable', 'The database is busy; try again in a moment', { 'Retry-After': '1' });

/** A path that would leave the user's directory: answered as a bad name, never followed. */
export class PathOutsideRoot extends ApiError {
  constructor() {
    super('invalid_parameter', 'Path leaves the user’s directory');
  }
}

/** Maps a filesystem error on a storage path to an API error, or undefined if it is not expected. */
export function fromFsError(err: unknown): ApiError | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return new ApiError('disk_full', 'The disk is full');
  if (code === 'ENAMETOOLONG') return badRequest('Name is too long for the file system');
  return undefined;
}
