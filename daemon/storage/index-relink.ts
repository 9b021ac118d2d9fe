/** Renaming or moving a folder node in the index's tree: its node relinked, nothing below it touched (docs/tree.md). */
import type { CaseFolds } from './case-folds.js';
import { addToTotals, folderChain, joinFolder, type UserNode } from './index-tree.js';
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
