/**
 * `nimbus backup DIR`: a copy of an embedded installation (db.json, the storage folder, the
 * trash and earlier versions) that a running daemon may keep serving during. Run it again
 * into the same DIR to bring it up to date: only what changed or is missing is copied, and
 * an interrupted run is finished the same way. docs/operations.md, "Backup and restore".
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { backendMode } from '../backends.js';
import { readRunFile } from '../run-file.js';
import { DataDirLock, LockHeldError } from '../store/lock.js';
import { VERSION } from '../version.js';
import { MANIFEST, TREES, knownRecords, readManifest, writeManifest, type Manifest } from './backup-manifest.js';
import { copyStore, refuseOtherBackends, treeSources } from './backup-sources.js';
import { CommandError, configFor, lockHolder, operands, say, warn, type Command } from './common.js';
import { copyTree, type FileRecord, type TreeCopy } from './tree-copy.js';

const HELP = `Usage:
  nimbus backup DIR [--data-dir DIR] [--storage-dir DIR]

Copies the data directory's store (db.json), storage folder, trash and earlier versions into
DIR, with a manifest (DIR/${MANIFEST}: each file's size, mtime and sha256). The daemon may keep
running: db.json is replaced atomically at each commit, so its copy is a snapshot, and each file
is copied through a temp name and taken only if its size and mtime did not change while it was
read. The store is copied last, so it knows every user whose files were copied.

Run it again into the same DIR to update it: only files that changed or are missing are copied,
and what was deleted since is removed from DIR. An interrupted run is finished the same way.
Exits 1 if some file kept changing while it was read (it is listed; run again).

Embedded installations only. With PostgreSQL or S3 use pg_dump (or WAL archiving) for the
database and bucket versioning with replication for the files (docs/scaling.md, "Backing up").
Restore with \`nimbus restore DIR\`.
`;

/** A file written during the copy is caught by another pass; a daemon under steady load gets three. */
const MAX_PASSES = 3;

export const backupCommand: Command = {
  help: HELP,
  options: {},
  async run(args, _values, input) {
    const [target] = operands(args, 1, 'nimbus backup DIR');
    const config = configFor(input);
    refuseOtherBackends(backendMode(config), 'backup');
    const dir = path.resolve(target);
    const { dataDir, storageDir } = config;
    for (const inside of [dataDir, storageDir])
      if (dir === inside || !path.relative(inside, dir).startsWith('..'))
        throw new CommandError(`${dir} is inside ${inside}: back up to a folder outside the data and storage directories`);
    const earlier = await readManifest(dir);
    if (!earlier && (await readdir(dir).catch(() => [])).length > 0)
      throw new CommandError(`${dir} is not empty and holds no ${MANIFEST}: choose an empty folder or an earlier backup`);

    if (!existsSync(path.join(dataDir, 'db.json')))
      throw new CommandError(`${dataDir} holds no db.json: not a Nimbus data directory (or no daemon ever started there)`);
    const running = await readRunFile(dataDir);
    // No daemon: hold its lock for the copy, so none starts half-way (and the copy is exact).
    const lock = running || (await lockHolder(dataDir)) !== null ? null : new DataDirLock(path.join(dataDir, 'nimbus.lock'));
    acquire(lock);
    try {
      // 0700: the copy holds password hashes and every user's files.
      await mkdir(dir, { recursive: true, mode: 0o700 });
      say(`Backing up ${dataDir} into ${dir}${running ? ` while the daemon (pid ${running.pid}) runs` : ''}…`);
      const manifest: Manifest = {
        format: 'nimbus-backup',
        version: 1,
        state: 'incomplete',
        nimbusVersion: VERSION,
        startedAt: new Date().toISOString(),
        finishedAt: null,
        source: { dataDir, storageDir, daemonRunning: lock === null },
        store: null,
        trees: earlier?.trees ?? {},
        changing: [],
        skipped: [],
      };
      await writeManifest(dir, manifest);
      const sources = treeSources(config);
      // The storage folder before the trash: a file deleted meanwhile is then in both copies, never in neither.
      for (const tree of TREES) {
        const copy = await copyPasses(sources[tree], path.join(dir, tree), knownRecords(earlier, tree), lock === null);
        manifest.trees[tree] = copy.files;
        manifest.changing.push(...copy.changing.map((file) => `${tree}/${file}`));
        manifest.skipped.push(...copy.skipped.map((file) => `${tree}/${file}`));
        say(
          `  ${tree.padEnd(9)} ${copy.files.length} files: ${copy.copied} copied (${mib(copy.copiedBytes)}), ${copy.unchanged} unchanged, ${copy.removed} removed`,
        );
      }
      manifest.store = await copyStore(dataDir, dir);
      say(`  db.json   ${mib(manifest.store.size)}, sha256 ${manifest.store.sha256.slice(0, 16)}…`);
      manifest.state = manifest.changing.length > 0 ? 'partial' : 'complete';
      manifest.finishedAt = new Date().toISOString();
      await writeManifest(dir, manifest);
      for (const file of manifest.skipped) warn(`  skipped (not a file or folder): ${file}`);
      if (manifest.changing.length > 0) {
        for (const file of manifest.changing) warn(`  kept changing while read: ${file}`);
        warn(`nimbus backup: ${manifest.changing.length} files kept changing; run the same command again to finish them.`);
        return 1;
      }
      say(`Backup complete: ${dir}/${MANIFEST}`);
      return 0;
    } finally {
      lock?.release();
    }
  },
};

/** Copies a tree, again while a running daemon keeps changing it (up to MAX_PASSES); the last pass's records. */
async function copyPasses(from: string, to: string, known: Map<string, FileRecord>, live: boolean): Promise<TreeCopy> {
  let total: TreeCopy | null = null;
  for (let pass = 1; pass <= MAX_PASSES; pass++) {
    const copy = await copyTree(from, to, known);
    if (!total) total = copy;
    else {
      total = {
        ...copy,
        copied: total.copied + copy.copied,
        copiedBytes: total.copiedBytes + copy.copiedBytes,
        removed: total.removed + copy.removed,
        unchanged: total.unchanged,
      };
    }
    if (!live || (pass > 1 && copy.copied + copy.removed === 0)) break;
    for (const record of copy.files) known.set(record.path, record);
  }
  return total!;
}

/** Takes the lock, a daemon started meanwhile being a refusal like any other. */
export function acquire(lock: DataDirLock | null): void {
  try {
    lock?.acquire();
  } catch (err) {
    throw err instanceof LockHeldError ? new CommandError(err.message) : err;
  }
}

export const mib = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MiB`;
