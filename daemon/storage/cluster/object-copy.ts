/**
 * folders.copy in object mode (docs/tree.md, "Cluster"): a subtree copied as new rows (new ids,
 * parents first) and one CopyObject per file to `files/<new id>`, a few at once. The subtree's
 * bytes are held (`hooks.reserve`, the uploads' quota ledger) before the first object is made;
 * the rows are committed in one commit only once every object exists, so no daemon ever sees
 * half a tree. A copy that fails before that commit deletes the objects it made (a failure there
 * leaves them to the sweeper) and commits nothing.
 *
 * Locks as a move's (object-folders.ts): the source's and the target's paths shared, the new path
 * exclusively. No cross-daemon move lock: the new rows' parents are new rows or the target, and no
 * existing row names a new one, so whatever another daemon moves meanwhile they form a tree.
 */
import { FOLDER_PATH_MAX_BYTES, FOLDER_PATH_MAX_LEVELS } from '../../../shared/validation.js';
import { badRequest, conflict, notFound } from '../../errors.js';
import type { StoredFile, StoredFolder } from '../../store/schema.js';
import { failpoint } from '../../util/failpoints.js';
import { forEachLimit } from '../../util/for-each-limit.js';
import type { FolderCopyHooks } from '../file-storage.js';
import { folderTaken } from '../folder-moves.js';
import { emptyFolder, joinFolder, sumFolder, type FolderNode } from '../index-tree.js';
import { ObjectMissing } from '../objects/object-store.js';
import { assertComponent, assertFolderPath, splitFolder } from '../paths.js';
import { isFolderPathInLimits } from '../scan.js';
import { folderKey, keysOf } from '../storage-parts.js';
import { newId, objectKey } from './ids.js';
import { mayHaveCommitted, missingIn, type ObjectParts } from './object-parts.js';
import { metaOf, parentOf } from './rows.js';

/** CopyObject requests in flight at once for one folder copy. */
const PARALLEL_COPIES = 8;

/** The copy's rows before any is committed: its folders parents first, its files with the rows they copy. */
interface CopyPlan {
  folders: StoredFolder[];
  files: { source: StoredFile; row: StoredFile }[];
  /** The ids of the source's folders (the target must not be one). */
  sourceIds: Set<string>;
  bytes: number;
}

/**
 * Copies `folder` with its subtree into `to` (null: the root), keeping its name. 409 `conflict`
 * into itself or below it, `folder_exists` for a name taken there; 400 past the tree's limits at
 * the target; 503 while the bucket is known down (before any quota is held).
 */
export async function copyFolderRows(
  s: ObjectParts,
  username: string,
  folder: string,
  to: string | null,
  hooks: FolderCopyHooks,
): Promise<void> {
  assertComponent(username);
  assertFolderPath(folder);
  if (to !== null) assertFolderPath(to);
  s.requireFolder(username, folder);
  s.requireFolder(username, to);
  if (to !== null && (to === folder || to.startsWith(`${folder}/`)))
    throw conflict('conflict', 'A folder cannot be copied into itself or a folder inside it');
  const { name } = splitFolder(folder);
  const arrived = joinFolder(to, name);
  if (s.index.folder(username, arrived) || s.index.getFile(username, to, name)) throw folderTaken(to);
  await s.objects.assertReachable();
  const shared = [...new Set([...keysOf(username, folder), ...keysOf(username, to)])];
  await s.live.run(shared, false, () =>
    s.live.run([folderKey(username, arrived)], true, async () => {
      const sourceId = s.rows.folderId(username, folder);
      if (sourceId === undefined) throw notFound('folder_not_found', 'Folder not found');
      const toId = to === null ? null : s.rows.folderId(username, to);
      if (toId === undefined) throw missingIn(to);
      const isTaken = () => s.rows.childFolderId(username, toId, name) !== undefined || s.rows.fileId(username, to, name) !== undefined;
      if (isTaken()) throw folderTaken(to);
      const plan = planCopy(s, sourceId, toId, arrived);
      // The target moved into the source by another daemon since the check above.
      if (toId !== null && plan.sourceIds.has(toId))
        throw conflict('conflict', 'A folder cannot be copied into itself or a folder inside it');
      await hooks.reserve(plan.bytes);
      const made: string[] = [];
      let files: StoredFile[];
      let committing = false;
      try {
        files = await copyObjects(s, username, plan, made, hooks);
        failpoint('folder.copy.objects');
        if (isTaken()) throw folderTaken(to);
        for (const row of plan.folders) s.store.folders.set(row.id, row);
        for (const row of files) s.store.files.set(row.id, row);
        committing = true;
        await s.store.commit();
      } catch (err) {
        // A commit lost with its connection may have been written: its rows would name these objects.
        if (!(committing && mayHaveCommitted(err))) await s.deleteObjects(made);
        throw err;
      }
      // One folder.added: the subtree is linked whole first, so applying its rows then shows nothing new.
      const at = toId === null ? null : s.rows.pathOf(toId);
      if (toId === null || at !== null) s.index.graftFolder(username, at, name, nodeOf(plan.folders, files));
      for (const row of plan.folders) s.rows.applyFolder(row.id, row);
      for (const row of files) s.rows.applyFile(row.id, row);
    }),
  );
}

