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
