/**
 * WebDAV's state, and files' versions, following what the services do to a resource
 * (docs/webdav.md, "Locks and properties"; docs/versions.md): a rename or move carries its dead
 * properties and versions (and those of everything below it) to the new path and releases its
 * locks, which do not move with it (RFC 4918 §7.4); a delete drops them all. The services call these in the step that makes their change real, beside the
 * shares', so the records commit with it.
 */
import type { NimbusContext } from '../context.js';
import { joinFolder } from '../storage/index-tree.js';
import { splitFolder } from '../storage/paths.js';
import { releaseLocksWithin } from './dav-locks.js';
import { dropDeadProps, moveDeadProps } from './dav-props.js';
import { VANISHED_SHARE_GRACE_MS } from './shares.js';
import { forgetVersions, moveVersions } from './version-follow.js';
import { graceQueue } from '../util/grace-queue.js';

/** `from` (and everything below it) is now at `to`: its dead properties and its files' versions go along. The caller commits; whether any record changed. */
export function followMove(nimbus: NimbusContext, username: string, from: string, to: string): boolean {
  const moved = moveDeadProps(nimbus, username, from, to) + moveVersions(nimbus, username, from, to);
  return releaseLocksWithin(nimbus, username, from) + moved > 0;
}

/** `path` (and everything below it) is gone: deleted for good or into the trash, which keeps none of this (nor its versions). The caller commits. */
export function forgetResource(nimbus: NimbusContext, username: string, path: string): boolean {
  const dropped = dropDeadProps(nimbus, username, path) + forgetVersions(nimbus, username, path);
  return releaseLocksWithin(nimbus, username, path) + dropped > 0;
}

/** A folder another program moved, seen by the watcher as one rename: followed as the API's move is, committed in the background. */
export function followWatchedMove(nimbus: NimbusContext, username: string, from: string, to: string): void {
  if (!followMove(nimbus, username, from, to)) return;
  nimbus.store.commit().catch((err: Error) => nimbus.log(`Nimbus: could not save the WebDAV state of a moved folder: ${err.message}`));
}

/**
 * Drops the dead properties of a file or folder that left the disk by another route (another
 * program, a reconcile) and is still absent after the grace the shares get: an editor that
 * saves by deleting and writing anew keeps them. One timer for all pending removals, and only
 * for users holding properties. Locks stay: a lock on a name not (or no longer) there is
 * RFC 4918's lock of an unmapped URL, and it expires.
 */
export function watchForVanishedResources(nimbus: NimbusContext, graceMs = VANISHED_SHARE_GRACE_MS): void {
  const later = graceQueue<{ username: string; path: string }>(graceMs, (due) => {
    let dropped = 0;
    for (const { username, path } of due) {
      if (nimbus.index.state === 'unavailable' || stillThere(nimbus, username, path)) continue;
      dropped += dropDeadProps(nimbus, username, path);
    }
    if (dropped > 0)
      nimbus.store.commit().catch((err: Error) => nimbus.log(`Nimbus: could not save dropped WebDAV properties: ${err.message}`));
  });
  nimbus.changes.subscribe(({ type, username, folder, file }) => {
    if (username === null || !nimbus.store.dav.propsByUser.of(username)) return;
    if (type === 'file.removed') later({ username, path: joinFolder(folder, file!) });
    else if (type === 'folder.removed') later({ username, path: folder! });
  });
}

function stillThere(nimbus: NimbusContext, username: string, path: string): boolean {
  if (nimbus.index.folder(username, path)) return true;
  const { parent, name } = splitFolder(path);
  return nimbus.index.getFile(username, parent, name) !== undefined;
}
