/**
 * Renaming a folder in place and moving it into another folder, at any depth: one rename of
 * the directory (its whole subtree goes with it) between parents opened without following a
 * link (safe-dir.ts), and the index node relinked, nothing below it walked (docs/tree.md).
 */
import { rename } from 'node:fs/promises';
import { conflict, fromFsError, notFound } from '../errors.js';
import { joinFolder } from './index-tree.js';
import { assertComponent, splitFolder } from './paths.js';
import type { OpenDir } from './safe-dir.js';
import { lstatIn } from './safe-ops.js';
import { folderKey, keysOf, within, type StorageParts } from './storage-parts.js';

/** Renames a folder at any depth within its parent; `whileLocked` runs once the index has the new name, still under the locks. */
export function renameFolder(s: StorageParts, username: string, folder: string, newName: string, whileLocked?: () => void): Promise<void> {
  return relocateFolder(s, username, folder, splitFolder(folder).parent, newName, whileLocked);
}

/** Moves a folder with its subtree into `to` (null: the root), keeping its name. */
export function moveFolder(s: StorageParts, username: string, folder: string, to: string | null, whileLocked?: () => void): Promise<void> {
  return relocateFolder(s, username, folder, to, splitFolder(folder).name, whileLocked);
}

/**
 * Puts `folder` into `to` as `newName`. Holds both parents' paths shared and the old and the
 * new path exclusively, so work anywhere inside either subtree (which holds each ancestor
 * shared: `keysOf`) runs before or after it; uploads still streaming into the subtree are
 * voided (a 404). 409 `conflict` for a target that is the folder or inside it,
 * `folder_exists` for a name taken there.
 */
async function relocateFolder(
  s: StorageParts,
  username: string,
  folder: string,
  to: string | null,
  newName: string,
  whileLocked: () => void = () => undefined,
): Promise<void> {
  s.assertWritable();
  assertComponent(newName);
  const { parent, name } = splitFolder(folder);
  const arrived = joinFolder(to, newName);
  s.path(username, folder);
  s.path(username, arrived);
  s.requireFolder(username, folder);
  s.requireFolder(username, to);
  if (to !== null && (to === folder || to.startsWith(`${folder}/`)))
    throw conflict('conflict', 'A folder cannot be moved into itself or a folder inside it');
  if (arrived === folder) return;
  const shared = [...new Set([...keysOf(username, parent), ...keysOf(username, to)])];
  await s.live.run(shared, false, () =>
    s.live.run([folderKey(username, folder), folderKey(username, arrived)], true, () =>
      within(s.storageDir, username, parent, parent === null ? 'user_not_found' : 'folder_not_found', (source) =>
        within(s.storageDir, username, to, to === null ? 'user_not_found' : 'folder_not_found', async (target) => {
          await renameDirectory(source, name, target, newName, to);
          s.tickets.voidAll(username, folder);
          await target.fsync();
          if (parent !== to) await source.fsync();
          await source.recheck();
          await target.recheck();
          s.index.relinkFolder(username, folder, to, newName);
          const moved = s.index.folder(username, arrived);
          if (moved) s.index.moveEchoes.expect(username, arrived, moved);
          whileLocked();
        }),
      ),
    ),
  );
}

/** `rename()` of a directory between two open directories, refusing a name taken there (and a source that is no directory). */
async function renameDirectory(source: OpenDir, name: string, target: OpenDir, newName: string, to: string | null): Promise<void> {
  const stat = await lstatIn(source, name);
  if (!stat?.isDirectory()) throw notFound('folder_not_found', 'Folder not found');
  const there = await lstatIn(target, newName);
  // On a case-insensitive disk `Docs` finds `docs` itself: a case-only rename, not a clash.
  if (there && !(there.ino === stat.ino && there.dev === stat.dev)) throw folderTaken(to);
  try {
    await rename(source.at(name), target.at(newName));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Something appeared under the new name since the check (a non-empty directory, a file).
    if (code === 'EEXIST' || code === 'ENOTEMPTY' || code === 'ENOTDIR' || code === 'EISDIR') throw folderTaken(to);
    if (code === 'ENOENT') throw notFound('folder_not_found', 'Folder not found');
    throw fromFsError(err) ?? err;
  }
}

/** The 409 for a name taken where a folder is to arrive (a move, a copy). */
export const folderTaken = (to: string | null) =>
  conflict('folder_exists', `A folder or file with that name already exists ${to === null ? 'at the root' : 'in the folder'}`);
