import path from 'node:path';
import { isAddressableName, isFolderPathInLimits } from '../scan.js';

/** One change below the storage directory, as @parcel/watcher reports it. */
export interface WatchEvent {
  type: 'create' | 'update' | 'delete';
  path: string;
}

export interface WatchSubscription {
  unsubscribe(): Promise<void>;
}

/**
 * Follows everything below `root` (one subscription; on Linux one inotify watch per
 * directory, made by the library) and calls `onEvents` with each batch, or with an error
 * (the watch limit reached while following a new directory). Tests pass a stand-in.
 */
export type WatchFactory = (root: string, onEvents: (err: Error | null, events: WatchEvent[]) => void) => Promise<WatchSubscription>;

/** Where a name is in the storage tree: top level (username null), a user's root (folder null) or a folder (its path). */
export interface Location {
  username: string | null;
  folder: string | null;
  name: string;
}

/** A directory the index follows: the storage root, a user's root or a folder. */
export type DirAt = Pick<Location, 'username' | 'folder'>;

/**
 * The location of a changed path below `root`, or null for the root itself, a path
 * outside it, and a path the API cannot address: a folder on the way whose name it could
 * not serve, or past the tree's limits (64 levels, 4,096 bytes; docs/tree.md).
 */
export function locate(root: string, p: string): Location | null {
  const rel = below(root, p) ?? path.relative(root, p);
  if (rel === '' || path.isAbsolute(rel) || rel.split(path.sep).includes('..')) return null;
  const parts = rel.split(path.sep);
  if (parts.length === 1) return { username: null, folder: null, name: parts[0] };
  if (parts.length === 2) return { username: parts[0], folder: null, name: parts[1] };
  if (parts.length === 3) return { username: parts[0], folder: parts[1], name: parts[2] };
  const names = parts.slice(1, -1);
  const folder = names.join('/');
  if (!names.every(isAddressableName) || !isFolderPathInLimits(folder)) return null;
  return { username: parts[0], folder, name: parts[parts.length - 1] };
}

/** A "." or ".." component: a path with one is not as the watch joins them, and goes through path.relative. */
const DOT_COMPONENT = /(?:^|[\\/])\.\.?(?:[\\/]|$)/;

/**
 * `p` relative to `root` when it is `root` joined with names, as the watch reports every path
 * (a prefix and a slice: path.relative resolves both paths again, ~3 µs a WebDAV MOVE's two
 * events, bench/NOTES.md); null for anything else, which path.relative then answers.
 */
function below(root: string, p: string): string | null {
  if (p.length <= root.length + 1 || !p.startsWith(root) || p[root.length] !== path.sep) return null;
  const rel = p.slice(root.length + 1);
  const joined =
    !DOT_COMPONENT.test(rel) && !rel.includes(`${path.sep}${path.sep}`) && !rel.startsWith(path.sep) && !rel.endsWith(path.sep);
  return joined ? rel : null;
}

/** Which OS limit an error from the watcher means (no code from @parcel/watcher: its message carries strerror). */
export function limitCode(err: unknown): 'ENOSPC' | 'EMFILE' | 'ENFILE' | null {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOSPC' || code === 'EMFILE' || code === 'ENFILE') return code;
  const message = String((err as Error | null)?.message ?? '');
  if (/No space left on device|ENOSPC/.test(message)) return 'ENOSPC';
  if (/Too many open files in system|ENFILE/.test(message)) return 'ENFILE';
  if (/Too many open files|EMFILE/.test(message)) return 'EMFILE';
  return null;
}
