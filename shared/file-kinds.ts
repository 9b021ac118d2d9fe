/**
 * The kinds of files the usage charts tell apart, by MIME type (docs/explorer.md, "Usage"):
 * the daemon's `usage.get` and the UI read the same rule, so a chart and its numbers agree.
 */
import type { FileKind } from './types.js';

/** Every kind, in the order the charts show them. */
export const FILE_KINDS: readonly FileKind[] = ['images', 'documents', 'media', 'other'];

/** Document types outside `text/*`: PDF, office and OpenDocument formats, RTF, EPUB, JSON, XML. */
const DOCUMENT_TYPES = new Set([
  'application/pdf',
  'application/rtf',
  'application/epub+zip',
  'application/json',
  'application/xml',
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.ms-powerpoint',
]);

/** Families of document types named by prefix (the OOXML and OpenDocument formats have many members). */
const DOCUMENT_PREFIXES = ['application/vnd.openxmlformats-officedocument.', 'application/vnd.oasis.opendocument.'];

/** The kind of a file of MIME type `mimeType` (parameters such as `; charset=` are ignored, case too). */
export function fileKindOf(mimeType: string): FileKind {
  const type = mimeType.split(';')[0].trim().toLowerCase();
  if (type.startsWith('image/')) return 'images';
  if (type.startsWith('audio/') || type.startsWith('video/')) return 'media';
  if (type.startsWith('text/') || DOCUMENT_TYPES.has(type)) return 'documents';
  // Structured-syntax suffixes: application/ld+json, image/svg+xml is an image above.
  if (type.endsWith('+json') || type.endsWith('+xml')) return 'documents';
  if (DOCUMENT_PREFIXES.some((prefix) => type.startsWith(prefix))) return 'documents';
  return 'other';
}
