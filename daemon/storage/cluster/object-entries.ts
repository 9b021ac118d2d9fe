/**
 * Object mode's file operations (docs/cluster.md, "Bytes"): deletes, renames and moves
 * change rows only (a delete then removes the object); a copy is a new object and row.
 * Never replaces another file: a taken name is a 409, checked from the rows under the locks.
 */
import { conflict, notFound } from '../../errors.js';
import type { FileMeta } from '../index-tree.js';
import { assertComponent } from '../paths.js';
import { keysOf } from '../storage-parts.js';
import { newId, objectKey } from './ids.js';
import type { ObjectParts } from './object-parts.js';
import { placeObject } from './object-uploads.js';
import { metaOf } from './rows.js';

/** Deletes a file for good: its row, then its object. */
export async function deleteFile(s: ObjectParts, username: string, folder: string | null, file: string): Promise<void> {
  s.checkNames(username, folder, file);
  s.requireFile(username, folder, file);
  await s.live.run(keysOf(username, folder), false, async () => {
    const id = s.rows.fileId(username, folder, file);
    if (id === undefined) throw notFound('file_not_found', 'File not found');
    await s.deleteRows([s.rows.files.get(id)!], []);
  });
}

/** Renames a file: its row only. Never replaces another file. */
export async function renameFile(s: ObjectParts, username: string, folder: string | null, file: string, newName: string): Promise<void> {
  s.checkNames(username, folder, file);
  assertComponent(newName);
  s.requireFile(username, folder, file);
  if (file === newName) return;
  if (s.index.getFile(username, folder, newName)) throw conflict('file_exists', 'A file with that name already exists');
  await s.live.run(keysOf(username, folder), false, async () => {
    const id = s.rows.fileId(username, folder, file);
    if (id === undefined) throw notFound('file_not_found', 'File not found');
    const other = s.rows.fileId(username, folder, newName);
    if (other !== undefined && other !== id) throw conflict('file_exists', 'A file with that name already exists');
    await s.putFile({ ...s.rows.files.get(id)!, name: newName });
  });
}

/**
 * Moves a file to another folder (or the root): its row only. `whileLocked` runs before the
 * commit (the share that follows the file commits with it).
 */
export async function moveFile(
  s: ObjectParts,
  username: string,
  from: string | null,
  file: string,
  to: string | null,
  whileLocked: (meta: FileMeta) => void = () => undefined,
): Promise<FileMeta> {
  s.checkNames(username, from, file);
  s.checkNames(username, to, file);
  s.requireFile(username, from, file);
  s.requireFolder(username, to);
  if (from === to) throw conflict('file_exists', 'A file with that name already exists in the target folder');
  return s.live.run([...keysOf(username, from), ...keysOf(username, to)], false, async () => {
    const id = s.rows.fileId(username, from, file);
    if (id === undefined) throw notFound('file_not_found', 'File not found');
    const toId = to === null ? null : s.rows.folderId(username, to);
    if (toId === undefined) throw notFound('folder_not_found', 'Folder not found');
    if (s.rows.fileId(username, to, file) !== undefined)
      throw conflict('file_exists', 'A file with that name already exists in the target folder');
    if (to === null && s.rows.folderId(username, file) !== undefined)
      throw conflict('folder_exists', 'A folder with that name already exists at the root');
    const row = { ...s.rows.files.get(id)!, folderId: toId };
    const meta = metaOf(row);
    await s.putFile(row, () => whileLocked(meta));
    return meta;
  });
}

/**
 * Copies a file as a new object and row (`files.copy`); the caller reserves its size
 * against the quota first. Never replaces anything at the target.
 */
export async function copyFile(s: ObjectParts, username: string, from: string | null, file: string, to: string | null): Promise<FileMeta> {
  s.checkNames(username, from, file);
  s.checkNames(username, to, file);
  const sourceId = s.rows.fileId(username, from, file);
  if (sourceId === undefined) throw notFound('file_not_found', 'File not found');
  const source = s.rows.files.get(sourceId)!;
  const id = newId();
  const copied = await s.objects.copy(objectKey(sourceId), objectKey(id));
  return placeObject(
    s,
    { id, ref: objectKey(id), size: copied.size, etag: copied.etag },
    { username, folder: to, file, overwrite: false, isCurrent: () => true, contentType: source.contentType },
  );
}
