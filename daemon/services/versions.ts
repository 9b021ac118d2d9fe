/**
 * Files' earlier versions (issue 27, docs/versions.md). When an upload replaces a file (the API
 * with `overwrite`, a WebDAV PUT, a tus upload onto a name), the old content is kept: storage
 * hard-links the replaced inode to `<data dir>/versions/<username>/<id>` before the new file
 * takes the name (no copy), and a `versions` record names it. Each file keeps its newest
 * `versionsKeep` versions younger than `versionsDays`; versions count against the quota, and
 * the oldest of the user's go first when an upload would otherwise not fit. Versions follow
 * their file's renames and moves, and go with it when it is deleted (the trash keeps its last
 * content). In object mode (PostgreSQL + S3) the replaced object itself is kept, and its row
 * becomes the version in the commit that names the new one: nothing is copied there either.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { FileVersion } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { ApiError } from '../errors.js';
import type { MaybePromise } from './quota.js';
import type { StoredVersion } from '../store/schema.js';
import { ignoreMissing } from '../storage/fs-helpers.js';
import { maxBytesOf, usedBytesOf, versionBytes, versionsChanged } from './records.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export const versionsOf = (nimbus: NimbusContext) => nimbus.store.collection('versions');

/** Where a user's versions' bytes are. */
export const versionsDir = (nimbus: NimbusContext, username: string): string => path.join(nimbus.config.dataDir, 'versions', username);
export const versionPath = (nimbus: NimbusContext, v: Pick<StoredVersion, 'username' | 'id'>): string =>
  path.join(versionsDir(nimbus, v.username), v.id);

/** Whether this daemon keeps versions (a count above 0). */
export const keepsVersions = (nimbus: NimbusContext): boolean => nimbus.config.versionsKeep > 0;

/** Object mode: versions are objects the storage keeps (no path in the data directory). */
export const inObjects = (nimbus: NimbusContext): boolean => nimbus.storage.openKeptObject !== undefined;

/** What an upload kept of the file it replaced: its size and mtime, or undefined when it replaced nothing. */
export const keptContent = (at: string): Promise<{ size: number; mtimeMs: number } | undefined> =>
  lstat(at).then(
    (s) => ({ size: s.size, mtimeMs: s.mtimeMs }),
    () => undefined,
  );

/** A fresh version's id and path for an upload that may replace a file; null when none is kept. */
export async function prepareVersion(nimbus: NimbusContext, username: string): Promise<{ id: string; path: string } | null> {
  if (!keepsVersions(nimbus)) return null;
  const id = randomBytes(16).toString('hex');
  // In object mode the replaced object itself is kept: nothing to make here.
  if (inObjects(nimbus)) return { id, path: '' };
  await mkdir(versionsDir(nimbus, username), { recursive: true, mode: 0o700 });
  return { id, path: path.join(versionsDir(nimbus, username), id) };
}

/**
 * Records the version an upload kept (storage linked the replaced content to `kept.path`), then
 * applies the rules: the file's newest N younger than D days stay, and the user's oldest go while
 * they would hold the user over the quota. Nothing to record when nothing was replaced.
 */
export async function recordVersion(
  nimbus: NimbusContext,
  kept: { id: string; path: string },
  at: { username: string; folder: string | null; file: string },
  replaced: { size: number; mtimeMs: number } | undefined,
): Promise<void> {
  if (kept.path === '') {
    // Object mode: storage made the record in the commit that named the new object, if it replaced one.
    if (!versionsOf(nimbus).has(kept.id)) return;
  } else if (!replaced) {
    await unlink(kept.path).catch(ignoreMissing);
    return;
  } else {
    versionsOf(nimbus).set(kept.id, { id: kept.id, ...at, ...replaced, keptAt: new Date().toISOString() });
  }
  versionsChanged(nimbus);
  await dropPast(nimbus, (v) => v.username === at.username && v.folder === at.folder && v.file === at.file);
  await nimbus.store.commit();
  await makeRoom(nimbus, at.username, 0);
}

/** A file's versions, newest first. */
export function listVersions(nimbus: NimbusContext, username: string, folder: string | null, file: string): FileVersion[] {
  return [...versionsOf(nimbus).values()]
    .filter((v) => v.username === username && v.folder === folder && v.file === file)
    .sort((a, b) => b.keptAt.localeCompare(a.keptAt) || b.id.localeCompare(a.id))
    .map((v) => ({ id: v.id, size: v.size, modifiedAt: new Date(v.mtimeMs).toISOString(), keptAt: v.keptAt }));
}

export const findVersion = (nimbus: NimbusContext, id: string): StoredVersion | undefined => versionsOf(nimbus).get(id);

/**
 * Drops the user's oldest versions while their usage plus `needed` bytes is over the quota
 * (committed when any was dropped): versions never make an upload fail that would fit without them.
 */
