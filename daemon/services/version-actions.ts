/** What an owner does with a file's versions (docs/versions.md): read one, and make one the file's content again. */
import { Readable } from 'node:stream';
import type { FileEntry } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { notFound } from '../errors.js';
import type { OpenedFile } from '../storage/file-storage.js';
import { openKeptFile } from '../storage/open-file.js';
import type { StoredVersion } from '../store/schema.js';
import { uploadFile } from './files.js';
import { requireUser } from './records.js';
import { findVersion, versionPath } from './versions.js';

const noSuchVersion = () => notFound('version_not_found', 'This file has no version with that id');

/** The version `id` of the file; 404 `file_not_found` for no such file, `version_not_found` for another file's or none. */
export function requireVersion(nimbus: NimbusContext, username: string, folder: string | null, file: string, id: string): StoredVersion {
  requireUser(nimbus, username);
  nimbus.storage.requireFile(username, folder, file);
  const version = findVersion(nimbus, id);
  if (!version || version.username !== username || version.folder !== folder || version.file !== file) throw noSuchVersion();
  return version;
}

/** A version's bytes, opened (never through a link). */
export async function openVersion(nimbus: NimbusContext, version: StoredVersion): Promise<OpenedFile> {
  if (version.objectId) return nimbus.storage.openKeptObject!({ ...version, objectId: version.objectId });
  return openKeptFile(versionPath(nimbus, version), noSuchVersion);
}

/**
 * Makes a version the file's content again: an upload of its bytes over the file, so it is
 * placed as any upload is (durable, the quota, the locks, events) and what it replaces is kept
 * as a version in turn. The version itself stays.
 */
export async function restoreVersion(
  nimbus: NimbusContext,
  username: string,
  folder: string | null,
  file: string,
  id: string,
): Promise<FileEntry> {
  const opened = await openVersion(nimbus, requireVersion(nimbus, username, folder, file, id));
  try {
    // An empty version is read from nothing (OpenedFile.stream is not for empty files).
    const body = opened.size === 0 ? Readable.from([]) : await opened.stream();
    return await uploadFile(nimbus, { username, folder, file, overwrite: true, declaredLength: opened.size, body });
  } finally {
    await opened.close();
  }
}
