/**
 * Moving a file between a user's folders (or the root), always through directories opened
 * without following links (safe-dir.ts), so a folder swapped for a link mid-request is never
 * followed. (A copy is an upload whose body is the source file: daemon/services/transfers.ts;
 * a folder's rename and move: folder-moves.ts.)
 */
import type { Stats } from 'node:fs';
import { rename } from 'node:fs/promises';
import { ApiError, conflict, fromFsError, notFound } from '../errors.js';
import type { FileMeta } from './file-index.js';
import type { OpenDir } from './safe-dir.js';
import { lstatIn, renameNoClobberSync } from './safe-ops.js';
import { keysOf, within, type StorageParts } from './storage-parts.js';

const missingDir = (folder: string | null) => (folder === null ? 'user_not_found' : 'folder_not_found');

/** The 409 for a name taken at a move's target: a folder at the root is `folder_exists`, anything else `file_exists`. */
function takenAt(to: string | null, there: Stats | null): ApiError {
  if (to === null && there?.isDirectory()) return conflict('folder_exists', 'A folder with that name already exists at the root');
  return conflict('file_exists', 'A file with that name already exists in the target folder');
}

/**
 * Moves `file` from folder `from` to folder `to` (null: the root) of the same user: one
 * rename that never replaces (RENAME_NOREPLACE), or else a link under the new name and the
 * old name unlinked, so it never replaces a file another program put there meanwhile (a crash
 * between the two leaves the file under both names, never under none). Holds both
 * directories shared, so neither is deleted or renamed meanwhile. `whileLocked` runs once the
 * index has the file at its new place, still under the locks (the caller moves its share
 * there, so a folder rename cannot slip in between).
 */
export async function moveFile(
  s: StorageParts,
  username: string,
  from: string | null,
  file: string,
  to: string | null,
  whileLocked: (meta: FileMeta) => void = () => undefined,
): Promise<FileMeta> {
  s.assertWritable();
  s.path(username, from, file);
  s.path(username, to, file);
  s.requireFile(username, from, file);
  s.requireFolder(username, to);
  if (from === to) throw takenAt(to, null);
  return s.live.run([...keysOf(username, from), ...keysOf(username, to)], false, () =>
    within(s.storageDir, username, from, missingDir(from), (source) =>
      within(s.storageDir, username, to, missingDir(to), async (target) => {
        const stat = await lstatIn(source, file);
        if (!stat?.isFile()) throw notFound('file_not_found', 'File not found');
        const there = await lstatIn(target, file);
        if (there) throw takenAt(to, there);
        await moveName(source, target, file, to);
        await target.fsync();
        await source.fsync();
        await source.recheck();
        await target.recheck();
        const meta = { size: stat.size, mtimeMs: stat.mtimeMs };
        s.index.removeFile(username, from, file);
        s.index.setFile(username, to, file, meta);
        whileLocked(meta);
        return meta;
      }),
    ),
  );
}

/** Synchronous, as a rename's (entries.ts): metadata in the kernel's caches, cheaper than the thread pool. */
async function moveName(source: OpenDir, target: OpenDir, file: string, to: string | null): Promise<void> {
  try {
    renameNoClobberSync(source, file, target, file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw takenAt(to, await lstatIn(target, file));
    if (code === 'ENOENT') throw notFound('file_not_found', 'File not found');
    // No hard links here (a file system without them, or protected_hardlinks on a file of
    // another owner): a plain rename, after the check above; it moves a link itself, never its target.
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw fromFsError(err) ?? err;
    const there = await lstatIn(target, file);
    if (there) throw takenAt(to, there);
    await rename(source.at(file), target.at(file));
  }
}
