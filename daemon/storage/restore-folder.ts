/** The folder a file restored from the trash lands in, made again where it is missing (trash-dir.ts). */
import { NameTaken } from './file-storage.js';
import { ignoreExists, isNoDir } from './fs-helpers.js';
import { folderComponents } from './paths.js';
import type { OpenDir } from './safe-dir.js';
import { lstatIn, mkdirIn } from './safe-ops.js';
import { userKey, within, type StorageParts } from './storage-parts.js';

/** Makes a user's folder (a path) again for a restored file, or finds it; its mtime. A file or link on the path is NameTaken. */
export async function ensureFolder(s: StorageParts, username: string, folder: string): Promise<number> {
  return s.live.run([userKey(username)], false, () =>
    within(s.storageDir, username, null, 'user_not_found', async (userDir) => {
      // One level at a time, each opened without following links: a link on the path is refused, never made through.
      const opened: OpenDir[] = [];
      let dir = userDir;
      let mtimeMs = 0;
      try {
        for (const [i, name] of folderComponents(folder).entries()) {
          let stat = await lstatIn(dir, name);
          if (!stat) {
            await mkdirIn(dir, name).catch(ignoreExists);
            await dir.fsync();
            stat = await lstatIn(dir, name);
          }
          if (!stat?.isDirectory()) throw new NameTaken(stat?.isFile() ? 'file' : 'other');
          s.index.addFolder(
            username,
            folderComponents(folder)
              .slice(0, i + 1)
              .join('/'),
            stat.mtimeMs,
            stat,
          );
          mtimeMs = stat.mtimeMs;
          dir = await dir.child(name).catch((err: unknown) => {
            throw isNoDir(err) ? new NameTaken('other') : err;
          });
          opened.push(dir);
        }
      } finally {
        for (const d of opened) await d.close();
      }
      return mtimeMs;
    }),
  );
}
