import type { FileEntry } from '../../../shared/types';

/** How the previewer shows a file; null: a card with a Download button. */
export type PreviewKind = 'image' | 'pdf' | 'text' | 'audio' | 'video';

/**
 * What `files.download?inline=true` serves inline (docs/explorer.md, "Previews"): images but
 * SVG (never rendered: it can carry scripts and external references), PDF, text, audio and
 * video. Anything else the daemon sends as an attachment, so there is nothing to show.
 */
export function previewKind(file: Pick<FileEntry, 'mimeType'>): PreviewKind | null {
  const type = file.mimeType.toLowerCase().split(';')[0].trim();
  if (type === 'application/pdf') return 'pdf';
  if (type.startsWith('image/')) return type === 'image/svg+xml' ? null : 'image';
  if (type.startsWith('text/')) return 'text';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('video/')) return 'video';
  return null;
}

/**
 * The positions in `files` that next and previous step through: the previewable files, plus
 * the one opened (whatever it is), so it keeps its place among them.
 */
export function previewRing(files: readonly FileEntry[], opened: number): number[] {
  return files.flatMap((file, i) => (i === opened || previewKind(file) !== null ? [i] : []));
}
