/** How two of the index's trees differ, as change events (a user's tree swapped in after a scan: file-index.ts). */
import { joinFolder, type FileMeta, type FolderNode } from './index-tree.js';

type FileChange = 'file.added' | 'file.changed' | 'file.removed';

/** Calls `emit` for each file added, changed (size or mtime) or removed between two maps. */
export function diffFiles(
  before: Map<string, FileMeta>,
  after: Map<string, FileMeta>,
  emit: (type: FileChange, name: string) => void,
): void {
  for (const [name, meta] of after) {
    const old = before.get(name);
    if (!old) emit('file.added', name);
    else if (old.size !== meta.size || old.mtimeMs !== meta.mtimeMs) emit('file.changed', name);
  }
  for (const name of before.keys()) if (!after.has(name)) emit('file.removed', name);
}

/**
 * Calls `emit` for each difference between two maps of folders under `parent` (null: the
 * user's root), at every depth, each naming its folder's path. A folder gone is one
 * `folder.removed`, not one event per file it held.
 */
export function diffFolders(
  before: Map<string, FolderNode>,
  after: Map<string, FolderNode>,
  parent: string | null,
  emit: (type: FileChange | 'folder.added' | 'folder.removed', folder: string, file: string | null) => void,
): void {
  for (const [name, node] of after) {
    const folder = joinFolder(parent, name);
    const old = before.get(name);
    if (!old) emit('folder.added', folder, null);
    diffFiles(old?.files ?? new Map(), node.files, (type, file) => emit(type, folder, file));
    diffFolders(old?.folders ?? new Map(), node.folders, folder, emit);
  }
  for (const name of before.keys()) if (!after.has(name)) emit('folder.removed', joinFolder(parent, name), null);
}
