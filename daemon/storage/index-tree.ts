/** The shape of the file index's tree (users → folders → files), and how two file maps differ. */

/** What the index knows of one file. */
export interface FileMeta {
  size: number;
  mtimeMs: number;
}

export interface FolderNode {
  files: Map<string, FileMeta>;
  mtimeMs: number;
  sizeBytes: number;
}

export interface UserNode {
  root: Map<string, FileMeta>;
  folders: Map<string, FolderNode>;
  usedBytes: number;
}

/** Calls `emit` for each file added, changed (size or mtime) or removed between two maps. */
export function diffFiles(
  before: Map<string, FileMeta>,
  after: Map<string, FileMeta>,
  emit: (type: 'file.added' | 'file.changed' | 'file.removed', name: string) => void,
): void {
  for (const [name, meta] of after) {
    const old = before.get(name);
    if (!old) emit('file.added', name);
    else if (old.size !== meta.size || old.mtimeMs !== meta.mtimeMs) emit('file.changed', name);
  }
  for (const name of before.keys()) if (!after.has(name)) emit('file.removed', name);
}

/** The files, folders and bytes of every user's tree, counted. */
export function countTotals(users: Iterable<[string, UserNode]>): { files: number; folders: number; usedBytes: number } {
  let files = 0;
  let folders = 0;
  let usedBytes = 0;
  for (const [, node] of users) {
    files += node.root.size;
    folders += node.folders.size;
    for (const f of node.folders.values()) files += f.files.size;
    usedBytes += node.usedBytes;
  }
  return { files, folders, usedBytes };
}
