import type { FileEntry, Folder } from '../../shared/types';

/** Which links a folder has: a folder link (its tree) and an upload link (from shares.list: a `Folder` has no share flag). */
export interface FolderLinkFlags {
  folder: boolean;
  upload: boolean;
}

const NO_LINKS: FolderLinkFlags = { folder: false, upload: false };

/** One line of the file table: a folder or a file. */
export type Row =
  | { kind: 'folder'; key: string; name: string; size: number; modifiedAt: string; shared: boolean; links: FolderLinkFlags; folder: Folder }
  | { kind: 'file'; key: string; name: string; size: number; modifiedAt: string; shared: boolean; file: FileEntry };

export type SortKey = 'name' | 'size' | 'modified' | 'shared';
export type SortDirection = 'asc' | 'desc';
export interface Sort {
  key: SortKey;
  direction: SortDirection;
}

export const folderRow = (folder: Folder, links: FolderLinkFlags = NO_LINKS): Row => ({
  kind: 'folder',
  key: `d:${folder.name}`,
  name: folder.name,
  size: folder.sizeBytes,
  modifiedAt: folder.modifiedAt,
  shared: links.folder || links.upload,
  links,
  folder,
});

/** What a folder holds, at every depth: its files and its folders (the daemon's subtree totals). */
export const folderItems = (folder: Folder): number => folder.fileCount + (folder.folderCount ?? 0);

/**
 * The folder a row is in (null: the root). A file says so itself (`FileEntry.folder`), so a
 * search result, listed far from its folder, is still acted on there; a folder row is in the
 * listing's folder, `listed`.
 */
export function folderOfRow(row: Row, listed: string | null): string | null {
  return row.kind === 'file' ? row.file.folder : listed;
}

export const fileRow = (file: FileEntry): Row => ({
  kind: 'file',
  key: `f:${file.name}`,
  name: file.name,
  size: file.size,
  modifiedAt: file.modifiedAt,
  shared: file.shared,
  file,
});

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

function compareBy(key: SortKey, a: Row, b: Row): number {
  switch (key) {
    case 'name':
      return collator.compare(a.name, b.name);
    case 'size':
      return a.size - b.size;
    case 'modified':
      return Date.parse(a.modifiedAt) - Date.parse(b.modifiedAt);
    case 'shared':
      return Number(a.shared) - Number(b.shared);
  }
}

/**
 * Sorted copy: folders always before files (as in Finder and Nautilus), then by the
 * column, ties broken by name ascending so the order is stable and predictable.
 */
export function sortRows(rows: readonly Row[], sort: Sort): Row[] {
  const sign = sort.direction === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    if (a.kind !== b.kind) return a.kind === 'folder' ? -1 : 1;
    const primary = compareBy(sort.key, a, b) * sign;
    if (primary !== 0) return primary;
    return collator.compare(a.name, b.name);
  });
}

/** Clicking a column sorts by it ascending; clicking the current column flips the direction. */
export function nextSort(current: Sort, key: SortKey): Sort {
  if (current.key === key) return { key, direction: current.direction === 'asc' ? 'desc' : 'asc' };
  return { key, direction: key === 'modified' || key === 'size' ? 'desc' : 'asc' };
}
