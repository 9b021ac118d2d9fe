/** Where a data directory keeps what a backup carries, and the store's copy (db.json, a snapshot). */
import { createHash } from 'node:crypto';
import { open, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { BackendMode } from '../backends.js';
import type { DaemonConfig } from '../config.js';
import type { TreeName } from './backup-manifest.js';
import { CommandError } from './common.js';

export function treeSources(config: Pick<DaemonConfig, 'dataDir' | 'storageDir'>): Record<TreeName, string> {
  return { storage: config.storageDir, trash: path.join(config.dataDir, 'trash'), versions: path.join(config.dataDir, 'versions') };
}

/**
 * Backup and restore copy db.json and the storage folder. With PostgreSQL or a bucket the
 * data lives where those tools do it better (consistently, at a point in time): say which.
 */
export function refuseOtherBackends(mode: BackendMode, verb: 'backup' | 'restore'): void {
  if (mode === 'embedded') return;
  const what =
    mode === 'postgres'
      ? 'the metadata is in PostgreSQL (NIMBUS_DATABASE_URL): back it up with pg_dump --format=custom (or WAL archiving), and the storage folder with a file copy taken after the dump'
      : mode === 'object'
        ? 'the files are in an S3 bucket (NIMBUS_S3_ENDPOINT): turn on bucket versioning and replication, and copy db.json (stop the daemon, or copy it alone: it is replaced atomically)'
        : 'the metadata is in PostgreSQL and the files in an S3 bucket: use pg_dump (or WAL archiving) for the database and bucket versioning with replication for the files';
  throw new CommandError(
    `${verb} works on embedded installations (db.json and a storage folder) only; here ${what}. See docs/scaling.md, "Backing up".`,
  );
}

/**
 * Copies db.json. The daemon replaces it by rename at each commit, so the one descriptor read
 * here holds one whole version; it must parse, or the copy would be of a damaged store.
 */
export async function copyStore(dataDir: string, dir: string): Promise<{ file: 'db.json'; size: number; sha256: string }> {
  const handle = await open(path.join(dataDir, 'db.json'), 'r').catch((err: NodeJS.ErrnoException) => {
    throw new CommandError(
      err.code === 'ENOENT' ? `${dataDir} holds no db.json: not a Nimbus data directory (or the daemon never started there)` : err.message,
    );
  });
  let bytes: Buffer;
  try {
    bytes = await handle.readFile();
  } finally {
    await handle.close();
  }
  try {
    JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new CommandError(
      `${path.join(dataDir, 'db.json')} does not parse: the store is damaged; nothing was copied over the last good backup of it`,
    );
  }
  await writeStoreFile(path.join(dir, 'db.json'), bytes);
  return { file: 'db.json', size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** db.json written as the daemon writes it: a temp, fsynced, renamed, mode 0600. */
export async function writeStoreFile(file: string, bytes: Buffer): Promise<void> {
  await writeFile(`${file}.tmp`, bytes, { mode: 0o600, flush: true });
  await rename(`${file}.tmp`, file);
}
