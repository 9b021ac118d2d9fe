import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import type { FileEntry } from '../../shared/types';
import { FileTable } from '../../renderer/components/FileTable/FileTable';
import { fileRow, type Row } from '../../renderer/lib/rows';
import { EMPTY_SELECTION, type Selection } from '../../renderer/lib/selection';
import { fakeLayout } from './harness';

const file = (name: string): FileEntry => ({
  name,
  folder: null,
  size: 1,
  modifiedAt: '2025-01-01T00:00:00Z',
  mimeType: 'text/plain',
  shared: false,
  shareUrl: null,
});

interface TableProps {
  rows: Row[];
  onOpen?: (row: Row) => void;
  onDelete?: () => void;
  onGoUp?: () => void;
}

function Table({ rows, onOpen = () => {}, onDelete = () => {}, onGoUp }: TableProps) {
  const [selection, setSelection] = useState<Selection>(EMPTY_SELECTION);
  return (
    <FileTable
      label="Files"
      rows={rows}
      selection={selection}
      onSelectionChange={setSelection}
      sort={{ key: 'name', direction: 'asc' }}
      onSort={() => {}}
      editingKey={null}
      onOpen={onOpen}
      onStartRename={() => {}}
      onRenameCommit={() => {}}
      onRenameCancel={() => {}}
      onDelete={onDelete}
      onShareClick={() => {}}
      onGoUp={onGoUp}
    />
  );
}

let restore: () => void;
beforeAll(() => {
  restore = fakeLayout(900, 600);
});
afterAll(() => restore());
afterEach(cleanup);

describe('FileTable', () => {
  it('renders a name full of HTML as plain text', () => {
    const hostile = '<img src=x onerror=alert(1)>.txt';
    const { container } = render(<Table rows={[fileRow(file(hostile))]} />);
    expect(screen.getByText(hostile)).toBeTruthy();
    expect(container.querySelector('img')).toBeNull();
  });

  it('puts only the rows in view in the DOM, even for 10,000 files', () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => fileRow(file(`f${String(i).padStart(5, '0')}.txt`)));
    render(<Table rows={rows} />);
    const grid = screen.getByRole('grid', { name: 'Files' });
    expect(grid.getAttribute('aria-rowcount')).toBe('10001');
    const rendered = within(grid).getAllByRole('row').length;
    expect(rendered).toBeGreaterThan(10);
    expect(rendered).toBeLessThan(100);
  });

  it('moves with the arrows, selects with Shift, opens with Enter and asks to delete with Delete', async () => {
    const onOpen = vi.fn();
    const onDelete = vi.fn();
    render(<Table rows={['a', 'b', 'c'].map((n) => fileRow(file(`${n}.txt`)))} onOpen={onOpen} onDelete={onDelete} />);
    const grid = screen.getByRole('grid', { name: 'Files' });
    grid.focus();
    await userEvent.keyboard('{ArrowDown}{Shift>}{ArrowDown}{/Shift}');
    const selected = within(grid)
      .getAllByRole('row')
      .filter((row) => row.getAttribute('aria-selected') === 'true');
    expect(selected.map((row) => row.textContent?.slice(0, 5))).toEqual(['a.txt', 'b.txt']);
    const active = document.getElementById(grid.getAttribute('aria-activedescendant') ?? '');
    expect(active?.textContent).toContain('b.txt');
    await userEvent.keyboard('{Enter}');
    expect(onOpen).toHaveBeenCalledWith(expect.objectContaining({ name: 'b.txt' }));
    await userEvent.keyboard('{Delete}');
    expect(onDelete).toHaveBeenCalledOnce();
    await userEvent.keyboard('{Escape}');
    expect(
      within(grid)
        .getAllByRole('row')
        .filter((row) => row.getAttribute('aria-selected') === 'true'),
    ).toHaveLength(0);
  });

  it('goes back to the parent folder with Backspace or Alt+Up', async () => {
    const onGoUp = vi.fn();
    render(<Table rows={[fileRow(file('a.txt'))]} onGoUp={onGoUp} />);
    screen.getByRole('grid', { name: 'Files' }).focus();
    await userEvent.keyboard('{Backspace}{Alt>}{ArrowUp}{/Alt}');
    expect(onGoUp).toHaveBeenCalledTimes(2);
  });
});
