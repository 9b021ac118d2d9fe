/**
 * The trash directory's upkeep on disk (`<trash>/<username>/<id>/<name>`, trash-dir.ts): what
 * a start-up finds there after clearing what a crash left half done, and the removal of an
 * item or a user's whole trash, and a renamed user's.
 */
import { readdir, rename } from 'node:fs/promises';
import type { Placed, TrashEntry } from './file-storage.js';
import { isNoDir } from './fs-helpers.js';
import type { FileMeta } from './index-tree.js';
import { OpenDir, withDir } from './safe-dir.js';
import { lstatIn, removeTree } from './safe-ops.js';
import { STAGED } from './staging-names.js';

/** A trash item's directory name: 16 random bytes, hex (shared/endpoints.ts checks the same). */
const TRASH_ID = /^[0-9a-f]{32}$/;

/** Reads the regular files directly in `dir` (what the index counts), with their metas. */
export async function filesIn(dir: OpenDir): Promise<Map<string, FileMeta>> {
  const files = new Map<string, FileMeta>();
  for (const entry of await readdir(dir.at(), { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const stat = await lstatIn(dir, entry.name);
    if (stat?.isFile()) files.set(entry.name, { size: stat.size, mtimeMs: stat.mtimeMs });
  }
  return files;
}

/** The folders at every depth below `dir` (paths relative to it), parents first, each with its files; links are never followed. */
export async function foldersBelow(dir: OpenDir, prefix = ''): Promise<NonNullable<Placed['below']>> {
  const found: NonNullable<Placed['below']> = [];
  for (const entry of await readdir(dir.at(), { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const sub = await dir.child(entry.name);
    try {
      const at = `${prefix}${entry.name}`;
      const [files, stat] = await Promise.all([filesIn(sub), sub.stat()]);
      found.push({ path: at, mtimeMs: stat.mtimeMs, files }, ...(await foldersBelow(sub, `${at}/`)));
    } finally {
      await sub.close();
    }
  }
  return found;
}

/** Removes one item's directory from a user's trash (nothing there is fine). */
export async function removeTrashItem(trashRoot: string, username: string, id: string): Promise<void> {
  try {
    await withDir(trashRoot, [username], (mine) => removeTree(mine, id));
  } catch (err) {
    if (!isNoDir(err)) throw err;
  }
}

/** Removes a user's whole trash directory (a deleted user). */
export async function removeUserTrash(trashRoot: string, username: string): Promise<void> {
  try {
    await withDir(trashRoot, [], (root) => removeTree(root, username));
  } catch (err) {
    if (!isNoDir(err)) throw err;
  }
}

/**
 * Renames a user's trash directory with the user. What is already at the new name belongs
 * to no user (a user of that name does not exist, or the rename would have been refused):
 * it is a leftover of a crash, and is removed first.
 */
export async function renameUserTrash(trashRoot: string, from: string, to: string): Promise<void> {
  try {
    await withDir(trashRoot, [], async (root) => {
      if (!(await lstatIn(root, from))?.isDirectory()) return;
      const there = await lstatIn(root, to);
      const source = await lstatIn(root, from);
      // A case-only rename on a case-insensitive disk finds the directory itself.
      if (there && !(there.ino === source?.ino && there.dev === source.dev)) await removeTree(root, to);
      await rename(root.at(from), root.at(to));
      await root.fsync();
    });
  } catch (err) {
    if (!isNoDir(err)) throw err;
  }
}

/**
 * Reads the trash at start: each user's items as they are on disk, after removing what a
 * crash left half done (staged copies, item directories holding no entry, names that are not
 * items). Users not in `keep` (deleted while their trash was being removed) lose their trash.
 */
export async function readTrash(trashRoot: string, keep: (username: string) => boolean): Promise<Map<string, TrashEntry[]>> {
  const found = new Map<string, TrashEntry[]>();
  let root: OpenDir;
  try {
    root = await OpenDir.open(trashRoot, []);
  } catch (err) {
    if (isNoDir(err)) return found;
    throw err;
  }
  try {
    for (const user of await readdir(root.at(), { withFileTypes: true })) {
      if (!user.isDirectory() || !keep(user.name)) {
        await removeTree(root, user.name);
        continue;
      }
      const mine = await root.child(user.name);
      try {
        found.set(user.name, await readUserTrash(mine));
      } finally {
        await mine.close();
      }
    }
  } finally {
    await root.close();
  }
  return found;
}

async function readUserTrash(mine: OpenDir): Promise<TrashEntry[]> {
  const entries: TrashEntry[] = [];
  for (const item of await readdir(mine.at(), { withFileTypes: true })) {
    if (!item.isDirectory() || !TRASH_ID.test(item.name)) {
      await removeTree(mine, item.name);
      continue;
    }
    const itemDir = await mine.child(item.name);
    let entry: TrashEntry | null = null;
    try {
      const mtimeMs = (await itemDir.stat()).mtimeMs;
      for (const inner of await readdir(itemDir.at(), { withFileTypes: true })) {
        if (STAGED.test(inner.name) || entry !== null) {
          await removeTree(itemDir, inner.name);
          continue;
        }
        if (inner.isFile()) {
          const stat = await lstatIn(itemDir, inner.name);
          entry = { id: item.name, kind: 'file', name: inner.name, size: stat?.size ?? 0, fileCount: 1, mtimeMs };
        } else if (inner.isDirectory()) {
          const folder = await itemDir.child(inner.name);
          try {
            // The whole subtree counts, as the index counted it when the folder went in.
            const every = [await filesIn(folder), ...(await foldersBelow(folder)).map((below) => below.files)];
            let size = 0;
            let fileCount = 0;
            for (const files of every) {
              fileCount += files.size;
              for (const meta of files.values()) size += meta.size;
            }
            entry = { id: item.name, kind: 'folder', name: inner.name, size, fileCount, mtimeMs };
          } finally {
            await folder.close();
          }
        } else await removeTree(itemDir, inner.name);
      }
    } finally {
      await itemDir.close();
    }
    if (entry) entries.push(entry);
    else await removeTree(mine, item.name);
  }
  return entries;
}
