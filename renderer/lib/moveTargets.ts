/**
 * Which folders may take a move or a copy, as the daemon decides (docs/tree.md): never the
 * folder the items are already in, never a folder being moved nor anything below it (409).
 * The dialog greys what these refuse, with the reason, rather than let the daemon say no.
 */

/** Why a folder cannot take the items: they are already in it, it is one of them, or it is inside one. */
export type Refusal = 'here' | 'itself' | 'inside';

/** Whether `folder` is `ancestor` or below it (paths; null is the user's root, above everything). */
export function isWithin(folder: string | null, ancestor: string | null): boolean {
  if (ancestor === null) return true;
  return folder !== null && (folder === ancestor || folder.startsWith(`${ancestor}/`));
}

/**
 * Why `target` (null: the root) cannot take items that are in `from`, `folders` being the
 * paths of the folders among them; null when it can.
 */
export function refusalOf(target: string | null, from: string | null, folders: readonly string[]): Refusal | null {
  for (const folder of folders) {
    if (target === folder) return 'itself';
    if (isWithin(target, folder)) return 'inside';
  }
  return target === from ? 'here' : null;
}
