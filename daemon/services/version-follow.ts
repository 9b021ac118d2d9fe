/**
 * Versions following their files (docs/versions.md): a rename or move of a file, or of a folder
 * above it, carries its versions to the new path; a delete drops them (the trash keeps the file's
 * last content); a user's rename or deletion takes all of theirs along. Called beside the shares'
 * and WebDAV state's following (dav-follow.ts, users.ts), in the step that makes the change real.
 */
import { rename, rm } from 'node:fs/promises';
import type { NimbusContext } from '../context.js';
import { ignoreMissing } from '../storage/fs-helpers.js';
import type { StoredVersion } from '../store/schema.js';
import { versionsChanged } from './records.js';
import { dropBytes, inObjects, versionsDir, versionsOf } from './versions.js';

/** A version's file path in its user's tree. */
const pathOf = (v: StoredVersion) => (v.folder === null ? v.file : `${v.folder}/${v.file}`);
const inside = (path: string, top: string) => path === top || path.startsWith(`${top}/`);

/** The versions of `from` (a file, or everything below a folder) now belong at `to`. The caller commits; how many moved. */
export function moveVersions(nimbus: NimbusContext, username: string, from: string, to: string): number {
  let moved = 0;
  for (const v of [...versionsOf(nimbus).values()]) {
    if (v.username !== username || !inside(pathOf(v), from)) continue;
    const path = to + pathOf(v).slice(from.length);
    const cut = path.lastIndexOf('/');
    versionsOf(nimbus).set(v.id, { ...v, folder: cut < 0 ? null : path.slice(0, cut), file: path.slice(cut + 1) });
    moved++;
  }
  return moved;
}

/**
 * The versions of `path` (and below it) go with it: deleted for good or into the trash, which
 * keeps the last content. Records at once (the caller commits), bytes in the background (a
 * crash in between leaves bytes the start-up sweep removes). How many were dropped.
 */
export function forgetVersions(nimbus: NimbusContext, username: string, path: string): number {
  const gone = [...versionsOf(nimbus).values()].filter((v) => v.username === username && inside(pathOf(v), path));
  for (const v of gone) versionsOf(nimbus).delete(v.id);
  if (gone.length > 0) {
    versionsChanged(nimbus);
    void Promise.all(gone.map((v) => dropBytes(nimbus, v))).catch((err: Error) =>
      nimbus.log(`Nimbus: could not remove a dropped version's bytes: ${err.message}`),
    );
  }
  return gone.length;
}

/** Every version of a user's, for a user deleted (`to` null) or renamed. The caller commits. */
export async function followUser(nimbus: NimbusContext, username: string, to: string | null): Promise<void> {
  const theirs = [...versionsOf(nimbus).values()].filter((v) => v.username === username);
  if (theirs.length === 0) return;
  for (const v of theirs) {
    if (to === null) versionsOf(nimbus).delete(v.id);
    else versionsOf(nimbus).set(v.id, { ...v, username: to });
  }
  versionsChanged(nimbus);
  if (inObjects(nimbus)) {
    if (to === null) await Promise.all(theirs.map((v) => dropBytes(nimbus, v)));
    return;
  }
  if (to === null) await rm(versionsDir(nimbus, username), { recursive: true, force: true });
  else await rename(versionsDir(nimbus, username), versionsDir(nimbus, to)).catch(ignoreMissing);
}
