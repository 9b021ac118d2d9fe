/** Turns stored state into the API's records. Nothing secret ever leaves through here. */
import mime from 'mime-types';
import { fileKindOf } from '../../shared/file-kinds.js';
import type { FileEntry, FileKind, Folder, Role, User, UsageDetail } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { notFound } from '../errors.js';
import type { FileMeta, FolderNode } from '../storage/file-index.js';
import { eachFolder } from '../storage/index-tree.js';
import { sharePathKey } from '../store/store.js';
import type { StoredRole, StoredUser } from '../store/schema.js';

const MIB = 1024 * 1024;

/** The user's quota in bytes, -1 when unlimited. */
export function maxBytesOf(nimbus: NimbusContext, user: StoredUser): number {
  const role = nimbus.store.roles.get(user.role);
  if (!role || role.maxStorage < 0) return -1;
  return role.maxStorage * MIB;
}

/**
 * What counts against a user's quota: their files and their trash (docs/explorer.md). Every
 * quota check (uploads, copies) and every usage the API answers reads it.
 */
export function usedBytesOf(nimbus: NimbusContext, username: string): number {
  return nimbus.index.usedBytes(username) + nimbus.store.trashBytes(username) + versionBytes(nimbus, username);
}

/** Each user's versions' bytes (services/versions.ts), summed once per change of the versions, not per quota check. */
const versionSums = new WeakMap<object, Map<string, number>>();

/** Bytes of the user's kept versions (they count against the quota, docs/versions.md). */
export function versionBytes(nimbus: NimbusContext, username: string): number {
  const versions = nimbus.store.collection('versions');
  if (versions.size === 0) return 0;
  // Several daemons change the versions (their records arrive from the database): summed afresh.
  if (nimbus.store.database) {
    let bytes = 0;
    for (const v of versions.values()) if (v.username === username) bytes += v.size;
    return bytes;
  }
  let sums = versionSums.get(versions);
  if (!sums) {
    sums = new Map();
    for (const v of versions.values()) sums.set(v.username, (sums.get(v.username) ?? 0) + v.size);
    versionSums.set(versions, sums);
  }
  return sums.get(username) ?? 0;
}

/** Call after changing the versions: the sums are made again when next asked. */
export const versionsChanged = (nimbus: NimbusContext): void => void versionSums.delete(nimbus.store.collection('versions'));

export function toUser(nimbus: NimbusContext, user: StoredUser): User {
  const usedBytes = usedBytesOf(nimbus, user.username);
  const maxBytes = maxBytesOf(nimbus, user);
  return {
    username: user.username,
    email: user.email,
    role: user.role,
    emailVerified: user.emailVerified,
    createdAt: user.createdAt,
    usage: { usedBytes, maxBytes, overQuota: maxBytes >= 0 && usedBytes > maxBytes },
  };
}

/** usage.get: the user's files by kind, their trash and their quota. */
export function getUsage(nimbus: NimbusContext, username: string): UsageDetail {
  const user = requireUser(nimbus, username);
  const byKind: Record<FileKind, number> = { images: 0, documents: 0, media: 0, other: 0 };
  let fileCount = 0;
  const node = nimbus.index.user(user.username);
  const count = (files: Map<string, FileMeta>) => {
    for (const [name, meta] of files) byKind[fileKindOf(mimeTypeOf(name))] += meta.size;
    fileCount += files.size;
  };
  if (node) {
    count(node.root);
    eachFolder(node.folders, null, (_, folder) => count(folder.files));
  }
  const { usage } = toUser(nimbus, user);
  return {
    ...usage,
    fileBytes: nimbus.index.usedBytes(user.username),
    trashBytes: nimbus.store.trashBytes(user.username),
    versionBytes: versionBytes(nimbus, user.username),
    fileCount,
    byKind,
  };
}

export const toRole = (role: StoredRole): Role => ({
  name: role.name,
  maxStorage: role.maxStorage,
  badge: role.badge,
  builtIn: role.builtIn,
});

export function toFileEntry(nimbus: NimbusContext, username: string, folder: string | null, name: string, meta: FileMeta): FileEntry {
  const share = nimbus.store.sharesByPath.get(sharePathKey(username, folder, name));
  return {
    name,
    folder,
    size: meta.size,
    modifiedAt: new Date(meta.mtimeMs).toISOString(),
    mimeType: mimeTypeOf(name),
    shared: share !== undefined,
    shareUrl: share ? shareUrl(nimbus, share.token) : null,
  };
}

/** Each file's entry as UTF-8 JSON, kept per FileMeta object: the index replaces a file's meta, never mutates it. */
const entryBytes = new WeakMap<FileMeta, { name: string; folder: string | null; shareUrl: string | null; bytes: Buffer }>();

/**
 * `JSON.stringify(toFileEntry(…))` as UTF-8 bytes, served from a cache while the file's meta,
 * name, folder and share link are unchanged: listings of thousands of files then cost a Map
 * lookup and a copy per file instead of a date, a MIME lookup, serialisation and encoding
 * (bench/RESULTS.md; util/json-bytes.ts). `folderHasShares` false (sharesByPath.anyIn, asked
 * once per listing) skips the share lookup.
 */
export function fileEntryBytes(
  nimbus: NimbusContext,
  username: string,
  folder: string | null,
  name: string,
  meta: FileMeta,
  folderHasShares = true,
): Buffer {
  const share = folderHasShares ? nimbus.store.sharesByPath.get(sharePathKey(username, folder, name)) : undefined;
  const url = share ? shareUrl(nimbus, share.token) : null;
  const cached = entryBytes.get(meta);
  if (cached && cached.name === name && cached.folder === folder && cached.shareUrl === url) return cached.bytes;
  const bytes = Buffer.from(JSON.stringify(toFileEntry(nimbus, username, folder, name, meta)), 'utf8');
  entryBytes.set(meta, { name, folder, shareUrl: url, bytes });
  return bytes;
}

/**
 * A folder's record from its node, by its path: counts, bytes and `modifiedAt` (the latest
 * date in it, at any depth) are of the whole subtree, each kept on the node (index-tree.ts).
 */
export function toFolder(folder: string, node: FolderNode): Folder {
  return {
    name: folder.slice(folder.lastIndexOf('/') + 1),
    path: folder,
    fileCount: node.fileCount,
    folderCount: node.folderCount,
    sizeBytes: node.sizeBytes,
    modifiedAt: new Date(node.treeModifiedMs).toISOString(),
  };
}

export const shareUrl = (nimbus: NimbusContext, token: string): string => `${nimbus.baseUrl}/s/${token}`;

export const mimeTypeOf = (name: string): string => mime.lookup(name) || 'application/octet-stream';

export function requireUser(nimbus: NimbusContext, username: string): StoredUser {
  const user = nimbus.store.users.get(username);
  if (!user) throw notFound('user_not_found', 'User not found');
  return user;
}

export function requireRole(nimbus: NimbusContext, name: string): StoredRole {
  const role = nimbus.store.roles.get(name);
  if (!role) throw notFound('role_not_found', 'Role not found');
  return role;
}

/**
 * With several daemons, catches up with every commit the others made before the call when
 * `found()` says this daemon lacks what a public request names (a user, a share, a token
 * another daemon made a moment ago, whose notification is still on its way), so that a miss
 * is answered as one only once it is real. A hit, or a daemon alone, costs nothing.
 */
export async function catchUpOnMiss(nimbus: NimbusContext, found: () => boolean): Promise<void> {
  if (!found()) await nimbus.store.catchUp();
}
