/** Hands a blob to the browser's download manager under a file name. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.rel = 'noopener';
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // Revoke on a later task: revoking at once can cancel the download in some engines.
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
