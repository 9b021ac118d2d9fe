import { useEffect, useMemo, useRef } from 'react';
import { useFiles, useFolderLinks, useFolders } from '../../hooks/queries';
import { fileRow, folderRow, sortRows, type Sort } from '../../lib/rows';
import { childFolder, folderName, parentFolder } from '../../lib/places';

/**
 * The rows of one directory at any depth: the folders directly inside it (each with the links it
 * has), then its files, in `sort` order (folders first). `onFolderGone` runs when the open folder
 * no longer exists.
 */
export function useDirectoryRows(username: string, folder: string | null, sort: Sort, onFolderGone: () => void) {
  const folders = useFolders(username, folder);
  const files = useFiles(username, folder);
  // The listing the open folder is itself in: where its deletion (here or elsewhere) shows.
  const siblings = useFolders(username, folder === null ? null : parentFolder(folder));
  const links = useFolderLinks(username).data;
  const allRows = useMemo(
    () => [
      ...(folders.data ?? []).map((entry) => {
        const has = links?.get(entry.path ?? childFolder(folder, entry.name));
        return folderRow(entry, has ? { folder: has.folder !== undefined, upload: has.upload !== undefined } : undefined);
      }),
      ...(files.data ?? []).map(fileRow),
    ],
    [files.data, folders.data, folder, links],
  );
  const rows = useMemo(() => sortRows(allRows, sort), [allRows, sort]);
  const loading = files.isPending || (folders.isPending && !files.isError);

  // Deleted here or elsewhere while open. One that never was (a stale bookmark) stays, and its
  // listing's 404 shows the not-found state with a way back.
  const seen = useRef<string | null>(null);
  useEffect(() => {
    if (folder === null || !siblings.data) return;
    const name = folderName(folder);
    const exists = siblings.data.some((entry) => entry.name === name);
    if (!exists && seen.current === folder) onFolderGone();
    seen.current = exists ? folder : null;
  }, [folder, siblings.data, onFolderGone]);

  return { files, rows, allRows, loading };
}
