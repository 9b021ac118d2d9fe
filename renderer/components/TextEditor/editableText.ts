import type { FileEntry } from '../../../shared/types';
import { previewKind } from '../Preview/previewKind';

/** The largest file the editor opens: beyond it a browser tab's text editor grows slow. */
export const EDIT_LIMIT_BYTES = 5 * 1024 * 1024;

/** Text that the daemon types as `application/*` (previewKind shows none of it inline), but a person edits as text. */
const TEXT_APPLICATION_TYPES = new Set([
  'application/json',
  'application/javascript',
  'application/xml',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/x-sh',
]);

/** Whether the file is text the editor can show: what the previewer shows as text, and a few `application/*` text types. */
export function isTextFile(file: Pick<FileEntry, 'mimeType'>): boolean {
  const type = file.mimeType.toLowerCase().split(';')[0].trim();
  return previewKind(file) === 'text' || TEXT_APPLICATION_TYPES.has(type);
}

/** Whether it is small enough to edit here (EDIT_LIMIT_BYTES). */
export const fitsEditor = (file: Pick<FileEntry, 'size'>): boolean => file.size <= EDIT_LIMIT_BYTES;

/** How the file wrote its text, so a save writes it the same way. */
export interface TextFormat {
  /** It began with a UTF-8 byte order mark. */
  bom: boolean;
  /** Its line ending: the one most of its lines use (the editor works in `\n`). */
  lineEnding: '\n' | '\r\n' | '\r';
}

/** Thrown for bytes that are not UTF-8: decoding them would change the file on save. */
export class NotUtf8Error extends Error {}

/** The text of a file's bytes, and how it was written; throws NotUtf8Error for anything but UTF-8. */
export function decodeText(bytes: Uint8Array): { text: string; format: TextFormat } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new NotUtf8Error('not UTF-8');
  }
  const bom = text.startsWith('\uFEFF');
  if (bom) text = text.slice(1);
  return { text, format: { bom, lineEnding: dominantLineEnding(text) } };
}

/** The bytes to save: the editor's `\n` lines written with the file's own ending and mark. */
export function encodeText(text: string, format: TextFormat): Blob {
  const lines = format.lineEnding === '\n' ? text : text.replace(/\n/g, format.lineEnding);
  return new Blob([(format.bom ? '\uFEFF' : '') + lines], { type: 'application/octet-stream' });
}

function dominantLineEnding(text: string): TextFormat['lineEnding'] {
  const crlf = text.match(/\r\n/g)?.length ?? 0;
  const lf = (text.match(/\n/g)?.length ?? 0) - crlf;
  const cr = (text.match(/\r/g)?.length ?? 0) - crlf;
  if (crlf > lf && crlf >= cr) return '\r\n';
  if (cr > lf && cr > crlf) return '\r';
  return '\n';
}

/** `notes.md` → `notes (copy).md`, then `notes (copy 2).md`… (`word` in the person's language): the name a refused save is kept under. */
export function copyName(name: string, attempt: number, word: string): string {
  const dot = name.lastIndexOf('.');
  const [base, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  return `${base} (${word}${attempt > 1 ? ` ${attempt}` : ''})${extension}`;
}
