/**
 * The only module that talks to the daemon: JSON calls (fetch), downloads (fetch as a
 * blob), uploads (XMLHttpRequest, for upload progress) and the event stream (fetch,
 * because EventSource cannot send the API-Key header).
 */
import { ENDPOINT_BY_ID } from '../../shared/endpoints';
import type { ErrorBody } from '../../shared/types';
import { userMessage } from './errorText';
import type { JsonEndpointId, ResponseMap } from './responses';

export interface Connection {
  /** e.g. http://127.0.0.1:7878 — no trailing slash. */
  baseUrl: string;
  apiKey: string;
}

export type Params = Record<string, string | number | boolean | null | undefined>;

/** A failed call: the daemon's `error` message and `code`, or status 0 when it could not be reached. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

export const UNREACHABLE = 'Cannot reach the Nimbus daemon';

export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

/** The message to show a person for any thrown value (API wording reworded: see errorText.ts). */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return userMessage(error.code, error.message);
  if (error instanceof Error && error.message) return error.message;
  return 'Something went wrong';
}

function isErrorBody(value: unknown): value is ErrorBody {
  return typeof value === 'object' && value !== null && typeof (value as ErrorBody).error === 'string';
}

function errorFromBody(status: number, statusText: string, text: string): ApiError {
  try {
    const body: unknown = JSON.parse(text);
    if (isErrorBody(body)) return new ApiError(status, body.code ?? 'error', body.error);
  } catch {
    // not JSON: fall through to the status line
  }
  if (status === 500) return new ApiError(status, 'internal', 'The daemon hit an internal error');
  return new ApiError(status, 'http_' + status, `${status} ${statusText || 'Request failed'}`.trim());
}

export class NimbusClient {
  readonly connection: Connection;
  readonly #onUnauthorized: () => void;

  constructor(connection: Connection, onUnauthorized: () => void = () => {}) {
    this.connection = { ...connection, baseUrl: connection.baseUrl.replace(/\/+$/, '') };
    this.#onUnauthorized = onUnauthorized;
  }

  url(path: string, params: Params = {}): string {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) {
      if (value === undefined || value === null) continue;
      query.set(key, String(value));
    }
    const qs = query.toString();
    return `${this.connection.baseUrl}${path}${qs ? `?${qs}` : ''}`;
  }

  #headers(): Record<string, string> {
    return { 'API-Key': this.connection.apiKey };
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
      const error = errorFromBody(response.status, response.statusText, await response.text().catch(() => ''));
      if (response.status === 401) this.#onUnauthorized();
      throw error;
    }
    return response;
  }

  /** Calls a JSON endpoint of the shared endpoint table with its parameters in the query string. */
  async call<K extends JsonEndpointId>(id: K, params: Params = {}, signal?: AbortSignal): Promise<ResponseMap[K]> {
    const endpoint = ENDPOINT_BY_ID[id];
    const response = await this.#fetch(this.url(endpoint.path, params), { method: endpoint.method, signal });
    return (await response.json()) as ResponseMap[K];
  }

  /** A file's bytes, fetched with the key (a plain link could not send the header). */
  async download(params: { username: string; file: string; folder?: string | null }): Promise<Blob> {
    const endpoint = ENDPOINT_BY_ID['files.download'];
    const response = await this.#fetch(this.url(endpoint.path, params), { method: 'GET' });
    return response.blob();
  }

  /** Opens the Server-Sent Events stream; the caller reads and parses the body. */
  async events(signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    const endpoint = ENDPOINT_BY_ID.events;
    const response = await this.#fetch(this.url(endpoint.path), {
      method: 'GET',
      signal,
      headers: { Accept: 'text/event-stream' },
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
    params: { username: string; file: string; folder?: string | null; overwrite?: boolean },
    body: Blob,
    onProgress: (loaded: number, total: number) => void,
    signal: AbortSignal,
  ): Promise<ResponseMap['files.upload']> {
    const endpoint = ENDPOINT_BY_ID['files.upload'];
    const url = this.url(endpoint.path, { ...params, overwrite: params.overwrite ? 'true' : undefined });
    return new Promise((resolve, reject) => {
      if (signal.aborted) {
        reject(new DOMException('Upload cancelled', 'AbortError'));
        return;
      }
      const xhr = new XMLHttpRequest();
      const onAbort = (): void => xhr.abort();
      signal.addEventListener('abort', onAbort, { once: true });
      xhr.open(endpoint.method, url);
      xhr.setRequestHeader('API-Key', this.connection.apiKey);
      xhr.setRequestHeader('Content-Type', 'application/octet-stream');
      xhr.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : body.size);
      xhr.onload = () => {
        signal.removeEventListener('abort', onAbort);
        if (xhr.status >= 200 && xhr.status < 300) {
          onProgress(body.size, body.size);
          try {
            resolve(JSON.parse(xhr.responseText) as ResponseMap['files.upload']);
          } catch {
            reject(new ApiError(xhr.status, 'bad_response', 'The daemon sent an unreadable answer'));
          }
          return;
        }
        if (xhr.status === 401) this.#onUnauthorized();
        reject(errorFromBody(xhr.status, xhr.statusText, xhr.responseText));
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
