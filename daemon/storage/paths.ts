import path from 'node:path';
import { PathOutsideRoot } from '../errors.js';

/**
 * Resolves a user's path inside the storage directory. Every component must already
 * have passed the shared name checks; this is the second wall: whatever the names,
 * the result is inside `<storageDir>/<username>` or it throws.
 */
export function resolveUserPath(storageDir: string, username: string, ...components: (string | null | undefined)[]): string {
  const userRoot = path.resolve(storageDir, username);
  assertInside(path.resolve(storageDir), userRoot);
  const target = path.resolve(userRoot, ...components.filter((c): c is string => typeof c === 'string'));
  if (target !== userRoot) assertInside(userRoot, target);
  return target;
}

/** Throws unless `child` is strictly inside `parent` (by path.relative, not a prefix test). */
export function assertInside(parent: string, child: string): void {
  const rel = path.relative(parent, child);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel) || rel.split(path.sep).includes('..')) {
    throw new PathOutsideRoot();
  }
}
