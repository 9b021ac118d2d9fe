import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import type { FileEntry } from '../../shared/types';
import { FileTable } from '../../renderer/components/FileTable/FileTable';
import { RenameEditor, baseNameLength } from '../../renderer/components/RenameEditor/RenameEditor';
import { fileRow, type Row } from '../../renderer/lib/rows';
import { EMPTY_SELECTION, type Selection } from '../../renderer/lib/selection';
import { fakeLayout } from './harness';

afterEach(cleanup);

const setup = (initial = 'report.txt') => {
  const onCommit = vi.fn();
  const onCancel = vi.fn();
  render(<RenameEditor initial={initial} onCommit={onCommit} onCancel={onCancel} />);
  return { onCommit, onCancel, input: screen.getByRole('textbox', { name: `New name for ${initial}` }) as HTMLInputElement };
};

describe('RenameEditor', () => {
  it('focuses the field with the name before the extension selected', () => {
    const { input } = setup('report.final.txt');
    expect(document.activeElement).toBe(input);
    expect([input.selectionStart, input.selectionEnd]).toEqual([0, 'report.final'.length]);
    expect(baseNameLength('.bashrc')).toBe('.bashrc'.length);
  });

  it('saves the new name on Enter', async () => {
    const { input, onCommit, onCancel } = setup();
    await userEvent.clear(input);
    await userEvent.type(input, 'summary.txt{Enter}');
    expect(onCommit).toHaveBeenCalledExactlyOnceWith('summary.txt');
    expect(onCancel).not.toHaveBeenCalled();
  });

  it('cancels on Escape without saving', async () => {
    const { input, onCommit, onCancel } = setup();
    await userEvent.type(input, 'xyz{Escape}');
    expect(onCancel).toHaveBeenCalledOnce();
    expect(onCommit).not.toHaveBeenCalled();
  });

  it('treats Enter on an unchanged name as a cancel', async () => {
    const { input, onCommit, onCancel } = setup();
    await userEvent.type(input, '{Enter}');
    expect(onCancel).toHaveBeenCalledOnce();
    expect(onCommit).not.toHaveBeenCalled();
  });

  it('shows the name rule and keeps editing when the new name is invalid', async () => {
    const { input, onCommit, onCancel } = setup();
    await userEvent.clear(input);
    await userEvent.type(input, 'a/b.txt{Enter}');
    // Issue 10, item 15i: the message names every character that is refused.
    expect(screen.getByRole('alert').textContent).toContain('The name must not contain / \\ < > : " | ? *');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(onCommit).not.toHaveBeenCalled();
    expect(onCancel).not.toHaveBeenCalled();
  });

  it('saves a valid name when the field loses focus, once', async () => {
    const { input, onCommit } = setup();
    await userEvent.clear(input);
    await userEvent.type(input, 'new.txt');
    fireEvent.blur(input);
    fireEvent.blur(input);
    expect(onCommit).toHaveBeenCalledExactlyOnceWith('new.txt');
  });
});

const file = (name: string, size = 10): FileEntry => ({
  name,
  folder: null,
  size,
  modifiedAt: '2025-03-01T10:00:00Z',
  mimeType: 'text/plain',
  shared: false,
  shareUrl: null,
});

/** A FileTable with its selection and editing state, as FileBrowser wires it. */
function Harness({ rows, onCommit }: { rows: Row[]; onCommit: (row: Row, name: string) => void }) {
  const [selection, setSelection] = useState<Selection>(EMPTY_SELECTION);
  const [editing, setEditing] = useState<string | null>(null);
  return (
    <FileTable
      label="Files"
      rows={rows}
      selection={selection}
      onSelectionChange={setSelection}
      sort={{ key: 'name', direction: 'asc' }}
      onSort={() => {}}
      editingKey={editing}
      onOpen={() => {}}
      onStartRename={(row) => setEditing(row.key)}
      onRenameCommit={(row, name) => {
        setEditing(null);
        onCommit(row, name);
      }}
      onRenameCancel={() => setEditing(null)}
      onDelete={() => {}}
      onShareClick={() => {}}
    />
  );
}

describe('inline rename in the file table', () => {
  let restore: () => void;
  beforeAll(() => {
    restore = fakeLayout();
  });
  afterAll(() => restore());

  it('opens the editor with F2 on the active row and saves with Enter', async () => {
    const onCommit = vi.fn();
    render(<Harness rows={[file('a.txt'), file('b.txt')].map(fileRow)} onCommit={onCommit} />);
    const grid = screen.getByRole('grid', { name: 'Files' });
    grid.focus();
    await userEvent.keyboard('{ArrowDown}{ArrowDown}{F2}');
    const input = screen.getByRole('textbox', { name: 'New name for b.txt' });
    await userEvent.clear(input);
    await userEvent.type(input, 'c.txt{Enter}');
    expect(onCommit).toHaveBeenCalledWith(expect.objectContaining({ name: 'b.txt' }), 'c.txt');
    expect(screen.queryByRole('textbox')).toBeNull();
  });

  it('opens the editor with F2 on a clicked row (a double-click opens the file instead), and Escape restores it', async () => {
    const onCommit = vi.fn();
    render(<Harness rows={[file('a.txt')].map(fileRow)} onCommit={onCommit} />);
    await userEvent.click(screen.getByText('a.txt'));
    await userEvent.keyboard('{F2}');
    const input = screen.getByRole('textbox', { name: 'New name for a.txt' });
    await userEvent.type(input, 'zzz{Escape}');
    expect(screen.queryByRole('textbox')).toBeNull();
    expect(screen.getByText('a.txt')).toBeTruthy();
    expect(onCommit).not.toHaveBeenCalled();
  });
});
