import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { notFound } from '../errors.js';
import { within, type StorageParts } from './storage-parts.js';

/** An open regular file, ready to stream. */
export interface OpenedFile {
  handle: FileHandle;
  size: number;
  mtimeMs: number;
}

/** Opens a file for reading, refusing symlinks (at any level) and anything but a regular file. */
export async function openFile(s: StorageParts, username: string, folder: string | null, file: string): Promise<OpenedFile> {
  s.path(username, folder, file);
  s.requireFile(username, folder, file);
  return within(s.storageDir, username, folder, 'file_not_found', async (dir) => {
    let handle: FileHandle;
    try {
      // O_NONBLOCK: a FIFO put where the file was would otherwise hold a thread-pool thread
      // until some writer came (four such requests stopped all file I/O); a regular file ignores it.
      handle = await open(dir.at(file), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR') throw notFound('file_not_found', 'File not found');
      throw err;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw notFound('file_not_found', 'File not found');
      await dir.recheck().catch(() => {
        throw notFound('file_not_found', 'File not found');
      });
      return { handle, size: stat.size, mtimeMs: stat.mtimeMs };
    } catch (err) {
      await handle.close();
      throw err;
    }
  });
}
