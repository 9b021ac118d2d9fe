/**
 * The text editor's rules that need no browser (issue 29, item 9): which files it edits and up
 * to what size; that a save writes the text back as it was written (UTF-8, its byte order mark
 * and its line endings) and refuses bytes that are not UTF-8; when two download stamps name the
 * same bytes; the name a refused save is kept under; and the Edit action in the file menu.
 */
import { describe, expect, it } from 'vitest';
import type { TFunction } from 'i18next';
import type { FileEntry } from '../../shared/types';
import { FILE_ACTIONS, type ActionTarget } from '../../renderer/components/FileBrowser/fileActions';
import { fileRow } from '../../renderer/lib/rows';
import {
  EDIT_LIMIT_BYTES,
  NotUtf8Error,
  copyName,
  decodeText,
  encodeText,
  fitsEditor,
  isTextFile,
} from '../../renderer/components/TextEditor/editableText';
import { sameFile } from '../../renderer/components/TextEditor/editorFile';
import { languageFor } from '../../renderer/components/TextEditor/languages';

const bytes = (text: string) => new TextEncoder().encode(text);
/** Bytes as plain numbers: jsdom's and Node's Uint8Array are not the same class. */
const numbers = (text: string) => [...bytes(text)];
const saved = async (text: string, original: string) => [
  ...new Uint8Array(await encodeText(text, decodeText(bytes(original)).format).arrayBuffer()),
];

describe('which files are edited', () => {
  it('edits what the previewer shows as text, and JSON and YAML, but no picture', () => {
    expect(isTextFile({ mimeType: 'text/markdown; charset=utf-8' })).toBe(true);
    expect(isTextFile({ mimeType: 'application/json' })).toBe(true);
    expect(isTextFile({ mimeType: 'application/yaml' })).toBe(true);
    expect(isTextFile({ mimeType: 'image/png' })).toBe(false);
    expect(isTextFile({ mimeType: 'application/octet-stream' })).toBe(false);
  });

  it('opens files up to 5 MiB', () => {
    expect(EDIT_LIMIT_BYTES).toBe(5 * 1024 * 1024);
    expect(fitsEditor({ size: EDIT_LIMIT_BYTES })).toBe(true);
    expect(fitsEditor({ size: EDIT_LIMIT_BYTES + 1 })).toBe(false);
  });

  it('highlights by extension and leaves other text plain', () => {
    for (const name of ['a.md', 'b.TS', 'c.json', 'd.css', 'e.html', 'f.py', 'g.yml', 'h.jsx']) expect(languageFor(name)).not.toBeNull();
    expect(languageFor('notes.txt')).toBeNull();
    expect(languageFor('Makefile')).toBeNull();
  });
});

describe('saving writes the text as the file wrote it', () => {
  it('keeps CRLF line endings (the editor works in \\n)', async () => {
    const { text } = decodeText(bytes('a\r\nb\r\n'));
    expect(text).toBe('a\r\nb\r\n');
    expect(await saved('a\nb\nc\n', 'a\r\nb\r\n')).toEqual(numbers('a\r\nb\r\nc\r\n'));
  });

  it('keeps \\n files as they are, and a byte order mark where there was one', async () => {
    expect(await saved('x\ny', 'x\n')).toEqual(numbers('x\ny'));
    const withMark = decodeText(bytes('\uFEFFhej\n'));
    expect(withMark.text).toBe('hej\n');
    expect(withMark.format.bom).toBe(true);
    expect(await saved('hej då\n', '\uFEFFhej\n')).toEqual(numbers('\uFEFFhej då\n'));
  });

  it('refuses bytes that are not UTF-8 rather than change them on save', () => {
    expect(() => decodeText(new Uint8Array([0x68, 0xe9, 0x6c]))).toThrow(NotUtf8Error);
  });
});

describe('whether the file is still what was opened', () => {
  const stamp = (etag: string | null, size = 10, lastModified = 'Mon, 01 Jan 2026 00:00:00 GMT') => ({ etag, size, lastModified });

  it('goes by a strong ETag alone', () => {
    expect(sameFile(stamp('"a"'), stamp('"a"'))).toBe(true);
    expect(sameFile(stamp('"a"'), stamp('"b"'))).toBe(false);
  });

  it('goes by size and modification time when the ETag is weak or unreadable', () => {
    expect(sameFile(stamp('W/"a"'), stamp('"b"'))).toBe(true);
    expect(sameFile(stamp(null), stamp(null, 11))).toBe(false);
    expect(sameFile(stamp(null), stamp(null, 10, 'Tue, 02 Jan 2026 00:00:00 GMT'))).toBe(false);
  });
});

it('names a copy beside the file, in the person’s language', () => {
  expect(copyName('notes.md', 1, 'copy')).toBe('notes (copy).md');
  expect(copyName('notes.md', 2, 'kopie')).toBe('notes (kopie 2).md');
  expect(copyName('.env', 1, 'copy')).toBe('.env (copy)');
});

describe('the Edit action', () => {
  const edit = FILE_ACTIONS.find((action) => action.id === 'edit')!;
  const t = ((key: string, options?: { limit?: string }) => (options?.limit ? `${key} ${options.limit}` : key)) as unknown as TFunction;
  const file = (name: string, mimeType: string, size = 10): FileEntry => ({
    name,
    folder: null,
    size,
    modifiedAt: '2026-01-02T00:00:00.000Z',
    mimeType,
    shared: false,
    shareUrl: null,
  });
  const target = (...files: FileEntry[]): ActionTarget => ({ rows: files.map((f) => fileRow(f)), everything: false, inShell: false });

  it('is in the menu for one text file, not for a picture or for two files', () => {
    expect(edit.surfaces).toEqual(['menu']);
    expect(edit.applies(target(file('a.md', 'text/markdown')))).toBe(true);
    expect(edit.applies(target(file('a.png', 'image/png')))).toBe(false);
    expect(edit.applies(target(file('a.md', 'text/markdown'), file('b.md', 'text/markdown')))).toBe(false);
  });

  it('says in its label why a file over the limit is not edited', () => {
    expect(edit.label(t, target(file('a.md', 'text/markdown')))).toBe('editor:action');
    expect(edit.label(t, target(file('big.log', 'text/plain', EDIT_LIMIT_BYTES + 1)))).toBe('editor:actionTooLarge 5 MiB');
  });
});
