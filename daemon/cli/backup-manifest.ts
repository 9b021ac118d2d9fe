/**
 * `<backup>/nimbus-backup.json`: what a backup holds and whether it finished. Written first
 * (state `incomplete`) so an interrupted run's folder is known as a backup and run again
 * into; rewritten at the end with every file's size, mtime and sha256, which `nimbus
 * restore` checks each copied file against.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CommandError } from './common.js';
import type { FileRecord } from './tree-copy.js';

export const MANIFEST = 'nimbus-backup.json';
/** The folders of a data directory a backup carries, besides db.json: the files, the trash and earlier versions. */
export const TREES = ['storage', 'trash', 'versions'] as const;
export type TreeName = (typeof TREES)[number];

export interface Manifest {
  format: 'nimbus-backup';
  version: 1;
  /** `incomplete`: interrupted (restore refuses it); `partial`: some files kept changing (listed); `complete`. */
  state: 'incomplete' | 'partial' | 'complete';
  nimbusVersion: string;
  startedAt: string;
  finishedAt: string | null;
  source: { dataDir: string; storageDir: string; daemonRunning: boolean };
  store: { file: 'db.json'; size: number; sha256: string } | null;
  trees: Partial<Record<TreeName, FileRecord[]>>;
  changing: string[];
  skipped: string[];
}

/** The manifest in `dir`, null when there is none; a file that is not one is refused. */
export async function readManifest(dir: string): Promise<Manifest | null> {
  let text: string;
  try {
    text = await readFile(path.join(dir, MANIFEST), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  let manifest: Manifest;
  try {
    manifest = JSON.parse(text) as Manifest;
  } catch {
    throw new CommandError(`${path.join(dir, MANIFEST)} does not parse: not a Nimbus backup, or damaged`);
  }
  if (manifest.format !== 'nimbus-backup' || manifest.version !== 1)
    throw new CommandError(`${path.join(dir, MANIFEST)} is not a Nimbus backup manifest this version reads`);
  return manifest;
}

/** Written to a temp name and renamed (fsynced first): a crash leaves the old manifest or the new one. */
export async function writeManifest(dir: string, manifest: Manifest): Promise<void> {
  const file = path.join(dir, MANIFEST);
  await writeFile(`${file}.tmp`, `${JSON.stringify(manifest, null, 1)}\n`, { mode: 0o600, flush: true });
  await rename(`${file}.tmp`, file);
}

/** Earlier records by tree and path, to skip re-hashing unchanged copies. */
export function knownRecords(manifest: Manifest | null, tree: TreeName): Map<string, FileRecord> {
  return new Map((manifest?.trees[tree] ?? []).map((record) => [record.path, record]));
}
