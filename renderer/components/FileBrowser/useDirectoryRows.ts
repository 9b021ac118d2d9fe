import { useEffect, useMemo } from 'react';
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

  // Deleted here or elsewhere.
  useEffect(() => {
    if (folder !== null && folders.data && !folders.data.some((entry) => entry.name === folder)) onFolderGone();
  }, [folder, folders.data, onFolderGone]);

  return { files, rows, allRows, loading };
}