export async function makeRoom(nimbus: NimbusContext, username: string, needed: number): Promise<void> {
  const user = nimbus.store.users.get(username);
  const max = user ? maxBytesOf(nimbus, user) : -1;
  if (max < 0 || versionBytes(nimbus, username) === 0) return;
  const oldestFirst = [...versionsOf(nimbus).values()]
    .filter((v) => v.username === username)
    .sort((a, b) => a.keptAt.localeCompare(b.keptAt));
  let dropped = 0;
  for (const v of oldestFirst) {
    if (usedBytesOf(nimbus, username) + needed <= max) break;
    await dropVersion(nimbus, v);
    dropped++;
  }
  if (dropped > 0) await nimbus.store.commit();
}

/**
 * `hold()`, and while the quota refuses it (at once, or later: the PostgreSQL ledger answers
 * from the database, whose sum may differ from this daemon's count that makeRoom used) and the
 * user has versions, their oldest goes and it is tried again.
 */
export function holdGivingWay(nimbus: NimbusContext, username: string, hold: () => MaybePromise<void>): MaybePromise<void> {
  const retry = async (refused: unknown): Promise<void> => {
    for (let err = refused; ;) {
      if (!(err instanceof ApiError) || err.code !== 'quota_exceeded' || !(await dropOldest(nimbus, username))) throw err;
      try {
        return await hold();
      } catch (next) {
        err = next;
      }
    }
  };
  let held: MaybePromise<void>;
  try {
    held = hold();
  } catch (err) {
    return retry(err);
  }
  return held instanceof Promise ? held.catch(retry) : held;
}

/** Drops the user's oldest version (committed); false when they have none. */
async function dropOldest(nimbus: NimbusContext, username: string): Promise<boolean> {
  let oldest: StoredVersion | undefined;
  for (const v of versionsOf(nimbus).values()) if (v.username === username && (!oldest || v.keptAt < oldest.keptAt)) oldest = v;
  if (!oldest) return false;
  await dropVersion(nimbus, oldest);
  await nimbus.store.commit();
  return true;
}

/** Drops, among the versions `which` selects, those past the rules: beyond the newest N of their file, or older than D days. */
export async function dropPast(nimbus: NimbusContext, which: (v: StoredVersion) => boolean = () => true): Promise<number> {
  const { versionsKeep, versionsDays } = nimbus.config;
  const oldest = Date.now() - versionsDays * DAY_MS;
  const byFile = new Map<string, StoredVersion[]>();
  for (const v of versionsOf(nimbus).values()) {
    if (!which(v)) continue;
    const key = `${v.username}\0${v.folder ?? ''}\0${v.file}`;
    byFile.set(key, [...(byFile.get(key) ?? []), v]);
  }
  let dropped = 0;
  for (const list of byFile.values()) {
    list.sort((a, b) => b.keptAt.localeCompare(a.keptAt));
    for (const [i, v] of list.entries()) {
      if (i < versionsKeep && Date.parse(v.keptAt) > oldest) continue;
      await dropVersion(nimbus, v);
      dropped++;
    }
  }
  return dropped;
}

/** Removes one version, its record first (the caller commits): a crash between leaves bytes the start-up sweep removes. */
export async function dropVersion(nimbus: NimbusContext, v: StoredVersion): Promise<void> {
  versionsOf(nimbus).delete(v.id);
  versionsChanged(nimbus);
  await dropBytes(nimbus, v);
}

/** A dropped version's bytes: its file in the data directory, or its object. */
export async function dropBytes(nimbus: NimbusContext, v: StoredVersion): Promise<void> {
  if (v.objectId) await nimbus.storage.dropKeptObject?.(v.objectId);
  else await unlink(versionPath(nimbus, v)).catch(ignoreMissing);
}

/**
 * At start: a version's bytes without a record (a crash between an upload's link and its
 * commit, or a drop's record and its unlink) are removed; a record without bytes is dropped.
 */
export async function sweepVersions(nimbus: NimbusContext): Promise<void> {
  const root = path.join(nimbus.config.dataDir, 'versions');
  const users = await readdir(root).catch(() => [] as string[]);
  const known = versionsOf(nimbus);
  for (const username of users) {
    for (const id of await readdir(path.join(root, username)).catch(() => [] as string[])) {
      if (known.get(id)?.username !== username) await unlink(path.join(root, username, id)).catch(ignoreMissing);
    }
  }
  let dropped = 0;
  const present = (v: StoredVersion) =>
    stat(versionPath(nimbus, v)).then(
      () => true,
      () => false,
    );
  for (const v of [...known.values()]) {
    // An object's version is the bucket's to keep (a record without its object answers 404 when read);
    // a record of the other mode (carried by `nimbus migrate`, its bytes left behind) has nothing here.
    const here = inObjects(nimbus) ? v.objectId !== undefined : v.objectId === undefined && (await present(v));
    if (here) continue;
    known.delete(v.id);
    dropped++;
  }
  dropped += await dropPast(nimbus);
  if (dropped > 0) {
    versionsChanged(nimbus);
    await nimbus.store.commit();
  }
}
