/**
 * The rows an embedded installation becomes in `nimbus migrate` (to-database.ts): a folder row
 * per folder at every depth naming its parent's id, a file row per file naming its folder's.
 */
import mime from 'mime-types';
import type { StoredFile, StoredFolder } from '../store/schema.js';
import { splitFolder } from '../storage/paths.js';
import type { SourceFile, SourceFolder } from './embedded-source.js';

export interface PlannedFile {
  source: SourceFile;
  row: StoredFile;
}

/**
 * The rows the installation becomes: ids derived from each entry's place (a folder's by its
 * path, so a one-level folder keeps the id it always had), so every run plans the same ones.
 * Folder rows name their parent's id, parents first.
 */
export function planRows(
  files: SourceFile[],
  folders: SourceFolder[],
  idOf: (kind: 'file' | 'folder', ...parts: (string | null)[]) => string,
): { files: PlannedFile[]; folders: StoredFolder[] } {
  const live = new Set(folders.filter((f) => f.trashId === null).map((f) => idOf('folder', f.username, f.name, null)));
  /** The id of the live folder at a path, if there is one (a trashed entry keeps its folder while that exists, as a daemon leaves it). */
  const liveId = (username: string, folder: string | null) => {
    const id = folder === null ? null : idOf('folder', username, folder, null);
    return id !== null && live.has(id) ? id : null;
  };
  const folderRows = folders.map((f): StoredFolder => {
    const { parent, name } = splitFolder(f.name);
    // A trashed folder's top names the folder it was deleted from; the folders below it, their parent in the item.
    const parentId =
      parent === null
        ? f.trashId === null
          ? null
          : liveId(f.username, f.deletedFrom ?? null)
        : idOf('folder', f.username, parent, f.trashId);
    return {
      id: idOf('folder', f.username, f.name, f.trashId),
      username: f.username,
      name,
      mtimeMs: f.mtimeMs,
      trashId: f.trashId,
      parentId,
    };
  });
  const planned = files.map((source): PlannedFile => {
    let folderId: string | null = null;
    if (source.inTrashedFolder) folderId = idOf('folder', source.username, source.folder, source.trashId);
    else if (source.folder !== null) folderId = liveId(source.username, source.folder);
    return {
      source,
      row: {
        id: idOf('file', source.username, source.folder, source.name, source.trashId),
        username: source.username,
        folderId,
        name: source.name,
        size: source.size,
        mtimeMs: source.mtimeMs,
        contentType: mime.lookup(source.name) || 'application/octet-stream',
        etag: '',
        trashId: source.trashId,
      },
    };
  });
  return { files: planned, folders: folderRows };
}
