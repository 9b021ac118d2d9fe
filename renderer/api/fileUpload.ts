/**
 * One file uploaded as the raw request body (files.upload). XMLHttpRequest rather than fetch
 * because only it reports upload progress; NimbusClient.upload is the way in.
 */
import { ENDPOINT_BY_ID, type ResponseOf } from '../../shared/endpoints.js';
import { ApiError, UNREACHABLE, endsCredential, errorFromBody } from './apiError.js';

/** Where an upload goes and with what credential, from the client that sends it. */
export interface UploadRequest {
  /** The files.upload URL, its parameters in the query string. */
  url: string;
  /** null in a session: the browser sends the cookie itself. */
  apiKey: string | null;
  /** Called when the daemon's refusal ends the key or session (see endsCredential). */
  onUnauthorized: () => void;
}

/** Sends `body` to `request.url`, reporting progress; rejects with an ApiError, or an AbortError once `signal` aborts. */
export function sendFileUpload(
  request: UploadRequest,
  body: Blob,
  onProgress: (loaded: number, total: number) => void,
  signal: AbortSignal,
): Promise<ResponseOf<'files.upload'>> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new DOMException('Upload cancelled', 'AbortError'));
      return;
    }
    const xhr = new XMLHttpRequest();
    const onAbort = (): void => xhr.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    xhr.open(ENDPOINT_BY_ID['files.upload'].method, request.url);
    if (request.apiKey !== null) xhr.setRequestHeader('API-Key', request.apiKey);
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
      if (endsCredential(error)) request.onUnauthorized();
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
