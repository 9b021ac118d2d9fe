import type { ChangeEvent } from '../../shared/types.js';
import type { FileIndex } from './file-index.js';

export interface Touches {
  /** Whether the index changed `name` (in `<username>/[<folder>/]`; username null: the top level) since `trackTouches`. */
  has(username: string | null, folder: string | null, name: string): boolean;
  stop(): void;
}

const key = (username: string, folder: string | null, file: string | null) => `${username}\0${folder ?? ''}\0${file ?? ''}`;

/**
 * Records the names the index changes (the API deleting a folder, say) while the watcher
 * reads the disk. A stat taken before such a change is stale: applied after it, a folder
 * deleted (and answered 200) would come back into the index. Such a name is read again.
 */
export function trackTouches(index: FileIndex): Touches {
  const users = new Set<string>();
  const exact = new Set<string>();
  const onChange = (e: ChangeEvent) => {
    if (e.username === null) return;
    if (e.folder === null && e.file === null) users.add(e.username);
    else exact.add(key(e.username, e.folder, e.file));
  };
  index.on('change', onChange);
  return {
    has(username, folder, name) {
      if (username === null) return users.has(name);
      if (users.has(username) || exact.has(key(username, folder, name))) return true;
      // A folder's own events (added, removed) name it as the folder, not as a file: the
      // name itself as a folder, or any folder on its path (a stat below a folder the API
      // removed is as stale).
      if (exact.has(key(username, folder === null ? name : `${folder}/${name}`, null))) return true;
      if (folder === null) return false;
      for (let cut = folder.length; cut > 0; cut = folder.lastIndexOf('/', cut - 1)) {
        if (exact.has(key(username, folder.slice(0, cut), null))) return true;
      }
      return false;
    },
    stop: () => index.off('change', onChange),
  };
}
