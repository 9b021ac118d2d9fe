import { useEffect, useState } from 'react';
import { useQueries } from '@tanstack/react-query';
import { ApiError } from '../../api/client';
import { queryKeys } from '../../api/queryKeys';
import { childFolder, parentFolder } from '../../lib/places';
import { useClient } from '../Session/sessionContext';

/** How many folders of one level the tree shows before a "Show more" entry (a level can hold thousands). */
export const TREE_LEVEL_CAP = 200;

/** One visible line of the tree: a folder, or the "Show more" entry closing a long level. */
export type TreeRow =
  | {
      kind: 'folder';
      key: string;
      path: string;
      name: string;
      level: number;
      parent: string | null;
      /** The daemon's folderCount says it holds folders: it gets a chevron and can be expanded. */
      hasChildren: boolean;
      expanded: boolean;
      /** Expanded, its folders not listed yet. */
      busy: boolean;
      posinset: number;
      setsize: number;
    }
  | { kind: 'more'; key: string; parent: string | null; level: number; hidden: number };

/** `a/b/c` → `a`, `a/b` (not itself): the folders to expand so that it shows. */
function ancestorsOf(folder: string | null): string[] {
  const out: string[] = [];
  for (let up = folder === null ? null : parentFolder(folder); up !== null; up = parentFolder(up)) out.push(up);
  return out;
}
const withAll = (set: ReadonlySet<string>, paths: string[]) => (paths.every((path) => set.has(path)) ? set : new Set([...set, ...paths]));

/**
 * The sidebar tree's state: which folders are expanded (the open folder's ancestors always
 * are), each expanded folder's listing fetched when it is expanded (lazily), and the visible
 * lines in order. Listings are under the user's `folders` prefix, so live folder events
 * refresh them. A folder gone meanwhile (moved, deleted) lists as nothing rather than failing.
 */
export function useFolderTree(username: string, open: string | null) {
  const client = useClient();
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set(ancestorsOf(open)));
  const [caps, setCaps] = useState<ReadonlyMap<string | null, number>>(new Map());
  useEffect(() => setExpanded((current) => withAll(current, ancestorsOf(open))), [open]);

  // Only the levels on screen are fetched: the root and each expanded folder whose parents all are.
  const listed = [null, ...[...expanded].filter((path) => ancestorsOf(path).every((up) => expanded.has(up)))];
  const listings = useQueries({
    queries: listed.map((folder) => ({
      queryKey: queryKeys.folderTree(username, folder),
      queryFn: async ({ signal }: { signal: AbortSignal }) => {
        try {
          return (await client.call('folders.list', { username, folder: folder ?? undefined }, signal)).folders;
        } catch (error) {
          // Moved or deleted since it was expanded: its parent's listing, refreshed by the same event, drops it.
          if (error instanceof ApiError && error.status === 404 && folder !== null) return [];
          throw error;
        }
      },
    })),
  });
  const byFolder = new Map(listed.map((folder, index) => [folder, listings[index]]));

  const rows: TreeRow[] = [];
  const addLevel = (parent: string | null, level: number) => {
    const folders = byFolder.get(parent)?.data ?? [];
    const cap = caps.get(parent) ?? TREE_LEVEL_CAP;
    folders.slice(0, cap).forEach((folder, index) => {
      const path = folder.path ?? childFolder(parent, folder.name);
      const hasChildren = (folder.folderCount ?? 0) > 0;
      const isExpanded = hasChildren && expanded.has(path);
      const listing = isExpanded ? byFolder.get(path) : undefined;
      rows.push({
        kind: 'folder',
        key: `f:${path}`,
        path,
        name: folder.name,
        level,
        parent,
        hasChildren,
        expanded: isExpanded,
        busy: listing?.isPending ?? false,
        posinset: index + 1,
        setsize: folders.length,
      });
      if (isExpanded) addLevel(path, level + 1);
    });
    if (folders.length > cap) rows.push({ kind: 'more', key: `m:${parent ?? ''}`, parent, level, hidden: folders.length - cap });
  };
  addLevel(null, 1);

  const root = listings[0];
  return {
    rows,
    pending: root.isPending,
    failed: root.isError,
    setExpanded: (path: string, on: boolean) =>
      setExpanded((current) => {
        const next = new Set(current);
        if (on) next.add(path);
        else next.delete(path);
        return next;
      }),
    showMore: (parent: string | null) =>
      setCaps((current) => new Map(current).set(parent, (current.get(parent) ?? TREE_LEVEL_CAP) + TREE_LEVEL_CAP)),
  };
}
