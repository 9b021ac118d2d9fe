import path from 'node:path';
import { PathOutsideRoot } from '../errors.js';

/**
 * Resolves a user's path inside the storage directory. Every component must already
 * have passed the shared name checks; this is the second wall: whatever the names,
 * each is one plain path component and the result is inside `<storageDir>/<username>`,
 * or it throws.
 */
export function resolveUserPath(storageDir: string, username: string, ...components: (string | null | undefined)[]): string {
  const names = components.filter((c): c is string => typeof c === 'string');
  for (const name of [username, ...names]) assertComponent(name);
  const userRoot = path.resolve(storageDir, username);
  assertInside(path.resolve(storageDir), userRoot);
  const target = path.resolve(userRoot, ...names);
  if (target !== userRoot) assertInside(userRoot, target);
  return target;
}

/**
 * The names of a folder path (`a/b/c` → `[a, b, c]`; the root, null, → `[]`). The path was
 * checked by `checkFolderPath`; each name is checked again as one component wherever it is used.
 */
export function folderComponents(folder: string | null): string[] {
  return folder === null ? [] : folder.split('/');
}

/** Throws unless each name of a folder path is one path component (the second wall, as `assertComponent`). */
export function assertFolderPath(folder: string): void {
  for (const name of folderComponents(folder)) assertComponent(name);
}

/** A folder path's parent (null: the user's root) and its last name: `a/b/c` → `a/b`, `c`. */
export function splitFolder(folder: string): { parent: string | null; name: string } {
  const cut = folder.lastIndexOf('/');
  return cut < 0 ? { parent: null, name: folder } : { parent: folder.slice(0, cut), name: folder.slice(cut + 1) };
}

/**
 * Throws unless `name` is one path component: storage opens names one at a time inside an
 * already-open directory, where "a/b" would walk through (and follow) "a".
 */
export function assertComponent(name: string): void {
  if (name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name)) throw new PathOutsideRoot();
}

/**
 * Throws unless `child` is strictly inside `parent` (by path.relative, not a prefix test).
 * A component equal to ".." leaves; a name that merely starts with two dots ("..notes") does not.
 */
export function assertInside(parent: string, child: string): void {
  const rel = path.relative(parent, child);
  if (rel === '' || path.isAbsolute(rel) || rel.split(path.sep).includes('..')) {
    throw new PathOutsideRoot();
  }
}
