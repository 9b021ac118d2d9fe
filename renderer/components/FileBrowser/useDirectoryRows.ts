import { useEffect, useMemo, useRef } from 'react';
import { useFiles, useFolders } from '../../hooks/queries';
import { fileRow, folderRow, sortRows, type Sort } from '../../lib/rows';

/**
 * The rows of one directory: the user's folders (at the root only; folders are one level deep)
 * and the files, in `sort` order. `onFolderGone` runs when the open folder no longer exists.
 */
export function useDirectoryRows(username: string, folder: string | null, sort: Sort, onFolderGone: () => void) {
  const folders = useFolders(username);
  const files = useFiles(username, folder);
  const allRows = useMemo(() => {
    const fileRows = (files.data ?? []).map(fileRow);
    return folder === null ? [...(folders.data ?? []).map(folderRow), ...fileRows] : fileRows;
  }, [files.data, folders.data, folder]);
  const rows = useMemo(() => sortRows(allRows, sort), [allRows, sort]);
  const loading = files.isPending || (folder === null && folders.isPending);

  // Deleted here or elsewhere while open. One that never was (a stale bookmark) stays, and its
  // listing's 404 shows the not-found state with a way back.
  const seen = useRef(false);
  useEffect(() => {
    if (folder === null || !folders.data) return;
    const exists = folders.data.some((entry) => entry.name === folder);
    if (!exists && seen.current) onFolderGone();
    seen.current = exists;
  }, [folder, folders.data, onFolderGone]);

  return { files, rows, allRows, loading };
}
