/** Renaming a folder node in the index's tree: its node relinked under the new name, nothing below it touched (docs/tree.md). */
import type { CaseFolds } from './case-folds.js';
import { folderChain, joinFolder, type UserNode } from './index-tree.js';
import { splitFolder } from './paths.js';

/**
 * Relinks the folder at `folder` (a checked path) as `newName` in its parent's map: one
 * delete and one set, whatever its subtree holds (no total changes: the same files stay
 * under the same ancestors). Answers its new path, or null when the folder is missing or
 * the new name is taken.
 */
export function relinkFolder(node: UserNode | undefined, folder: string, newName: string, caseFolds: CaseFolds): string | null {
  const chain = node && folderChain(node, folder);
  if (!node || !chain) return null;
  const moved = chain.pop()!;
  const siblings = chain.length > 0 ? chain[chain.length - 1].folders : node.folders;
  const { parent, name } = splitFolder(folder);
  if (siblings.has(newName)) return null;
  siblings.delete(name);
  caseFolds.removed(siblings, name);
  siblings.set(newName, moved);
  caseFolds.added(siblings, newName);
  return joinFolder(parent, newName);
}
