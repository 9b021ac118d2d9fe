import { followDownloadLink } from '../api/links';

/**
 * Hands a blob to the browser's download manager under a file name: only for a plain browser
 * holding a key in the page, where a link could not carry the credential (renderer/api/links.ts).
 */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  followDownloadLink(url, fileName);
  // Revoke on a later task: revoking at once can cancel the download in some engines.
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