/** The new rows for the visible subtree of `sourceId`, the top one in `toId`; 400 when one would pass the tree's limits at `arrived`. */
function planCopy(s: ObjectParts, sourceId: string, toId: string | null, arrived: string): CopyPlan {
  const source = s.rows.folders.get(sourceId)!;
  const now = Date.now();
  const newIds = new Map<string, string>([[sourceId, newId()]]);
  const paths = new Map<string, string>([[sourceId, arrived]]);
  const folders: StoredFolder[] = [{ ...source, id: newIds.get(sourceId)!, parentId: toId, mtimeMs: now, trashId: null }];
  // Parents first: a folder is taken when its parent was, it is not in the trash and it is the one its name shows.
  for (const row of s.rows.foldersBelow(sourceId)) {
    const parentId = parentOf(row);
    const newParent = parentId === null ? undefined : newIds.get(parentId);
    if (newParent === undefined || row.trashId !== null || row.username !== source.username) continue;
    if (s.rows.childFolderId(row.username, parentId, row.name) !== row.id) continue;
    const path = `${paths.get(parentId!)!}/${row.name}`;
    if (!isFolderPathInLimits(path))
      throw badRequest(
        `The copy would put a folder past the tree's limits (${FOLDER_PATH_MAX_LEVELS} levels, ${FOLDER_PATH_MAX_BYTES} bytes per path): ${path}`,
      );
    newIds.set(row.id, newId());
    paths.set(row.id, path);
    folders.push({ ...row, id: newIds.get(row.id)!, parentId: newParent, mtimeMs: now });
  }
  const files: CopyPlan['files'] = [];
  for (const [oldId, id] of newIds) {
    for (const file of s.rows.filesIn(oldId)) {
      if (file.trashId !== null || file.username !== source.username) continue;
      files.push({ source: file, row: { ...file, id: newId(), folderId: id, mtimeMs: now } });
    }
  }
  return { folders, files, sourceIds: new Set(newIds.keys()), bytes: files.reduce((sum, f) => sum + f.source.size, 0) };
}

/**
 * Makes one object per file of the plan, PARALLEL_COPIES at once (each new key into `made`
 * first, so a failure deletes it), and answers their rows. A file deleted meanwhile is left out,
 * as on disk; one replaced meanwhile is copied as it is now, its size held too.
 */
async function copyObjects(
  s: ObjectParts,
  username: string,
  plan: CopyPlan,
  made: string[],
  hooks: FolderCopyHooks,
): Promise<StoredFile[]> {
  const copied: StoredFile[] = [];
  let bytes = plan.bytes;
  await forEachLimit(plan.files, PARALLEL_COPIES, async ({ source, row }) => {
    made.push(row.id);
    let from = source;
    for (;;) {
      try {
        const object = await s.objects.copy(objectKey(from.id), objectKey(row.id));
        copied.push({ ...row, size: object.size, etag: object.etag, contentType: from.contentType });
        if (object.size !== source.size) await hooks.reserve((bytes += object.size - source.size));
        return;
      } catch (err) {
        if (!(err instanceof ObjectMissing)) throw err;
        const folder = from.folderId === null ? null : s.rows.pathOf(from.folderId);
        const now = folder === null ? undefined : s.rows.fileId(username, folder, from.name);
        if (now === undefined || now === from.id) return;
        from = s.rows.files.get(now)!;
      }
    }
  });
  return copied;
}

/** The index node of the copy (its totals complete), from its rows: `folders` parents first, the top one first. */
function nodeOf(folders: StoredFolder[], files: StoredFile[]): FolderNode {
  const nodes = new Map(folders.map((row) => [row.id, emptyFolder(row.mtimeMs)]));
  for (const row of files) nodes.get(row.folderId!)!.files.set(row.name, metaOf(row));
  for (const row of folders.slice(1)) nodes.get(row.parentId!)!.folders.set(row.name, nodes.get(row.id)!);
  // Children before their parents: each folder's totals add its subfolders' finished ones.
  for (const row of [...folders].reverse()) sumFolder(nodes.get(row.id)!);
  return nodes.get(folders[0].id)!;
}
