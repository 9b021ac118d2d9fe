/**
 * What a restore from object mode's trash writes (object-trash.ts), as rows: the folder path it
 * goes back to, made again level by level where it is gone (as restore-folder.ts does on
 * disk), and a trashed folder's subtree brought back whole under it, its top row renamed
 * and re-parented, every row below unchanged but for `trashId`.
 */
import type { StoredFile, StoredFolder } from '../../store/schema.js';
import { NameTaken, type Placed } from '../file-storage.js';
import { joinFolder, type FileMeta } from '../index-tree.js';
import { folderComponents } from '../paths.js';
import { newId } from './ids.js';
import { metaOf, parentOf, type IndexedRows } from './rows.js';

/**
 * The id of the visible folder at `folder` (null: the root), with the rows to make for the
 * levels that are gone; NameTaken('file') where a file holds one of their names.
 */
export function folderPathRows(rows: IndexedRows, username: string, folder: string | null): { id: string | null; made: StoredFolder[] } {
  const made: StoredFolder[] = [];
  let id: string | null = null;
  let path: string | null = null;
  for (const name of folderComponents(folder)) {
    const found: string | undefined = made.length === 0 ? rows.childFolderId(username, id, name) : undefined;
    if (found !== undefined) id = found;
    else {
      if (made.length === 0 && rows.fileId(username, path, name) !== undefined) throw new NameTaken('file');
      const row: StoredFolder = { id: newId(), username, name, mtimeMs: Date.now(), trashId: null, parentId: id };
      made.push(row);
      id = row.id;
    }
    path = joinFolder(path, name);
  }
  return { id, made };
}

/**
 * A trashed folder's rows made visible again under `parentId` as `as`: the top one (the row
 * whose parent is not in the item) renamed and re-parented, the rest as they were; with what
 * the index shows of them (`Placed`: the top's files, and each folder below by its path).
 */
export function restoredSubtree(
  held: { files: StoredFile[]; folders: StoredFolder[] },
  username: string,
  parentId: string | null,
  as: string,
): { folders: StoredFolder[]; files: StoredFile[]; placed: Placed } {
  const ids = new Set(held.folders.map((f) => f.id));
  // A folder item without its folder row (a crash between commits cannot make one, but a row edited by hand can): made anew.
  const top = held.folders.find((f) => !ids.has(parentOf(f) ?? '')) ?? {
    id: newId(),
    username,
    name: as,
    mtimeMs: Date.now(),
    trashId: null,
  };
  const folders: StoredFolder[] = [{ ...top, name: as, parentId, trashId: null }];
  const childrenOf = new Map<string, StoredFolder[]>();
  for (const f of held.folders) {
    if (f.id !== top.id) childrenOf.set(parentOf(f) ?? '', [...(childrenOf.get(parentOf(f) ?? '') ?? []), f]);
  }
  const below: NonNullable<Placed['below']> = [];
  const filesOf = new Map<string, Map<string, FileMeta>>([[top.id, new Map()]]);
  // Parents first, from the top down; each folder's path relative to the top.
  const queue: { id: string; path: string | null }[] = [{ id: top.id, path: null }];
  for (let i = 0; i < queue.length; i++) {
    for (const f of childrenOf.get(queue[i].id) ?? []) {
      const path = joinFolder(queue[i].path, f.name);
      const files = new Map<string, FileMeta>();
      folders.push({ ...f, trashId: null });
      below.push({ path, mtimeMs: f.mtimeMs, files });
      filesOf.set(f.id, files);
      queue.push({ id: f.id, path });
    }
  }
  const files: StoredFile[] = [];
  for (const f of held.files) {
    // A file whose folder is not in the item (a row edited by hand) comes back in the top folder.
    const folderId = f.folderId !== null && filesOf.has(f.folderId) ? f.folderId : top.id;
    files.push({ ...f, folderId, trashId: null });
    filesOf.get(folderId)!.set(f.name, metaOf(f));
  }
  return { folders, files, placed: { files: filesOf.get(top.id)!, folderMtimeMs: top.mtimeMs, below } };
}
