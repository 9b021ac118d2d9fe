import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import type { FileEntry, Folder } from '../../shared/types';
import { FileTable } from '../../renderer/components/FileTable/FileTable';
import { fileRow, folderRow, nextSort, sortRows, type Row, type Sort } from '../../renderer/lib/rows';
import { EMPTY_SELECTION } from '../../renderer/lib/selection';
import { fakeLayout } from './harness';

const file = (name: string, size: number, modifiedAt: string, shared = false): FileEntry => ({
  name,
  folder: null,
  size,
  modifiedAt,
  mimeType: 'application/octet-stream',
  shared,
  shareUrl: shared ? 'http://x/s/t' : null,
});
const folder = (name: string): Folder => ({
  name,
  path: name,
  fileCount: 1,
  folderCount: 0,
  sizeBytes: 999_999,
  modifiedAt: '2020-01-01T00:00:00Z',
});

const rows: Row[] = [
  fileRow(file('file10.txt', 300, '2025-01-03T00:00:00Z')),
  fileRow(file('File2.txt', 100, '2025-01-01T00:00:00Z', true)),
  folderRow(folder('Zeta')),
  fileRow(file('alpha.txt', 200, '2025-01-02T00:00:00Z')),
  folderRow(folder('beta')),
];
const names = (list: Row[]) => list.map((row) => row.name);

describe('sortRows', () => {
  it('puts folders first, then sorts names naturally and case-insensitively', () => {
    expect(names(sortRows(rows, { key: 'name', direction: 'asc' }))).toEqual(['beta', 'Zeta', 'alpha.txt', 'File2.txt', 'file10.txt']);
  });

  it('reverses within folders and files, keeping folders first', () => {
    expect(names(sortRows(rows, { key: 'name', direction: 'desc' }))).toEqual(['Zeta', 'beta', 'file10.txt', 'File2.txt', 'alpha.txt']);
  });

  it('sorts by size, by modified date and by shared state', () => {
    expect(names(sortRows(rows, { key: 'size', direction: 'desc' })).slice(2)).toEqual(['file10.txt', 'alpha.txt', 'File2.txt']);
    expect(names(sortRows(rows, { key: 'modified', direction: 'asc' })).slice(2)).toEqual(['File2.txt', 'alpha.txt', 'file10.txt']);
    expect(names(sortRows(rows, { key: 'shared', direction: 'desc' })).slice(2)).toEqual(['File2.txt', 'alpha.txt', 'file10.txt']);
  });

  it('breaks ties by name so the order is stable', () => {
    const same = ['c', 'a', 'b'].map((n) => fileRow(file(n, 5, '2025-01-01T00:00:00Z')));
    expect(names(sortRows(same, { key: 'size', direction: 'desc' }))).toEqual(['a', 'b', 'c']);
  });

  it('does not change the input array', () => {
    const before = names(rows);
    sortRows(rows, { key: 'size', direction: 'asc' });
    expect(names(rows)).toEqual(before);
  });
});

describe('nextSort', () => {
  it('flips the direction on the same column and starts numbers and dates newest/largest first', () => {
    expect(nextSort({ key: 'name', direction: 'asc' }, 'name')).toEqual({ key: 'name', direction: 'desc' });
    expect(nextSort({ key: 'name', direction: 'asc' }, 'size')).toEqual({ key: 'size', direction: 'desc' });
    expect(nextSort({ key: 'size', direction: 'desc' }, 'name')).toEqual({ key: 'name', direction: 'asc' });
  });
});

function SortableTable() {
  const [sort, setSort] = useState<Sort>({ key: 'name', direction: 'asc' });
  return (
    <FileTable
      label="Files"
      rows={sortRows(rows, sort)}
      selection={EMPTY_SELECTION}
      onSelectionChange={() => {}}
      sort={sort}
      onSort={(key) => setSort((current) => nextSort(current, key))}
      editingKey={null}
      onOpen={() => {}}
      onStartRename={() => {}}
      onRenameCommit={() => {}}
      onRenameCancel={() => {}}
      onDelete={() => {}}
      onShareClick={() => {}}
    />
  );
}

describe('sortable column headers', () => {
  let restore: () => void;
  beforeAll(() => {
    restore = fakeLayout();
  });
  afterAll(() => restore());
  afterEach(cleanup);

  const bodyNames = () =>
    screen
      .getAllByRole('row')
      .slice(1)
      .map((row) => within(row).getAllByRole('gridcell')[0].textContent);

  it('sorts by a column when its header is pressed and says so with aria-sort', async () => {
    render(<SortableTable />);
    const nameHeader = screen.getByRole('columnheader', { name: /Name/ });
    expect(nameHeader.getAttribute('aria-sort')).toBe('ascending');
    await userEvent.click(screen.getByRole('button', { name: 'Size' }));
    expect(screen.getByRole('columnheader', { name: /Size/ }).getAttribute('aria-sort')).toBe('descending');
    expect(nameHeader.getAttribute('aria-sort')).toBe('none');
    expect(bodyNames()).toEqual(['beta', 'Zeta', 'file10.txt', 'alpha.txt', 'File2.txt']);
    await userEvent.click(screen.getByRole('button', { name: 'Size' }));
    expect(bodyNames().slice(2)).toEqual(['File2.txt', 'alpha.txt', 'file10.txt']);
  });
});
