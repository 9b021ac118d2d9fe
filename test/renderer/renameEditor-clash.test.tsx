/**
 * Issue 29, item 5: a name the daemon refuses as taken (409 file_exists, folder_exists,
 * name_case_conflict) keeps what was typed in the editor and says why there, instead of closing
 * the editor and losing the text.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useRef, useState } from 'react';
import type { FileEntry } from '../../shared/types';
import { FileTable } from '../../renderer/components/FileTable/FileTable';
import { useInPlaceRename } from '../../renderer/components/FileBrowser/useInPlaceRename';
import { RenameEditor } from '../../renderer/components/RenameEditor/RenameEditor';
import { RenameRefusalContext, type RenameRefusal } from '../../renderer/components/RenameEditor/renameRefusal';
import { useFileActions } from '../../renderer/hooks/useFileActions';
import { fileRow, type Row } from '../../renderer/lib/rows';
import { EMPTY_SELECTION, type Selection } from '../../renderer/lib/selection';
import { fakeLayout, json, renderWithSession, stubFetch } from './harness';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const file = (name: string): FileEntry => ({
  name,
  folder: null,
  size: 10,
  modifiedAt: '2025-03-01T10:00:00Z',
  mimeType: 'text/plain',
  shared: false,
  shareUrl: null,
});

describe('RenameEditor given a refusal', () => {
  const refused: RenameRefusal = { name: 'b.txt', reason: 'A file with that name already exists.' };

  it('shows the typed name with the reason under it, and goes on editing', async () => {
    const onCommit = vi.fn();
    const onCancel = vi.fn();
    render(<RenameEditor initial="a.txt" refusal={refused} onCommit={onCommit} onCancel={onCancel} />);
    const input = screen.getByRole('textbox', { name: 'New name for a.txt' }) as HTMLInputElement;
    expect(input.value).toBe('b.txt');
    expect(document.activeElement).toBe(input);
    expect([input.selectionStart, input.selectionEnd]).toEqual([0, 1]);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toBe(refused.reason);
    expect(input.getAttribute('aria-describedby')).toBe(alert.id);
    await userEvent.clear(input);
    expect(screen.queryByRole('alert')).toBeNull();
    await userEvent.type(input, 'c.txt{Enter}');
    expect(onCommit).toHaveBeenCalledExactlyOnceWith('c.txt');
    expect(onCancel).not.toHaveBeenCalled();
  });

  it('gives up the refused name when the field is left (sending it again would fail again)', () => {
    const onCommit = vi.fn();
    const onCancel = vi.fn();
    render(<RenameEditor initial="a.txt" refusal={refused} onCommit={onCommit} onCancel={onCancel} />);
    fireEvent.blur(screen.getByRole('textbox'));
    expect(onCancel).toHaveBeenCalledOnce();
    expect(onCommit).not.toHaveBeenCalled();
  });
});

/** FileBrowser's wiring: useInPlaceRename with the given rename, the table, the refusal context. */
function Browser({ rows, rename }: { rows: Row[]; rename: ReturnType<typeof useFileActions>['rename'] }) {
  const [selection, setSelection] = useState<Selection>(EMPTY_SELECTION);
  const rowsRef = useRef<readonly Row[]>(rows);
  const actions = { rename } as unknown as ReturnType<typeof useFileActions>;
  const editing = useInPlaceRename(actions, rowsRef, setSelection, () => undefined);
  return (
    <RenameRefusalContext.Provider value={editing.refusal}>
      <FileTable
        label="Files"
        rows={rows}
        selection={selection}
        onSelectionChange={setSelection}
        sort={{ key: 'name', direction: 'asc' }}
        onSort={() => {}}
        editingKey={editing.editingKey}
        onOpen={() => {}}
        onStartRename={editing.onStartRename}
        onRenameCommit={editing.onRenameCommit}
        onRenameCancel={editing.onRenameCancel}
        onDelete={() => {}}
        onShareClick={() => {}}
      />
    </RenameRefusalContext.Provider>
  );
}

describe('inline rename onto a taken name', () => {
  let restore: () => void;
  beforeAll(() => {
    restore = fakeLayout();
  });
  afterAll(() => restore());

  it('keeps the editor open with what was typed and says why; a free name then closes it', async () => {
    const rename = vi.fn(async (_row: Row, name: string, onClash?: (reason: string) => void) => {
      if (name === 'b.txt') {
        onClash?.('A file with that name already exists.');
        return undefined;
      }
      return { ...file(name) };
    });
    render(<Browser rows={[file('a.txt'), file('b.txt')].map(fileRow)} rename={rename} />);
    await userEvent.click(screen.getByText('a.txt'));
    await userEvent.keyboard('{F2}');
    const input = () => screen.getByRole('textbox', { name: 'New name for a.txt' }) as HTMLInputElement;
    await userEvent.clear(input());
    await userEvent.type(input(), 'b.txt{Enter}');
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('A file with that name already exists.'));
    expect(rename).toHaveBeenCalledWith(expect.objectContaining({ name: 'a.txt' }), 'b.txt', expect.any(Function));
    expect(input().value).toBe('b.txt');
    expect(input().getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(input());
    // Typing clears the message; a free name is saved and the editor closes.
    await userEvent.clear(input());
    expect(screen.queryByRole('alert')).toBeNull();
    await userEvent.type(input(), 'c.txt{Enter}');
    await waitFor(() => expect(screen.queryByRole('textbox')).toBeNull());
    expect(rename).toHaveBeenLastCalledWith(expect.objectContaining({ name: 'a.txt' }), 'c.txt', expect.any(Function));
  });
});

describe('useFileActions.rename', () => {
  function Renamer({ onClash }: { onClash?: (reason: string) => void }) {
    const actions = useFileActions('ana', null);
    return (
      <button type="button" onClick={() => void actions.rename(fileRow(file('a.txt')), 'B.txt', onClash)}>
        rename
      </button>
    );
  }

  const twin = "A file named 'b.txt' already exists; names may not differ only in case";
  // The daemon's words (errorText.ts): reworded for API wording, kept where written for people.
  for (const [code, daemon, words] of [
    ['file_exists', 'File already exists; pass overwrite=true', 'A file with that name already exists.'],
    ['folder_exists', 'Folder already exists', 'A folder with that name already exists.'],
    ['name_case_conflict', twin, twin],
  ] as const) {
    it(`hands a ${code} refusal to the editor in the person’s words, with no toast`, async () => {
      stubFetch({ 'POST /api/files/rename': () => json(409, { error: daemon, code }) });
      const onClash = vi.fn();
      renderWithSession(<Renamer onClash={onClash} />);
      await act(async () => fireEvent.click(screen.getByRole('button', { name: 'rename' })));
      await waitFor(() => expect(onClash).toHaveBeenCalledExactlyOnceWith(words));
      expect(screen.queryByRole('alert')).toBeNull();
    });
  }

  it('still toasts a clash when nobody takes it, and any other failure', async () => {
    stubFetch({ 'POST /api/files/rename': () => json(409, { error: 'File already exists', code: 'file_exists' }) });
    renderWithSession(<Renamer />);
    fireEvent.click(screen.getByRole('button', { name: 'rename' }));
    expect((await screen.findByRole('alert')).textContent).toContain('Could not rename “a.txt”');
  });
});
