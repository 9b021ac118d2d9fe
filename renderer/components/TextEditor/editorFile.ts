import { ApiError, type NimbusClient } from '../../api/client';
import { linkUrl } from '../../api/links';
import { totalFromContentRange } from '../Preview/textHead';
import { decodeText, encodeText, type TextFormat } from './editableText';

/** Where the edited file is. */
export interface FilePlace {
  username: string;
  folder: string | null;
  file: string;
}

/** What names the bytes the editor opened, as the download said: the next save happens only over the same. */
export interface FileStamp {
  etag: string | null;
  lastModified: string | null;
  size: number;
}

export interface OpenedText {
  text: string;
  format: TextFormat;
  stamp: FileStamp;
}

/** A save refused because the file is no longer what the editor opened (or is gone). */
export class ChangedSinceOpenedError extends Error {}

/**
 * The download, fetched as textHead.ts fetches (a session's cookie goes by itself, a page
 * holding a key sends it), because the editor needs its validators, which the client's
 * Blob download leaves out.
 */
async function fetchFile(client: NimbusClient, place: FilePlace, init: { range?: string; signal?: AbortSignal }): Promise<Response> {
  const url = linkUrl(client, 'files.download', { username: place.username, folder: place.folder ?? undefined, file: place.file });
  const headers: Record<string, string> = init.range ? { Range: init.range } : {};
  if (client.connection.apiKey !== null) headers['API-Key'] = client.connection.apiKey;
  return fetch(url, { headers, signal: init.signal, cache: 'no-store' });
}

const stampOf = (response: Response, size: number): FileStamp => ({
  etag: response.headers.get('ETag'),
  lastModified: response.headers.get('Last-Modified'),
  size,
});

async function failure(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => null)) as { error?: string; message?: string } | null;
  return new ApiError(
    response.status,
    body?.error ?? 'download_failed',
    body?.message ?? `${response.status} ${response.statusText}`.trim(),
  );
}

/** The whole file as text, with how it is written and what names it. */
export async function openText(client: NimbusClient, place: FilePlace, signal?: AbortSignal): Promise<OpenedText> {
  const response = await fetchFile(client, place, { signal });
  if (!response.ok) throw await failure(response);
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { ...decodeText(bytes), stamp: stampOf(response, bytes.length) };
}

/** What names the file now (one byte of it is fetched); null when it is gone. */
export async function currentStamp(client: NimbusClient, place: FilePlace): Promise<FileStamp | null> {
  const response = await fetchFile(client, place, { range: 'bytes=0-0' });
  if (response.status === 404) return null;
  // 416: the range starts past the end, which only an empty file does.
  if (response.status === 416) return stampOf(response, 0);
  if (!response.ok) throw await failure(response);
  await response.body?.cancel();
  return stampOf(
    response,
    totalFromContentRange(response.headers.get('Content-Range')) ?? Number(response.headers.get('Content-Length') ?? 0),
  );
}

/**
 * Whether two stamps name the same bytes: a strong ETag says so alone. A weak one (the daemon
 * sends it while a file's identity may not move with the next write) or none (a page on another
 * origin cannot read it) falls back to the size and the modification time.
 */
export function sameFile(opened: FileStamp, now: FileStamp): boolean {
  const strong = (tag: string | null) => tag !== null && !tag.startsWith('W/');
  if (strong(opened.etag) && strong(now.etag)) return opened.etag === now.etag;
  return opened.size === now.size && opened.lastModified === now.lastModified;
}

/**
 * Writes the text over the file, so the daemon keeps what it replaces as a version
 * (docs/versions.md); refused (ChangedSinceOpenedError) when the file is no longer what the
 * editor opened. The upload takes no precondition, so this checks just before it: a write
 * in between those two requests is the one it cannot see. Answers the new stamp.
 */
export async function saveText(
  client: NimbusClient,
  place: FilePlace,
  text: string,
  format: TextFormat,
  opened: FileStamp,
): Promise<FileStamp> {
  const now = await currentStamp(client, place);
  if (now === null || !sameFile(opened, now)) throw new ChangedSinceOpenedError(place.file);
  await upload(client, place, place.file, text, format, true);
  return (await currentStamp(client, place)) ?? opened;
}

/** Writes the text under another name beside the file (never over anything): false when that name is taken. */
export async function saveCopy(client: NimbusClient, place: FilePlace, name: string, text: string, format: TextFormat): Promise<boolean> {
  try {
    await upload(client, place, name, text, format, false);
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) return false;
    throw error;
  }
}

function upload(client: NimbusClient, place: FilePlace, name: string, text: string, format: TextFormat, overwrite: boolean) {
  const params = { username: place.username, folder: place.folder ?? undefined, file: name, overwrite };
  return client.upload(params, encodeText(text, format), () => undefined, new AbortController().signal);
}
