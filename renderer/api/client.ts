/**
 * The only module that talks to the daemon: JSON calls (fetch), downloads (fetch as a
 * blob), uploads (XMLHttpRequest, for upload progress) and the event stream (fetch,
 * because EventSource cannot send the API-Key header). With a key, every request carries
 * it; in a signed-in session (no key) the browser sends the HttpOnly session cookie itself,
 * as every request here is same-origin.
 */
import i18next from 'i18next';
import {
  ENDPOINT_BY_ID,
  requestTarget,
  type Endpoint,
  type CallParams,
  type EndpointId,
  type JsonEndpointId,
  type ParamsOf,
  type ResponseOf,
} from '../../shared/endpoints.js';
import type { ErrorBody } from '../../shared/types.js';
import { userMessage } from './errorText.js';

export interface Connection {
  /** e.g. http://127.0.0.1:7878 — no trailing slash. */
  baseUrl: string;
  /** null in a session: the cookie authenticates, and the page never holds a key. */
  apiKey: string | null;
}

/**
 * The arguments of a call to `Id`: its parameters (which may be left out when none is
 * required), then an AbortSignal.
 */
export type CallArgs<Id extends EndpointId> =
  Record<string, never> extends ParamsOf<Id>
    ? [params?: CallParams<Id>, signal?: AbortSignal]
    : [params: CallParams<Id>, signal?: AbortSignal];

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

