/**
 * Large files go up through tus (docs/uploads.md) with tus-js-client: a dropped connection, a
 * daemon restart or a laptop closed mid-upload resumes from the bytes the daemon acknowledged,
 * and the progress shown is theirs (after a resume it starts again from the daemon's offset,
 * never past what is stored, at most a chunk behind). Smaller files keep the one-request
 * `files.upload`: below the threshold, sending again costs less than the protocol's extra
 * round trips (a creation, and a HEAD on every resume).
 */
import type { DetailedError, Upload, UploadOptions } from 'tus-js-client';
import { ApiError, UNREACHABLE, roomOf, type NimbusClient } from '../api/client';
import type { UploadTarget } from './UploadQueue';

/**
 * From this size a file is sent resumably. 16 MiB: what a home uplink of ~10 Mbit/s sends in
 * ~15 s, so anything that takes longer than that to send again gets a resume instead.
 */
export const RESUMABLE_FROM_BYTES = 16 * 1024 * 1024;

/**
 * The most one PATCH carries. A single PATCH of the whole file would be cheapest, but what a
 * PATCH sends is only known stored when it is answered: Chromium resends a PATCH whose reused
 * connection broke, whole, at its old offset, and the daemon reads that body to its end before
 * its 409 is seen (measured: 96 MiB sent again for a 96 MiB file, the bar at 100 % with 27 %
 * stored), and a daemon killed mid-PATCH keeps only its last 64 MiB checkpoint. In chunks, any of
 * that costs one chunk at most: the same 16 MiB the threshold above takes as cheap to send again.
 * Measured over loopback into a `nimbus daemon` (tus-js-client, 256 MiB, rounds 2 to 6): 207–281
 * MiB/s in 16 MiB chunks, 187–244 as one PATCH; the disk, not the round trips, sets the pace.
 */
export const CHUNK_BYTES = RESUMABLE_FROM_BYTES;

/**
 * Waits between attempts after a failure (ms): the network back within seconds, a daemon
 * restarting, a laptop waking up; some ten minutes in all before the upload is reported failed.
 */
const RETRY_DELAYS = [0, 1000, 3000, 5000, 10_000, 20_000, 30_000, 60_000, 60_000, 120_000, 120_000, 180_000];

/** What tus-js-client's Upload is to this module (the tests give their own). */
export type UploadClass = new (
  file: Blob,
  options: UploadOptions,
) => Pick<Upload, 'start' | 'abort' | 'findPreviousUploads' | 'resumeFromPreviousUpload'>;

/**
 * Sends `body` to `target` through /api/uploads/, resuming an unfinished upload of the same
 * file to the same place that this browser began before (a reload, a crash). Cancelling (the
 * signal) terminates it on the daemon, which frees its space at once.
 */
export function uploadResumable(
  client: Pick<NimbusClient, 'connection'>,
  target: UploadTarget,
  body: Blob,
  onProgress: (loaded: number) => void,
  signal: AbortSignal,
  UploadImpl?: UploadClass,
): Promise<void> {
  // tus-js-client is a chunk of its own (docs/explorer.md, "How the UI is served"), fetched at
  // the first large upload rather than with the page.
  const loaded = UploadImpl ? Promise.resolve(UploadImpl) : import('tus-js-client').then((tus) => tus.Upload);
  return loaded.then((Impl) => send(client, target, body, onProgress, signal, Impl));
}

function send(
  client: Pick<NimbusClient, 'connection'>,
  target: UploadTarget,
  body: Blob,
  onProgress: (loaded: number) => void,
  signal: AbortSignal,
  UploadImpl: UploadClass,
): Promise<void> {
  const { baseUrl, apiKey } = client.connection;
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) {
      reject(new DOMException('Upload cancelled', 'AbortError'));
      return;
    }
    const upload = new UploadImpl(body, {
      endpoint: `${baseUrl}/api/uploads/`,
      // With a key the key; otherwise the session cookie goes along (the page's own origin).
      headers: apiKey === null ? {} : { 'API-Key': apiKey },
      metadata: metadataOf(target),
      chunkSize: CHUNK_BYTES,
      retryDelays: RETRY_DELAYS,
      onShouldRetry: (error) => retryable(error),
      // One identity per place: the same file sent to another folder or user is another upload.
      fingerprint: (file) => Promise.resolve(fingerprintOf(target, file as Blob, baseUrl)),
      removeFingerprintOnSuccess: true,
      onProgress: (sent) => onProgress(sent),
      onSuccess: () => {
        signal.removeEventListener('abort', cancel);
        resolve();
      },
      onError: (error) => {
        // Offline (the Wi-Fi gone, a laptop asleep): tus-js-client does not retry while the
        // browser says so, and would fail the upload at once; it waits for the network instead.
        if (!signal.aborted && retryableWhileOffline(error)) {
          resumeWhenOnline(() => upload.start(), signal);
          return;
        }
        signal.removeEventListener('abort', cancel);
        reject(toApiError(error));
      },
    });
    const cancel = () => {
      // true: terminate, so the daemon drops the partial file and its quota hold.
      void upload.abort(true).catch(() => undefined);
      reject(new DOMException('Upload cancelled', 'AbortError'));
    };
    signal.addEventListener('abort', cancel, { once: true });
    void upload.findPreviousUploads().then(
      (previous) => {
        if (signal.aborted) return;
        if (previous.length > 0) upload.resumeFromPreviousUpload(previous[0]);
        upload.start();
      },
      () => upload.start(),
    );
  });
}

