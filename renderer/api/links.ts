/**
 * Links the browser fetches by itself: downloads, previews, thumbnails and zips stream
 * through the browser's own machinery (download manager, <img>, <video> with Range, the PDF
 * viewer), never through a Blob in the page (docs/explorer.md, "Links").
 *
 * That needs the request to carry the caller's credential without our code: a signed-in
 * user's session cookie does, and the desktop shell adds the admin key to every request to
 * its own daemon (main/). Only a plain browser holding a key in the page (`#key=…`) cannot:
 * there `direct` is false and the UI fetches with the key into an object URL instead
 * (`fetchObjectUrl`), as it did before.
 */
import type { CallParams } from '../../shared/endpoints';
import type { NimbusClient } from './client';
import type { SessionApi } from '../components/Session/sessionContext';

export type LinkId = 'files.download' | 'files.versions.download' | 'files.thumbnail' | 'folders.download';

/** Whether a plain link reaches the daemon with the caller's credential. */
export function linksAreDirect(session: Pick<SessionApi, 'auth' | 'mode'>): boolean {
  return session.auth === 'session' || session.mode === 'desktop';
}

/** The address of a GET row for an <a href>, <img src>, <video src> or <iframe src>. */
export function linkUrl<Id extends LinkId>(client: NimbusClient, id: Id, params: CallParams<Id>): string {
  return client.url(id, params);
}

/**
 * For a page that holds the key itself: fetches `url` with the key and answers an object URL
 * (revoke it with URL.revokeObjectURL when done).
 */
export async function fetchObjectUrl(client: NimbusClient, url: string, signal?: AbortSignal): Promise<string> {
  const headers: Record<string, string> = client.connection.apiKey === null ? {} : { 'API-Key': client.connection.apiKey };
  const response = await fetch(url, { headers, signal });
  if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
  return URL.createObjectURL(await response.blob());
}

/**
 * The zip of some files of one folder (or of the root). Built by hand for `files`: the row's
 * check reads one `/`-separated string (no name may contain `/`), while `requestTarget` would
 * write an array as `a,b`.
 */
export function zipUrl(client: NimbusClient, username: string, folder: string | null, files?: readonly string[]): string {
  const list = files && files.length > 0 ? [...files] : undefined;
  return new URL(linkUrl(client, 'folders.download', { username, folder: folder ?? undefined, files: list }), window.location.href).href;
}

/**
 * Hands `url` to the browser's download manager with a plain link, as a click on
 * `<a href download>` would: the browser streams it to disk with the session cookie.
 */
export function followDownloadLink(url: string, fileName: string): void {
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.rel = 'noopener';
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
}