function errorFromBody(status: number, statusText: string, text: string, wait: number | null = null): ApiError {
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

/** Seconds to wait from a 429's Retry-After, or null when it has none. */
function retryAfter(response: Response): number | null {
  const value = Number(response.headers.get('Retry-After') ?? '');
  return Number.isFinite(value) && value > 0 ? Math.ceil(value) : null;
}

export class NimbusClient {
  readonly connection: Connection;
  readonly #onUnauthorized: () => void;

  constructor(connection: Connection, onUnauthorized: () => void = () => {}) {
    this.connection = { ...connection, baseUrl: connection.baseUrl.replace(/\/+$/, '') };
    this.#onUnauthorized = onUnauthorized;
  }

  /** The URL of a call to `id` with `params` (as strings, in the query string or the path). */
  url<Id extends EndpointId>(id: Id, params: CallParams<Id>): string {
    return `${this.connection.baseUrl}${requestTarget(ENDPOINT_BY_ID[id], params)}`;
  }

  #headers(): Record<string, string> {
    // The UI's language, not the browser's: a mail a request causes (a reset, a verification) is written in it.
    const headers: Record<string, string> = i18next.resolvedLanguage ? { 'Accept-Language': i18next.resolvedLanguage } : {};
    return this.connection.apiKey === null ? headers : { ...headers, 'API-Key': this.connection.apiKey };
  }

  async #fetch(input: string, init: RequestInit): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(input, { ...init, headers: { ...this.#headers(), ...(init.headers ?? {}) } });
    } catch (error) {
      if (isAbort(error)) throw error;
      throw new ApiError(0, 'unreachable', UNREACHABLE);
    }
    if (!response.ok) {
      const error = errorFromBody(response.status, response.statusText, await response.text().catch(() => ''), retryAfter(response));
      if (endsCredential(error)) this.#onUnauthorized();
      throw error;
    }
    return response;
  }

  /**
   * Calls a JSON endpoint of the shared endpoint table by its id, with the parameters its row
   * declares (`ParamsOf<Id>`, in the query string), and answers what it answers (`ResponseOf<Id>`).
   */
  async call<Id extends JsonEndpointId>(id: Id, ...[params, signal]: CallArgs<Id>): Promise<ResponseOf<Id>> {
    const endpoint: Endpoint = ENDPOINT_BY_ID[id];
    const all: Readonly<Record<string, unknown>> = params ?? {};
    if (endpoint.method === 'GET') {
      const response = await this.#fetch(this.url(id, params ?? ({} as CallParams<Id>)), { method: 'GET', signal });
      return (await response.json()) as ResponseOf<Id>;
    }
    // A POST sends its parameters as a JSON body (path parameters stay in the path): passwords
    // and tokens never appear in a URL, and /api/auth/* accepts them only there.
    const inPath = Object.fromEntries(Object.entries(all).filter(([name]) => endpoint.params[name]?.in === 'path'));
    const body = Object.fromEntries(
      Object.entries(all)
        .filter(([name, value]) => endpoint.params[name]?.in !== 'path' && value !== undefined && value !== null)
        .map(([name, value]) => [name, String(value)]),
    );
    const response = await this.#fetch(`${this.connection.baseUrl}${requestTarget(endpoint, inPath)}`, {
      method: 'POST',
      signal,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await response.json()) as ResponseOf<Id>;
  }

  /** A file's bytes, fetched with the key (a plain link could not send the header). */
  async download(params: ParamsOf<'files.download'>): Promise<Blob> {
    const response = await this.#fetch(this.url('files.download', params), { method: 'GET' });
    return response.blob();
  }

  /** An earlier version's bytes (files.versions.download), fetched with the key. */
  async downloadVersion(params: ParamsOf<'files.versions.download'>): Promise<Blob> {
    const response = await this.#fetch(this.url('files.versions.download', params), { method: 'GET' });
    return response.blob();
  }

  /** Uploads a picture for a role's badge (role.badge.upload): the picture's bytes are the body. */
  async uploadBadge(picture: Blob): Promise<ResponseOf<'role.badge.upload'>> {
    const response = await this.#fetch(this.url('role.badge.upload', {}), {
      method: 'POST',
      headers: { 'Content-Type': 'application/octet-stream' },
      body: picture,
    });
    return (await response.json()) as ResponseOf<'role.badge.upload'>;
  }

  /** Opens the Server-Sent Events stream (after `lastEventId`, what came since first); the caller reads and parses the body. */
  async events(signal: AbortSignal, lastEventId: string | null = null): Promise<ReadableStream<Uint8Array>> {
    const response = await this.#fetch(this.url('events', {}), {
      method: 'GET',
      signal,
      headers: { Accept: 'text/event-stream', ...(lastEventId === null ? {} : { 'Last-Event-ID': lastEventId }) },
      cache: 'no-store',
    });
    if (!response.body) throw new ApiError(0, 'no_stream', 'The event stream has no body');
    return response.body;
  }

  /**
   * Uploads one file as the raw request body. XMLHttpRequest rather than fetch because
   * only it reports upload progress.
   */
  upload(
    params: ParamsOf<'files.upload'>,
    body: Blob,
    onProgress: (loaded: number, total: number) => void,
    signal: AbortSignal,
  ): Promise<ResponseOf<'files.upload'>> {
    const endpoint = ENDPOINT_BY_ID['files.upload'];
    const url = this.url('files.upload', { ...params, overwrite: params.overwrite || undefined });
    return new Promise((resolve, reject) => {
      if (signal.aborted) {
        reject(new DOMException('Upload cancelled', 'AbortError'));
        return;
      }
      const xhr = new XMLHttpRequest();
      const onAbort = (): void => xhr.abort();
      signal.addEventListener('abort', onAbort, { once: true });
      xhr.open(endpoint.method, url);
      if (this.connection.apiKey !== null) xhr.setRequestHeader('API-Key', this.connection.apiKey);
      xhr.setRequestHeader('Content-Type', 'application/octet-stream');
      xhr.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : body.size);
      xhr.onload = () => {
        signal.removeEventListener('abort', onAbort);
        if (xhr.status >= 200 && xhr.status < 300) {
          onProgress(body.size, body.size);
          try {
            resolve(JSON.parse(xhr.responseText) as ResponseOf<'files.upload'>);
          } catch {
            reject(new ApiError(xhr.status, 'bad_response', 'The daemon sent an unreadable answer'));
          }
          return;
        }
        const error = errorFromBody(xhr.status, xhr.statusText, xhr.responseText);
        if (endsCredential(error)) this.#onUnauthorized();
        reject(error);
      };
      xhr.onerror = () => {
        signal.removeEventListener('abort', onAbort);
        reject(new ApiError(0, 'unreachable', UNREACHABLE));
      };
      xhr.onabort = () => reject(new DOMException('Upload cancelled', 'AbortError'));
      xhr.send(body);
    });
  }
}
