import type { Stats } from 'node:fs';
import type { FileIndex } from '../file-index.js';
import type { Storage } from '../storage.js';
import { lstatBelow } from '../safe-ops.js';
import { trackTouches, type Touches } from '../safe-touched.js';
import { emptyUser, joinFolder } from '../index-tree.js';
import { splitFolder } from '../paths.js';
import { isAddressableName, isFolderPathInLimits } from '../scan.js';
import { isTombstone } from '../tombstones.js';
import type { Look } from './settle.js';
import type { DirAt, Location } from './subscription.js';

/** What applying changes to the index needs: the index, who the users are, the orphan list. */
export interface IndexTarget {
  index: FileIndex;
  store: { users: ReadonlyMap<string, unknown> };
  orphans: Set<string>;
}

/** Something seen gone: a file (file set), a folder (folder set) or a user's whole directory. */
export interface Removal {
  username: string;
  folder: string | null;
  file: string | null;
  /** Already put off once because the folder holding it was gone too (`confirmRemovals`). */
  putOff?: true;
}

/** What the watcher does after a change was applied: list a directory that appeared, or check a removal. */
export type FollowUp = { list: DirAt } | { remove: Removal | null } | null;

/**
 * Puts a settled change into the index: what the disk holds now (stat null: nothing).
 * Additions are applied at once; removals are only returned, to be confirmed against the
 * disk and the storage marker first. A directory is listed whatever its event said:
 * @parcel/watcher reports a directory removed and made again within one batch as an
 * update. Symlinks, names the API cannot address and directories past the tree's limits
 * are not indexed; a user's directory or a folder replaced by a link reads as gone.
 */
export function applyChange(t: IndexTarget, at: Location, stat: Stats | null): FollowUp {
  const { index, store } = t;
  const { username, folder, name } = at;
  if (username === null) return applyTopLevel(t, name, stat);
  if (!store.users.has(username) || !isAddressableName(name)) return null;
  const here = joinFolder(folder, name);
  if (stat?.isDirectory()) {
    // Past the tree's limits: not indexed (a reconcile counts it in /api/dash).
    if (!isFolderPathInLimits(here)) return null;
    const echo = index.moveEchoes.take(username, here, stat);
    index.addFolder(username, here, stat.mtimeMs, stat);
    // The daemon's own move, which the index made whole already: nothing below to read again (move-echoes.ts).
    return echo ? null : { list: { username, folder: here } };
  }
  if (stat?.isFile()) {
    index.setFile(username, folder, name, { size: stat.size, mtimeMs: stat.mtimeMs });
    return null;
  }
  // A folder gone (or replaced by something that is not one).
  if (index.folder(username, here)) return { remove: { username, folder: here, file: null } };
  // Gone, or now a symlink: not a file the API serves.
  if (index.files(username, folder)?.has(name)) return { remove: { username, folder, file: name } };
  return null;
}

/**
 * Whether the index holds the file at `at` as `stat` finds it (size and modification time):
 * applying it would change nothing. The daemon's own uploads, renames and moves are in the
 * index before the watcher's echo of them is looked at; their echoes settle at the first look
 * instead of being looked at every 50 ms for 200 ms (under a WebDAV MOVE load, half of the
 * daemon's CPU went to the watcher, most of it those looks: bench/NOTES.md).
 */
export function indexHolds(index: FileIndex, at: Location, stat: Stats): boolean {
  if (at.username === null) return false;
  const meta = index.getFile(at.username, at.folder, at.name);
  return meta !== undefined && meta.size === stat.size && meta.mtimeMs === stat.mtimeMs;
}

function applyTopLevel(t: IndexTarget, name: string, stat: Stats | null): FollowUp {
  // A deleted user's directory on its way out: neither a user nor an orphan.
  if (isTombstone(name)) return null;
  const isUser = t.store.users.has(name);
  if (stat?.isDirectory()) {
    if (!isUser) {
      t.orphans.add(name);
      return null;
    }
    t.index.ensureUser(name);
    return { list: { username: name, folder: null } };
  }
  if (stat === null) t.orphans.delete(name);
  // A user's directory gone or replaced (by a link, a file); null still checks that the storage directory is there.
  if (isUser) return { remove: { username: name, folder: null, file: null } };
  return stat === null ? { remove: null } : null;
}

