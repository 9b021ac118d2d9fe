/** Renaming, moving or copying a folder node in the index's tree: one node linked in, nothing below it walked (docs/tree.md). */
import type { CaseFolds } from './case-folds.js';
import { addToTotals, folderChain, joinFolder, type FolderNode, type UserNode } from './index-tree.js';
import { splitFolder } from './paths.js';

/**
 * Relinks the folder at `folder` (a checked path) as `newName` inside `to` (null: the root):
 * one delete and one set, whatever its subtree holds, and the subtree totals of both
 * ancestor chains updated (O(depth)). Answers its new path, or null when the folder or `to`
 * is missing, `to` is the folder or inside it, or the new name is taken there.
 */
export function relinkFolder(
  node: UserNode | undefined,
  folder: string,
  to: string | null,
  newName: string,
  caseFolds: CaseFolds,
): string | null {
  const chain = node && folderChain(node, folder);
  const target = node && (to === null ? [] : folderChain(node, to));
  if (!node || !chain || !target || (to !== null && (to === folder || to.startsWith(`${folder}/`)))) return null;
  const moved = chain.pop()!;
  const from = chain.at(-1)?.folders ?? node.folders;
  const into = target.at(-1)?.folders ?? node.folders;
  if (into.has(newName)) return null;
  const { name } = splitFolder(folder);
  from.delete(name);
  caseFolds.removed(from, name);
  addToTotals(chain, -moved.sizeBytes, -moved.fileCount, -(moved.folderCount + 1));
  into.set(newName, moved);
  caseFolds.added(into, newName);
  addToTotals(target, moved.sizeBytes, moved.fileCount, moved.folderCount + 1, moved.treeModifiedMs);
  return joinFolder(to, newName);
}

/**
 * Links `subtree` (a copy, its totals complete) as `name` inside `to` (null: the root): one
 * set, the totals of `to`'s chain and the user's usage raised by its totals (O(depth)). A node
 * the watcher put there first (it saw the directory land) is replaced, its totals taken back.
 * Answers its path, or null when `to` is missing.
 */
export function graftFolder(
  node: UserNode | undefined,
  to: string | null,
  name: string,
  subtree: FolderNode,
  caseFolds: CaseFolds,
): string | null {
  const target = node && (to === null ? [] : folderChain(node, to));
  if (!node || !target) return null;
  const into = target.at(-1)?.folders ?? node.folders;
  const before = into.get(name);
  if (before) {
    addToTotals(target, -before.sizeBytes, -before.fileCount, -(before.folderCount + 1));
    node.usedBytes -= before.sizeBytes;
  }
  into.set(name, subtree);
  if (!before) caseFolds.added(into, name);
  addToTotals(target, subtree.sizeBytes, subtree.fileCount, subtree.folderCount + 1);
  node.usedBytes += subtree.sizeBytes;
  return joinFolder(to, name);
}
