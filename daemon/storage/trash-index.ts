/**
 * What a move into or out of the trash does to the file index, alike on both backends
 * (trash-dir.ts, cluster/object-trash.ts): the storage keeps the index in step with its own
 * moves, so the service only writes its records.
 */
import type { FileIndex } from './file-index.js';
import type { Placed, RestoreTarget, Trashed, TrashTarget } from './file-storage.js';

/** Takes a file or folder going into the trash out of the index; what the index counted of it (for the item's record). */
export function takeOutOfIndex(index: FileIndex, target: TrashTarget): Trashed {
  const { username, folder, name } = target;
  if (target.kind === 'file') {
    const size = index.getFile(username, folder, name)?.size ?? 0;
    index.removeFile(username, folder, name);
    return { size, fileCount: 1 };
  }
  const at = folder === null ? name : `${folder}/${name}`;
  // A folder node's totals are its whole subtree's.
  const node = index.folder(username, at);
  const trashed = { size: node?.sizeBytes ?? 0, fileCount: node?.fileCount ?? 0 };
  index.removeFolder(username, at);
  return trashed;
}

/** Shows a restored item in the index under its new name (`target.as`). */
export function showRestored(index: FileIndex, target: RestoreTarget, placed: Placed): void {
  const { username, kind, as } = target;
  if (kind === 'file') {
    for (const [name, meta] of placed.files) index.setFile(username, target.folder, name, meta);
    return;
  }
  const at = target.folder === null ? as : `${target.folder}/${as}`;
  index.addFolder(username, at, placed.folderMtimeMs ?? Date.now());
  for (const [name, meta] of placed.files) index.setFile(username, at, name, meta);
  // The folders below, parents first (a restored subtree comes back whole).
  for (const below of placed.below ?? []) {
    index.addFolder(username, `${at}/${below.path}`, below.mtimeMs);
    for (const [name, meta] of below.files) index.setFile(username, `${at}/${below.path}`, name, meta);
  }
}