/**
 * tus-js-client's own rule (no answer, a 5xx, a 409 offset mismatch or a 423, while online),
 * but for a 507: a full quota or disk does not free itself between retries, and retrying it
 * for ten minutes would keep the person from hearing why the upload stopped.
 */
function retryable(error: Error): boolean {
  const status = (error as Partial<DetailedError>).originalResponse?.getStatus() ?? 0;
  if (status === 507) return false;
  const clientError = status >= 400 && status < 500;
  return (!clientError || status === 409 || status === 423) && !isOffline();
}

/** Whether the browser says it has no network at all (navigator.onLine; a Web Worker has it too). */
function isOffline(): boolean {
  return typeof navigator !== 'undefined' && navigator.onLine === false;
}

/**
 * A failure tus-js-client would retry if the browser were online (no answer, a 5xx, a 409 offset
 * mismatch, a 423), while it says it is offline. tus-js-client's retry rule gives up on those at
 * once when offline, so a dropped Wi-Fi would fail a large upload a second into it; such an upload
 * is not failed but resumed once the browser is online again. (A 409 comes even offline: Chromium
 * resends a request whose reused connection broke, at the PATCH's old offset, and a daemon still
 * reachable, on the LAN or this computer, answers it.)
 */
function retryableWhileOffline(error: Error): boolean {
  const detailed = error as Partial<DetailedError>;
  if (!isOffline() || detailed.originalRequest == null) return false;
  const status = detailed.originalResponse?.getStatus() ?? 0;
  return status < 400 || status >= 500 || status === 409 || status === 423;
}

/**
 * Calls `resume` on the next `online` event (at once if the network came back meanwhile), unless
 * the upload is cancelled first. However long it takes: the retries' ten minutes are for a
 * network that is there but failing, not one the browser knows is gone.
 */
function resumeWhenOnline(resume: () => void, signal: AbortSignal): void {
  if (!isOffline()) {
    resume();
    return;
  }
  const back = () => {
    signal.removeEventListener('abort', stop);
    if (!signal.aborted) resume();
  };
  const stop = () => globalThis.removeEventListener('online', back);
  globalThis.addEventListener('online', back, { once: true });
  signal.addEventListener('abort', stop, { once: true });
}

/** Upload-Metadata: files.upload's parameters by tus's names (docs/uploads.md). */
export function metadataOf(target: UploadTarget): Record<string, string> {
  return {
    username: target.username,
    filename: target.name,
    ...(target.folder ? { folder: target.folder } : {}),
    ...(target.overwrite ? { overwrite: 'true' } : {}),
  };
}

function fingerprintOf(target: UploadTarget, file: Blob, baseUrl: string): string {
  const modified = file instanceof File ? file.lastModified : 0;
  const where = [target.username, target.folder ?? '', target.name, target.overwrite ? 'replace' : 'new'];
  return ['nimbus-tus', baseUrl, ...where, file.size, modified].map((part) => encodeURIComponent(String(part))).join('/');
}

/** The daemon's `{error, code}` as the ApiError the upload queue words; no answer at all is `unreachable`. */
export function toApiError(error: Error): ApiError {
  const response = (error as Partial<DetailedError>).originalResponse;
  if (!response) return new ApiError(0, 'unreachable', UNREACHABLE);
  const status = response.getStatus();
  try {
    const body = JSON.parse(response.getBody()) as { error?: unknown; code?: unknown; needed?: unknown; available?: unknown };
    if (typeof body.error === 'string')
      return new ApiError(status, typeof body.code === 'string' ? body.code : 'error', body.error, null, roomOf(body));
  } catch {
    // not JSON (a HEAD has no body): the status alone
  }
  return new ApiError(status, `http_${status}`, `${status} ${error.message}`);
}
