/**
 * "Shared by me" lists the shared files of the whole tree (issue 25), not only of the root's
 * folders: it walks folders.list level by level, asking only for folders that hold folders.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { FileEntry, Folder } from '../../shared/types';
import { SharedByMe } from '../../renderer/components/SharedByMe/SharedByMe';
import { BASE, json, renderWithSession, stubFetch } from './harness';

const node = (path: string, folderCount = 0): Folder => ({
  name: path.slice(path.lastIndexOf('/') + 1),
  path,
  fileCount: 1,
  folderCount,
  sizeBytes: 1024,
  modifiedAt: '2026-01-02T00:00:00Z',
});
const file = (name: string, folder: string | null, shared: boolean): FileEntry => ({
  name,
  folder,
  size: 1024,
  modifiedAt: '2026-01-02T00:00:00.000Z',
  mimeType: 'text/plain',
  shared,
  shareUrl: shared ? `${BASE}/s/${name}-token-0123456789abcdef` : null,
});

const FOLDERS: Record<string, Folder[]> = {
  '': [node('Docs'), node('Photos', 1)],
  Photos: [node('Photos/2024', 1)],
  'Photos/2024': [node('Photos/2024/June')],
};
const FILES: Record<string, FileEntry[]> = {
  Docs: [file('plan.txt', 'Docs', true)],
  Photos: [file('cover.jpg', 'Photos', false)],
  'Photos/2024': [],
  'Photos/2024/June': [file('beach.jpg', 'Photos/2024/June', true)],
};

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('Shared by me', () => {
  it('lists shared files at every depth, asking for the folders of only those that hold folders', async () => {
    const { calls } = stubFetch({
      'GET /api/folders': (url) => json(200, { folders: FOLDERS[url.searchParams.get('folder') ?? ''] ?? [] }),
      'GET /api/files': () => json(200, { files: [file('notes.txt', null, true)] }),
      'GET /api/folders/files': (url) => json(200, { files: FILES[url.searchParams.get('folder') ?? ''] ?? [] }),
    });
    const onOpenFolder = vi.fn();
    renderWithSession(<SharedByMe username="ana" live="live" onOpenFolder={onOpenFolder} />);
    const table = await screen.findByRole('table', { name: 'Files you share by link' });
    const names = await vi.waitFor(() => {
      const rows = within(table).getAllByRole('row').slice(1);
      expect(rows).toHaveLength(3);
      return rows.map((row) => within(row).getByRole('rowheader').textContent);
    });
    expect(names).toEqual(['notes.txt', 'plan.txt', 'beach.jpg']);
    expect(within(table).queryByText('cover.jpg')).toBeNull();
    const listed = calls.filter((call) => call.url.pathname === '/api/folders').map((call) => call.url.searchParams.get('folder'));
    expect(listed.sort()).toEqual([null, 'Photos', 'Photos/2024'].sort());
    // The folder column opens the file's folder, by its path.
    await userEvent.click(within(table).getByRole('button', { name: 'Photos/2024/June' }));
    expect(onOpenFolder).toHaveBeenCalledWith('Photos/2024/June');
  });
});