/** The names the index holds for a directory (read again with what is on disk when it reappears). */
export function knownNames(index: FileIndex, dir: DirAt): string[] {
  if (dir.username === null) return [];
  const node = index.user(dir.username);
  if (dir.folder === null) return [...(node?.root.keys() ?? []), ...(node?.folders.keys() ?? [])];
  const folder = index.folder(dir.username, dir.folder);
  return [...(folder?.files.keys() ?? []), ...(folder?.folders.keys() ?? [])];
}

/**
 * lstat of each path without following links below `root`, each directory opened once;
 * a name the index changed meanwhile (the API deleting a folder, say) reads as undefined:
 * a stat taken before that change is stale, and applied after it would undo the change.
 */
export async function lookFresh<T>(
  root: string,
  index: FileIndex,
  batch: [path: string, at: T][],
  touched: (touches: Touches, at: T) => boolean,
): Promise<Look[]> {
  const touches = trackTouches(index);
  // A failure is the caller's to judge (it says nothing about the names): the settler looks again.
  const stats = await lstatBelow(
    root,
    batch.map(([p]) => p),
  ).finally(() => touches.stop());
  return stats.map((stat, i) => (touched(touches, batch[i][1]) ? undefined : stat));
}

export const touchedLocation = (touches: Touches, at: Location): boolean => touches.has(at.username, at.folder, at.name);

/** Whether the API changed what a removal names (a file, a folder, a user's directory) while the disk was read. */
export function touchedRemoval(touches: Touches, r: Removal): boolean {
  if (r.file !== null) return touches.has(r.username, r.folder, r.file);
  if (r.folder !== null) {
    const { parent, name } = splitFolder(r.folder);
    return touches.has(r.username, parent, name);
  }
  return touches.has(null, null, r.username);
}

/** Applies the removals the disk confirms; one put back (an editor's save) or changed by the API meanwhile stays. */
export function applyRemovals(t: IndexTarget, removals: Removal[], looks: Look[]): void {
  const { index, store } = t;
  removals.forEach((r, i) => {
    const stat = looks[i];
    if (stat === undefined || !store.users.has(r.username)) return;
    if (r.file !== null) {
      if (!stat?.isFile()) index.removeFile(r.username, r.folder, r.file);
    } else if (!stat?.isDirectory()) {
      if (r.folder !== null) index.removeFolder(r.username, r.folder);
      else index.replaceUser(r.username, emptyUser());
    }
  });
}

/**
 * Reads a batch of removals from the disk (no link followed) and applies what it confirms,
 * unless `current()` turned false meanwhile. A name whose folder is gone from the disk too is
 * handed to `putOff` (once) instead: that folder may have been moved whole, its removal and
 * its arrival still to be paired (dir-moves.ts); removed, it takes the name along in one event.
 */
export async function confirmRemovals(
  t: IndexTarget & { storage: Storage },
  batch: Removal[],
  current: () => boolean,
  putOff: (removals: Removal[]) => void = () => undefined,
): Promise<void> {
  const removals = batch.filter((r) => t.store.users.has(r.username));
  // Each removal's own path first, then the folder holding it (for those not put off before).
  const holders = removals.map((r) => (r.putOff ? null : holderOf(r)));
  const entries = removals.map((r): [string, Removal] => [t.storage.path(r.username, r.folder, r.file), r]);
  removals.forEach((r, i) => {
    const holder = holders[i];
    if (holder !== null) entries.push([t.storage.path(r.username, holder), { username: r.username, folder: holder, file: null }]);
  });
  const looks = await lookFresh(t.storage.storageDir, t.index, entries, touchedRemoval);
  if (!current()) return;
  const now: Removal[] = [];
  const nowLooks: Look[] = [];
  const later: Removal[] = [];
  let next = removals.length;
  removals.forEach((r, i) => {
    if (holders[i] !== null && looks[next++] === null) later.push({ ...r, putOff: true });
    else {
      now.push(r);
      nowLooks.push(looks[i]);
    }
  });
  applyRemovals(t, now, nowLooks);
  if (later.length > 0) putOff(later);
}

/** The folder holding what a removal names (null: the user's root, or the removal is of a user's directory). */
function holderOf(r: Removal): string | null {
  if (r.file !== null) return r.folder;
  return r.folder === null ? null : splitFolder(r.folder).parent;
}
