import { open } from 'node:fs/promises';

/**
 * fsync of a directory by its path, so a rename or a new entry in it is durable. The one
 * fsync helper of the daemon: the store's JSON file and the storage layer (where a
 * directory is not open already, OpenDir.fsync) both use it.
 */
export async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
