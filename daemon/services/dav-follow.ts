/**
 * WebDAV's state following what the services do to a resource (docs/webdav.md, "Locks and
 * properties"): a rename or move carries its dead properties (and those of everything below it)
 * to the new path and releases its locks, which do not move with it (RFC 4918 §7.4); a delete
 * drops both. The services call these in the step that makes their change real, beside the
 * shares', so the records commit with it.
 */
import type { NimbusContext } from '../context.js';
import { releaseLocksWithin } from './dav-locks.js';
import { dropDeadProps, moveDeadProps } from './dav-props.js';

/** `from` (and everything below it) is now at `to`. The caller commits; whether any record changed. */
export function followMove(nimbus: NimbusContext, username: string, from: string, to: string): boolean {
  const moved = moveDeadProps(nimbus, username, from, to);
  return releaseLocksWithin(nimbus, username, from) + moved > 0;
}

/** `path` (and everything below it) is gone: deleted for good or into the trash, which keeps none of this. The caller commits. */
export function forgetResource(nimbus: NimbusContext, username: string, path: string): boolean {
  const dropped = dropDeadProps(nimbus, username, path);
  return releaseLocksWithin(nimbus, username, path) + dropped > 0;
}

/** A folder another program moved, seen by the watcher as one rename: followed as the API's move is, committed in the background. */
export function followWatchedMove(nimbus: NimbusContext, username: string, from: string, to: string): void {
  if (!followMove(nimbus, username, from, to)) return;
  nimbus.store.commit().catch((err: Error) => nimbus.log(`Nimbus: could not save the WebDAV state of a moved folder: ${err.message}`));
}
