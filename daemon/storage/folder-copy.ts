/**
 * Copying a folder with its subtree (folders.copy, docs/tree.md). The copy is written under a
 * hidden name beside the target (`.nimbus-copy-<hex>`: a reserved name the API, the scan and
 * the watcher never show), every file and directory fsynced, then given its name with one
 * `rename()`, so no half tree is ever visible under it; on any failure the hidden directory is
 * removed. Both sides are opened without following links (safe-dir.ts); inside the source a
 * link, at any depth, is skipped, never followed, as the scan skips it, and so are names the
 * API cannot address: the copy holds what the index counts.
 */
import { constants } from 'node:fs';
import { open, readdir, rename, type FileHandle } from 'node:fs/promises';
import { FOLDER_PATH_MAX_BYTES, FOLDER_PATH_MAX_LEVELS } from '../../shared/validation.js';
import { ApiError, badRequest, conflict, fromFsError } from '../errors.js';
import { errnoCode } from '../util/errno.js';
import { failpoint } from '../util/failpoints.js';
import { folderTaken } from './folder-moves.js';
import { isNoDir } from './fs-helpers.js';
import { emptyFolder, joinFolder, sumFolder, type FileMeta, type FolderNode } from './index-tree.js';
import { splitFolder } from './paths.js';
import type { OpenDir } from './safe-dir.js';
import { lstatIn, mkdirIn, removeTree } from './safe-ops.js';
import { isAddressableName, isFolderPathInLimits } from './scan.js';
import { copyingName } from './staging-names.js';
import { folderKey, keysOf, within, type StorageParts } from './storage-parts.js';

/** The policy a folder copy runs under, decided above storage (the quota). */
export interface FolderCopyHooks {
  /**
   * Holds `total` bytes for the copy, or throws (rejects) 507 to refuse it: called before a
   * byte is written with the subtree's bytes as the index counts them, then with the running
   * total of what is copied (more only when the disk holds more than the index counted).
   */
  reserve(total: number): void | Promise<void>;
}

/** Bytes read and written at a time. */
const CHUNK_BYTES = 1 << 20;

/**
 * Copies `folder` with its subtree into `to` (null: the root), keeping its name. Holds the
 * source's and the target's paths shared (neither is deleted, renamed or moved meanwhile) and
 * the new path exclusively. `hooks.reserve` holds the subtree's bytes (as the index counts
 * them) before a byte is written, and the running total whenever the disk holds more; a
 * refusal there (507) removes what was written. 409 `conflict` for a target that is the folder
 * or inside it, `folder_exists` for a name taken there; 400 for a subtree that would pass the
 * tree's limits at the target.
 */
export async function copyFolder(
  s: StorageParts,
  username: string,
  folder: string,
  to: string | null,
  hooks: FolderCopyHooks,
): Promise<void> {
  s.assertWritable();
  const { name } = splitFolder(folder);
  const arrived = joinFolder(to, name);
  s.path(username, folder);
  s.path(username, arrived);
  s.requireFolder(username, folder);
  s.requireFolder(username, to);
  if (to !== null && (to === folder || to.startsWith(`${folder}/`)))
    throw conflict('conflict', 'A folder cannot be copied into itself or a folder inside it');
  if (s.index.folder(username, arrived) || s.index.getFile(username, to, name)) throw folderTaken(to);
  assertWithinLimits(s.index.folder(username, folder)!, arrived);
  await s.live.run([...keysOf(username, folder), ...keysOf(username, to)], false, () =>
    s.live.run([folderKey(username, arrived)], true, () =>
      within(s.storageDir, username, folder, 'folder_not_found', (source) =>
        within(s.storageDir, username, to, to === null ? 'user_not_found' : 'folder_not_found', async (target) => {
          await hooks.reserve(s.index.folder(username, folder)?.sizeBytes ?? 0);
          if (await lstatIn(target, name)) throw folderTaken(to);
          let copied = 0;
          const hold = (bytes: number) => {
            copied += bytes;
            return hooks.reserve(copied);
          };
          const subtree = await copyThenName(target, name, (made) => copyDirectory(source, made, arrived, hold), to);
          await target.fsync();
          await source.recheck();
          await target.recheck();
          s.index.graftFolder(username, to, name, subtree);
        }),
      ),
    ),
  );
}

