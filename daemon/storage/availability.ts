import { lstat, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * The file that marks a directory as Nimbus's storage (Syncthing's `.stfolder` idea). An
 * unmounted disk leaves its mount point behind, empty: without the marker the daemon could
 * not tell that from a user who deleted every file, and would revoke every share.
 */
export const STORAGE_MARKER = '.nimbus-storage';

export type StorageStatus = { ok: true } | { ok: false; reason: string };

/** Whether the storage directory is there and is ours (the marker is in it). */
export async function checkStorage(storageDir: string): Promise<StorageStatus> {
  try {
    await lstat(path.join(storageDir, STORAGE_MARKER));
    return { ok: true };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    try {
      await lstat(storageDir);
    } catch {
      return { ok: false, reason: `the directory is missing (${code})` };
    }
    return { ok: false, reason: `the marker file ${STORAGE_MARKER} is missing (${code}); is the disk mounted?` };
  }
}

/**
 * Writes the marker into a storage directory that has none, when that is safe: the directory
 * holds something (an older Nimbus's files) or no user exists yet (a fresh install). An empty
 * directory while users exist is most likely an unmounted disk, so it is left alone.
 */
export async function adoptStorageDir(storageDir: string, hasUsers: boolean): Promise<StorageStatus> {
  const status = await checkStorage(storageDir);
  if (status.ok) return status;
  let entries: string[];
  try {
    entries = await readdir(storageDir);
  } catch (err) {
    return { ok: false, reason: `the directory cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  if (entries.length === 0 && hasUsers) {
    return {
      ok: false,
      reason: `it is empty and has no ${STORAGE_MARKER} marker although users exist; is the disk mounted? (If you emptied it on purpose, create an empty file named ${STORAGE_MARKER} in it.)`,
    };
  }
  await writeFile(path.join(storageDir, STORAGE_MARKER), 'This directory is Nimbus storage. Do not delete this file.\n', { flag: 'a' });
  return { ok: true };
}
