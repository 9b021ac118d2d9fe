/**
 * What `folders.download` puts in a zip, decided from the file index before the first byte
 * (so a missing folder or file is a plain 404): a folder's whole subtree, some files of one
 * folder, or a user's whole tree, each entry at its path (docs/explorer.md, "Zips").
 */
import type { NimbusContext } from '../context.js';
import { joinFolder, type FileMeta, type FolderNode } from '../storage/index-tree.js';
import { splitFolder } from '../storage/paths.js';
import { requireUser } from './records.js';

/** One file of the zip: where it is in the storage, and its path inside the zip. */
export interface ZipItem {
  folder: string | null;
  file: string;
  entry: string;
}

/** Everything a zip will hold, decided before the first byte is sent. */
export interface ZipPlan {
  username: string;
  /** The name offered to the browser (`folder.zip`, `files.zip`, `username.zip`). */
  downloadName: string;
  /** Directory entries (`folder/`, `folder/sub/`), so an empty folder survives the round trip. */
  directories: string[];
  items: ZipItem[];
}

/**
 * What `folders.download` will send for these parameters; 404 for an unknown user, folder or
 * named file (before anything is streamed).
 * - `files` given: only those files of `folder` (or of the root), each at the top of the zip,
 *   as a selection would be (a file manager's "compress these items").
 * - `folder` only: its whole subtree under the folder's own name (`june/`, `june/sub/x.txt`
 *   for `photos/2024/june`), so the zip unpacks into one folder as a one-level folder's did.
 * - neither: the root's files, and every folder at every depth with its path.
 */
export function planZip(nimbus: NimbusContext, username: string, folder: string | null, files: readonly string[] | null): ZipPlan {
  requireUser(nimbus, username);
  const storage = nimbus.storage;
  if (files !== null) {
    for (const file of files) storage.requireFile(username, folder, file);
    return checked({
      username,
      downloadName: `${folder === null ? 'files' : splitFolder(folder).name}.zip`,
      directories: [],
      items: files.map((file) => ({ folder, file, entry: file })),
    });
  }
  if (folder !== null) {
    storage.requireFolder(username, folder);
    const { name } = splitFolder(folder);
    const plan: ZipPlan = { username, downloadName: `${name}.zip`, directories: [`${name}/`], items: [] };
    // Gone between the check and here (a delete in between): its directory entry only.
    const node = nimbus.index.folder(username, folder);
    if (node) addSubtree(nimbus, plan, node.files, node.folders, folder, `${name}/`);
    return checked(plan);
  }
  const plan: ZipPlan = { username, downloadName: `${username}.zip`, directories: [], items: [] };
  // A user whose directory the index does not hold (yet) has nothing to zip: an empty zip.
  const node = nimbus.index.user(username);
  if (node) addSubtree(nimbus, plan, node.root, node.folders, null, '');
  return checked(plan);
}

/**
 * Adds a directory's files (in name order) and then each of its folders (in name order, each
 * as a directory entry followed by its own subtree): depth-first, so a zip lists a folder's
 * contents together. `prefix` is the directory's path inside the zip ('' or ending in `/`).
 * Recursion is at most 64 levels deep (the deepest path the index holds).
 */
function addSubtree(
  nimbus: NimbusContext,
  plan: ZipPlan,
  files: Map<string, FileMeta>,
  folders: Map<string, FolderNode>,
  folder: string | null,
  prefix: string,
): void {
  for (const file of nimbus.index.sortedNames(files)) plan.items.push({ folder, file, entry: `${prefix}${file}` });
  for (const name of [...folders.keys()].sort()) {
    const child = folders.get(name)!;
    plan.directories.push(`${prefix}${name}/`);
    addSubtree(nimbus, plan, child.files, child.folders, joinFolder(folder, name), `${prefix}${name}/`);
  }
}

/**
 * Every entry relative and free of `.`/`..`/empty components and `\`: a zip must never make
 * an unzip write outside the folder it unpacks into. Names are checked before they reach the
 * index, so this cannot fail; if it ever did, the zip is refused (a 500) before a byte is sent.
 */
function checked(plan: ZipPlan): ZipPlan {
  for (const entry of [...plan.directories.map((d) => d.slice(0, -1)), ...plan.items.map((item) => item.entry)]) {
    if (entry.includes('\\') || entry.split('/').some((part) => part === '' || part === '.' || part === '..')) {
      throw new Error(`A zip entry would escape its folder: ${JSON.stringify(entry)}`);
    }
  }
  return plan;
}
