/**
 * The renderer's one way to the daemon: JSON calls (fetch), downloads (fetch as a blob),
 * uploads (XMLHttpRequest, for upload progress: fileUpload.ts, sent from here) and the
 * event stream (fetch, because EventSource cannot send the API-Key header). With a key, every
 * request carries it; in a signed-in session (no key) the browser sends the HttpOnly session
 * cookie itself, as every request here is same-origin. A failed call throws an ApiError
 * (apiError.ts).
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
import { ApiError, UNREACHABLE, endsCredential, errorFromBody, isAbort } from './apiError.js';
import { sendFileUpload } from './fileUpload.js';

// What callers have always imported from here.
export { ApiError, UNREACHABLE, endsCredential, errorMessage, isAbort, roomOf, type QuotaRoom } from './apiError.js';

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

  /** Uploads one file as the raw request body, reporting its progress (fileUpload.ts). */
  upload(
    params: ParamsOf<'files.upload'>,
    body: Blob,
    onProgress: (loaded: number, total: number) => void,
    signal: AbortSignal,
  ): Promise<ResponseOf<'files.upload'>> {
    const url = this.url('files.upload', { ...params, overwrite: params.overwrite || undefined });
    const request = { url, apiKey: this.connection.apiKey, onUnauthorized: () => this.#onUnauthorized() };
    return sendFileUpload(request, body, onProgress, signal);
  }
}
