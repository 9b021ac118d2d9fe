/**
 * WebDAV's dead properties (RFC 4918 §4, §9.2; docs/webdav.md "Locks and properties"): what a
 * client stores on a file or folder with PROPPATCH, kept per resource (user and path) as a
 * record of the store (`davProps`), the element's XML verbatim. They follow their resource
 * through every rename and move the services make and go with its delete (dav-follow.ts).
 */
import { createHash } from 'node:crypto';
import type { NimbusContext } from '../context.js';
import { ApiError, notFound } from '../errors.js';
import type { StoredDavProps, StoredDeadProp } from '../store/schema.js';
import { splitFolder } from '../storage/paths.js';
import { isWithin } from './dav-locks.js';
import { requireUnlocked } from './lock-tokens.js';
import { pathLock } from './name-locks.js';
import { requireUser } from './records.js';

/** xml: the whole property element, serialized, with the namespace declarations it needs, verbatim from PROPPATCH. */
export type DeadProp = StoredDeadProp;

/** One property's element at most (UTF-8 bytes), and all of one resource's together. */
export const MAX_PROPERTY_BYTES = 64 * 1024;
export const MAX_RESOURCE_PROPS_BYTES = 1024 * 1024;

/** The record's key: fixed length whatever the path's (a PostgreSQL key must stay well under a B-tree page). */
const recordId = (username: string, path: string): string => createHash('sha256').update(`${username}/${path}`).digest('hex');

const sameProp = (a: { ns: string; name: string }, b: { ns: string; name: string }): boolean => a.ns === b.ns && a.name === b.name;

/** `a/b/c` → `a/b/c`, `a/b`, `a`. */
function withAncestors(path: string): string[] {
  const paths = [path];
  for (let cut = path.lastIndexOf('/'); cut > 0; cut = path.lastIndexOf('/', cut - 1)) paths.push(path.slice(0, cut));
  return paths;
}

/** Whether any resource of the user holds a dead property (a listing of one who has none looks none up). */
export const anyDeadProps = (nimbus: NimbusContext, username: string): boolean =>
  (nimbus.store.dav.propsByUser.of(username)?.size ?? 0) > 0;

/** The dead properties of the resource at `path`, in the order they were first set. */
export function deadProps(nimbus: NimbusContext, username: string, path: string): DeadProp[] {
  return [...(nimbus.store.dav.propsByUser.of(username)?.get(path)?.props ?? [])];
}

function requireResource(nimbus: NimbusContext, username: string, path: string): void {
  if (path === '' || nimbus.index.folder(username, path)) return;
  const { parent, name } = splitFolder(path);
  if (!nimbus.index.getFile(username, parent, name)) throw notFound('file_not_found', 'No file or folder at that path');
}

/**
 * Sets and removes in one change (all or nothing): the sets first, in order, then the
 * removals. 404 for a resource that is not there, 423 `locked` without the tokens of the locks
 * covering it, 413 `property_too_large` past 64 KiB a property or 1 MiB a resource.
 */
export async function patchDeadProps(
  nimbus: NimbusContext,
  username: string,
  path: string,
  set: readonly DeadProp[],
  remove: readonly { ns: string; name: string }[],
): Promise<void> {
  requireUser(nimbus, username);
  for (const prop of set) {
    if (Buffer.byteLength(prop.xml) > MAX_PROPERTY_BYTES)
      throw new ApiError('property_too_large', `The property ${prop.name} is over ${MAX_PROPERTY_BYTES / 1024} KiB`);
  }
  // The name locks of the resource and of every folder above it: the ones their renames, moves
  // and deletes take, so none of those moves the path between this check and this commit.
  return nimbus.locks.run(
    withAncestors(path).map((p) => pathLock(username, p)),
    async () => {
      requireResource(nimbus, username, path);
      requireUnlocked(nimbus, username, [path]);
      const props = deadProps(nimbus, username, path);
      for (const { ns, name, xml } of set) {
        const at = props.findIndex((prop) => sameProp(prop, { ns, name }));
        if (at >= 0) props[at] = { ns, name, xml };
        else props.push({ ns, name, xml });
      }
      const kept = props.filter((prop) => !remove.some((gone) => sameProp(prop, gone)));
      const bytes = kept.reduce((sum, prop) => sum + Buffer.byteLength(prop.xml), 0);
      if (bytes > MAX_RESOURCE_PROPS_BYTES)
        throw new ApiError('property_too_large', `A resource's properties may take ${MAX_RESOURCE_PROPS_BYTES / 1024 / 1024} MiB together`);
      putProps(nimbus, username, path, kept);
      await nimbus.store.commit();
    },
  );
}

/** Stores a resource's properties (none: removes its record); the caller commits. */
function putProps(nimbus: NimbusContext, username: string, path: string, props: StoredDeadProp[]): void {
  const record: StoredDavProps = { id: recordId(username, path), username, path, props };
  if (props.length === 0) nimbus.store.dav.deleteProps(record);
  else nimbus.store.dav.putProps(record);
}

/** The user's property records at `path` and below it. */
function recordsWithin(nimbus: NimbusContext, username: string, path: string): StoredDavProps[] {
  const mine = nimbus.store.dav.propsByUser.of(username);
  if (!mine) return [];
  return [...mine.values()].filter((record) => isWithin(record.path, path));
}

/**
 * Copies a resource's dead properties (and, for a folder, every one below it) to `to`; used by
 * COPY. The destination ends with exactly the source's: whatever `to` and below it held is replaced.
 */
export async function copyDeadProps(nimbus: NimbusContext, username: string, from: string, to: string): Promise<void> {
  requireUser(nimbus, username);
  const records = recordsWithin(nimbus, username, from);
  const replaced = recordsWithin(nimbus, username, to).filter((record) => !isWithin(record.path, from));
  if (records.length === 0 && replaced.length === 0) return;
  for (const record of replaced) nimbus.store.dav.deleteProps(record);
  for (const record of records) putProps(nimbus, username, to + record.path.slice(from.length), record.props);
  await nimbus.store.commit();
}

/**
 * Moves the properties of `from` and everything below it to `to` (a rename or a move: one pass
 * rewriting the prefix); a record already at a path moved onto is replaced. The caller commits;
 * how many moved (none when `from` has none: the watcher's echo of a move made here).
 */
export function moveDeadProps(nimbus: NimbusContext, username: string, from: string, to: string): number {
  const records = recordsWithin(nimbus, username, from);
  for (const record of records) {
    nimbus.store.dav.deleteProps(record);
    putProps(nimbus, username, to + record.path.slice(from.length), record.props);
  }
  return records.length;
}

/** Removes the properties of `path` and everything below it (its delete; `''`: all the user's). The caller commits; how many went. */
export function dropDeadProps(nimbus: NimbusContext, username: string, path: string): number {
  const records = recordsWithin(nimbus, username, path);
  for (const record of records) nimbus.store.dav.deleteProps(record);
  return records.length;
}

/** A renamed user's properties, under the new name (the caller commits). */
export function moveUserDeadProps(nimbus: NimbusContext, from: string, to: string): void {
  for (const record of recordsWithin(nimbus, from, '')) {
    nimbus.store.dav.deleteProps(record);
    putProps(nimbus, to, record.path, record.props);
  }
}
