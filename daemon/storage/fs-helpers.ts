/**
 * The storage layer's small file-system helpers, in one place: what an errno code means
 * here, and reading a directory that may have gone. (The fsync of a directory by path is
 * daemon/store/fsync.ts.)
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { errnoCode } from '../util/errno.js';

/** Whether an error means there is no real directory (missing, or a link or file in its place): ENOENT or ENOTDIR. */
export function isNoDir(err: unknown): boolean {
  const code = errnoCode(err);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** For `.catch`: a name already gone (ENOENT) is fine; anything else is thrown again. */
export function ignoreMissing(err: unknown): void {
  if (errnoCode(err) !== 'ENOENT') throw err;
}

/** For `.catch`: a name already there (EEXIST) is fine; anything else is thrown again. */
export function ignoreExists(err: unknown): void {
  if (errnoCode(err) !== 'EEXIST') throw err;
}

/** The entries of a directory, or null when it is gone or not a directory (ENOENT, ENOTDIR). */
export async function readdirOrNull(dir: string): Promise<Dirent[] | null> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (isNoDir(err)) return null;
    throw err;
  }
}