/** 400 unless every folder of `node`'s subtree, copied to `arrived`, is within the tree's limits (the API could not name it). */
function assertWithinLimits(node: FolderNode, arrived: string): void {
  const tooDeep = (at: string, below: FolderNode): string | null => {
    if (!isFolderPathInLimits(at)) return at;
    for (const [name, sub] of below.folders) {
      const found = tooDeep(`${at}/${name}`, sub);
      if (found !== null) return found;
    }
    return null;
  };
  const past = tooDeep(arrived, node);
  if (past !== null)
    throw badRequest(
      `The copy would put a folder past the tree's limits (${FOLDER_PATH_MAX_LEVELS} levels, ${FOLDER_PATH_MAX_BYTES} bytes per path): ${past}`,
    );
}

/**
 * Runs `fill` on a new hidden directory in `target`, then renames it to `name` (still free:
 * a folder or file there is a 409; an empty directory another program makes in between is
 * replaced, as for a folder move). Removes the hidden directory on any failure.
 */
async function copyThenName(
  target: OpenDir,
  name: string,
  fill: (made: OpenDir) => Promise<FolderNode>,
  to: string | null,
): Promise<FolderNode> {
  const hidden = copyingName();
  try {
    await mkdirIn(target, hidden);
    const made = await target.child(hidden);
    let subtree: FolderNode;
    try {
      subtree = await fill(made);
    } finally {
      await made.close();
    }
    failpoint('folder.copy.filled');
    if (await lstatIn(target, name)) throw folderTaken(to);
    await rename(target.at(hidden), target.at(name));
    return subtree;
  } catch (err) {
    await removeTree(target, hidden).catch(() => undefined);
    if (err instanceof ApiError) throw err;
    const code = errnoCode(err);
    if (code === 'EEXIST' || code === 'ENOTEMPTY' || code === 'ENOTDIR' || code === 'EISDIR') throw folderTaken(to);
    throw fromFsError(err) ?? err;
  }
}

/**
 * Copies what `source` holds into `target` (both open), depth first, one open directory per
 * level on each side: regular files and directories whose names the API can address, within
 * the tree's limits at `landsAt` (where the copy ends up). Answers the copy's index node.
 */
async function copyDirectory(source: OpenDir, target: OpenDir, landsAt: string, hold: (bytes: number) => unknown): Promise<FolderNode> {
  const node = emptyFolder(0);
  for (const entry of await readdir(source.at(), { withFileTypes: true })) {
    if (!isAddressableName(entry.name)) continue;
    if (entry.isFile()) {
      const meta = await copyFile(source, entry.name, target, hold);
      if (meta) node.files.set(entry.name, meta);
    } else if (entry.isDirectory() && isFolderPathInLimits(`${landsAt}/${entry.name}`)) {
      const sub = await source.child(entry.name).catch((err: unknown) => {
        // Gone, or swapped for a link since it was listed: skipped like any link.
        if (isNoDir(err)) return null;
        throw err;
      });
      if (!sub) continue;
      try {
        await mkdirIn(target, entry.name);
        const made = await target.child(entry.name);
        try {
          node.folders.set(entry.name, await copyDirectory(sub, made, `${landsAt}/${entry.name}`, hold));
        } finally {
          await made.close();
        }
      } finally {
        await sub.close();
      }
    }
    // A link, a socket, a device: never followed nor copied (the scan does not index them either).
  }
  await target.fsync();
  node.mtimeMs = (await target.stat()).mtimeMs;
  return sumFolder(node);
}

/**
 * Copies the regular file `name` as it is when opened (never through a link: O_NOFOLLOW):
 * its size held first (`hold`), then at most that many bytes written to a new file ('wx':
 * never over anything), fsynced. Null when it is gone or no regular file by then.
 */
async function copyFile(from: OpenDir, name: string, to: OpenDir, hold: (bytes: number) => unknown): Promise<FileMeta | null> {
  let source: FileHandle;
  try {
    source = await open(from.at(name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENXIO') return null;
    throw err;
  }
  try {
    const stat = await source.stat();
    if (!stat.isFile()) return null;
    await hold(stat.size);
    const target = await open(to.at(name), 'wx', 0o600);
    try {
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(stat.size, 1)));
      for (let position = 0; position < stat.size;) {
        const { bytesRead } = await source.read(buffer, 0, Math.min(buffer.length, stat.size - position), position);
        // Shorter than it was: what there is.
        if (bytesRead === 0) break;
        for (let written = 0; written < bytesRead;) written += (await target.write(buffer, written, bytesRead - written)).bytesWritten;
        position += bytesRead;
      }
      await target.sync();
      const made = await target.stat();
      return { size: made.size, mtimeMs: made.mtimeMs };
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}
