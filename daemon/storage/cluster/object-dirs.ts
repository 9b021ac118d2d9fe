/**
 * Object mode's users and folders (docs/cluster.md, "Bytes"): rows only, changed under the
 * disk path's locks and committed before the index shows them; a deleted user's or folder's
 * objects go after the commit that removed their rows (a failure leaves orphans for the
 * sweeper, never a row without its object).
 */
import { conflict, nameUnavailable, notFound } from '../../errors.js';
import type { StoredFolder } from '../../store/schema.js';
import { failpoint } from '../../util/failpoints.js';
import type { DeleteUserSteps } from '../file-storage.js';
import { assertComponent } from '../paths.js';
import { folderKey, userKey } from '../storage-parts.js';
import { newId } from './ids.js';
import { missingIn, type ObjectParts } from './object-parts.js';
/**
 * A self-registered user starts empty: any row of that name (files, folders, trashed ones,
 * trash records: left by an older version's deletion cut short) is a 409, never adopted.
 */
export async function claimUserDir(s: ObjectParts, username: string): Promise<void> {
  assertComponent(username);
  const { files, folders } = s.rows.rowsOf(username);
  if (files.length > 0 || folders.length > 0 || s.store.trashOf(username).length > 0) throw nameUnavailable();
  s.index.ensureUser(username);
}

/** Every row of the user takes the new name, in one commit; the bytes stay where they are. */
export async function renameUser(s: ObjectParts, from: string, to: string): Promise<void> {
  assertComponent(from);
  assertComponent(to);
  await s.live.run([userKey(from), userKey(to)], true, async () => {
    s.tickets.voidAll(from);
    const { files, folders } = s.rows.rowsOf(from);
    const renamedFolders = folders.map((f) => ({ ...f, username: to }));
    const renamedFiles = files.map((f) => ({ ...f, username: to }));
    for (const f of renamedFolders) s.store.folders.set(f.id, f);
    for (const f of renamedFiles) s.store.files.set(f.id, f);
    await s.store.commit();
    // As on disk, the user's tree moves whole and silently: applying the rows then changes nothing the index shows.
    s.index.renameUser(from, to);
    s.index.ensureUser(to);
    for (const f of renamedFolders) s.rows.applyFolder(f.id, f);
    for (const f of renamedFiles) s.rows.applyFile(f.id, f);
  });
}

/**
 * Every row of the user goes (trash included) in the commit that removes their records
 * (`steps`; alone, its own), so no crash leaves rows a new account of that name would
 * show; then their objects.
 */
export async function deleteUser(s: ObjectParts, username: string, steps?: DeleteUserSteps): Promise<void> {
  assertComponent(username);
  await s.live.run([userKey(username)], true, async () => {
    s.tickets.voidAll(username);
    const { files, folders } = s.rows.rowsOf(username);
    for (const f of files) s.store.files.delete(f.id);
    for (const f of folders) s.store.folders.delete(f.id);
    await (steps ? steps.commit() : s.store.commit());
    failpoint('user.delete.committed');
    for (const f of files) s.rows.applyFile(f.id, undefined);
    for (const f of folders) s.rows.applyFolder(f.id, undefined);
    s.index.removeUser(username);
    await s.deleteObjects(files.map((f) => f.id));
  });
}

/** Makes a folder's row (409 for a folder or root file of that name). */
export async function createFolder(s: ObjectParts, username: string, folder: string): Promise<void> {
  assertComponent(username);
  assertComponent(folder);
  if (s.index.user(username)?.folders.has(folder)) throw conflict('folder_exists', 'Folder already exists');
  await s.live.run([userKey(username)], false, async () => {
    if (!s.index.user(username)) throw missingIn(null);
    if (s.rows.folderId(username, folder) !== undefined) throw conflict('folder_exists', 'Folder already exists');
    if (s.rows.fileId(username, null, folder) !== undefined) throw conflict('folder_exists', 'A file with that name already exists');
    const row: StoredFolder = { id: newId(), username, name: folder, mtimeMs: Date.now(), trashId: null };
    s.store.folders.set(row.id, row);
    await s.store.commit();
    s.rows.applyFolder(row.id, row);
  });
}

/** Deletes a folder and its files for good (rows first, then objects). */
export async function deleteFolder(s: ObjectParts, username: string, folder: string): Promise<void> {
  assertComponent(username);
  assertComponent(folder);
  s.requireFolder(username, folder);
  await s.live.run([userKey(username)], false, () =>
    s.live.run([folderKey(username, folder)], true, async () => {
      const id = s.rows.folderId(username, folder);
      if (id === undefined) throw notFound('folder_not_found', 'Folder not found');
      s.tickets.voidAll(username, folder);
      // Its files in the trash are items of their own: they stay (a restore makes the folder again).
      const files = s.rows.filesIn(id).filter((f) => f.trashId === null);
      await s.deleteRows(files, [s.rows.folders.get(id)!]);
    }),
  );
}

/**
 * Renames a folder: its row only (its files name it by id). `whileLocked` runs before the
 * commit, so what it changes in the store (the shares) commits with the rename.
 */
export async function renameFolder(
  s: ObjectParts,
  username: string,
  folder: string,
  newName: string,
  whileLocked: () => void = () => undefined,
): Promise<void> {
  assertComponent(username);
  assertComponent(folder);
  assertComponent(newName);
  s.requireFolder(username, folder);
  if (folder === newName) return;
  await s.live.run([userKey(username)], false, () =>
    s.live.run([folderKey(username, folder), folderKey(username, newName)], true, async () => {
      const id = s.rows.folderId(username, folder);
      if (id === undefined) throw notFound('folder_not_found', 'Folder not found');
      const other = s.rows.folderId(username, newName);
      if ((other !== undefined && other !== id) || s.rows.fileId(username, null, newName) !== undefined)
        throw conflict('folder_exists', 'A folder or file with that name already exists at the root');
      s.tickets.voidAll(username, folder);
      const row = { ...s.rows.folders.get(id)!, name: newName };
      s.store.folders.set(id, row);
      whileLocked();
      await s.store.commit();
      s.rows.applyFolder(id, row);
    }),
  );
}
