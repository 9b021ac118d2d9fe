/**
 * `nimbus migrate --to-data-dir DIR`: the configured database (and bucket) back into a new
 * embedded data directory: db.json, the storage folder `<storage>/<user>/[<folder path>/]<file>`
 * (directories made along each folder row's parents) with each file's mtime, and the trash
 * `<DIR>/trash/<user>/<id>/<name>` (a trashed folder's subtree inside). The target must be
 * empty (nothing is ever replaced); its lock is held meanwhile so no daemon starts on it half
 * written. Verified as the other way: the records of the db.json written equal the
 * database's, and each file's sha256 taken while it was downloaded equals that of the file
 * read back; the directory is then read as a daemon would (embedded-source.ts) and must show
 * as many files and folders as the database has rows.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, utimes } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { S3Config } from '../config.js';
import { objectKey } from '../storage/cluster/ids.js';
import { S3ObjectStore } from '../storage/objects/s3-store.js';
import { DataDirLock } from '../store/lock.js';
import type { StoredFile } from '../store/schema.js';
import { Store } from '../store/store.js';
import { readDbJson, readEmbedded } from './embedded-source.js';
import { compareRecords, dataOfStore, mirrorRecords, recordsOfData } from './records.js';
import { Progress, type MigrationReport } from './report.js';
import { forEachLimit, hashingStream, hashOfFile, PARALLEL_FILES } from './streams.js';
import { MigrationRefused } from './target-claim.js';
import { describe } from './to-database.js';

export interface ToDataDirOptions {
  toDataDir: string;
  storageDir: string;
  databaseUrl: string;
  /** Null: the database kept only records; the files are in its daemon's storage folder, which stays where it is. */
  s3: S3Config | null;
  out: (line: string) => void;
}

export async function migrateToDataDir(options: ToDataDirOptions): Promise<MigrationReport> {
  const { toDataDir, storageDir, databaseUrl, s3, out } = options;
  const started = Date.now();
  // Both, when the storage folder is elsewhere (--storage-dir): nothing anywhere is ever replaced.
  for (const dir of new Set([toDataDir, storageDir])) {
    if (!(await isEmptyOrMissing(dir))) throw new MigrationRefused(`${dir} is not empty: the target must be a new or empty directory.`);
  }
  // Opened before the target is made: a database this code cannot read (a newer Nimbus's) leaves nothing behind.
  const source = await Store.openPostgres(databaseUrl);
  const lock = new DataDirLock(path.join(toDataDir, 'nimbus.lock'));
  try {
    await mkdir(toDataDir, { recursive: true });
    lock.acquire();
  } catch (err) {
    await source.close();
    throw err;
  }
  const bucket = s3 ? new S3ObjectStore(s3) : null;
  const report: MigrationReport = { counts: {}, mismatches: [], files: 0, bytes: 0, ms: 0, notes: [] };
  try {
    const data = dataOfStore(source);
    const target = new Store(path.join(toDataDir, 'db.json'));
    await target.open();
    mirrorRecords(recordsOfData(data), target);
    await target.commit();
    await target.close();
    const downloaded = new Map<string, string>();
    const places = new Map<string, string>();
    if (bucket) {
      for (const row of source.files.values()) {
        const place = placeOf(source, row, toDataDir, storageDir);
        if (typeof place === 'string') places.set(row.id, place);
        else report.mismatches.push(place.problem);
      }
      await makeFolders(
        source,
        toDataDir,
        storageDir,
        data.users.map((u) => u.username),
      );
      const progress = new Progress('Copied', places.size, out);
      await forEachLimit([...places], PARALLEL_FILES, async ([id, file]) => {
        const row = source.files.get(id)!;
        const hasher = hashingStream();
        await pipeline(await bucket.get(objectKey(id)), hasher, createWriteStream(file, { flags: 'wx', mode: 0o600 }));
        await utimes(file, new Date(), seconds(row.mtimeMs));
        downloaded.set(id, hasher.digest());
        progress.step(row.size);
      });
      progress.done();
      // Written last: adding the files changed each folder's mtime.
      await setFolderTimes(source, toDataDir, storageDir);
    } else {
      report.notes.push(
        'Only the records moved: the files are in the storage folder of the daemon that used this database. ' +
          `Move that folder to ${storageDir}, or start the daemon with --storage-dir pointing at it.`,
      );
    }
    const compared = compareRecords(recordsOfData(data), recordsOfData(await readDbJson(toDataDir)));
    Object.assign(report.counts, compared.counts);
    report.mismatches.push(...compared.mismatches);
    if (bucket) {
      const written = await readEmbedded(toDataDir, storageDir);
      report.counts.files = [source.files.size, written.files.length];
      report.counts.folders = [source.folders.size, written.folders.length];
      const progress = new Progress('Verified', places.size, out);
      await forEachLimit([...places], PARALLEL_FILES, async ([id, file]) => {
        const row = source.files.get(id)!;
        const actual = await hashOfFile(file).catch(() => null);
        if (!actual || actual.sha256 !== downloaded.get(id) || actual.size !== row.size)
          return void report.mismatches.push(
            `${describe({ ...row, folder: null })} (${file}): the file's sha256 differs from the object's`,
          );
        report.files++;
        report.bytes += row.size;
        progress.step(row.size);
      });
      progress.done();
    }
  } finally {
    await source.close();
    bucket?.close();
    lock.release();
  }
  report.ms = Date.now() - started;
  return report;
}

/** Where a row's bytes go on disk, or what makes the rows inconsistent. */
function placeOf(store: Store, row: StoredFile, dataDir: string, storageDir: string): string | { problem: string } {
  const folder = row.folderId === null ? null : directoryOf(store, row.folderId, dataDir, storageDir);
  if (row.trashId === null) {
    if (folder === undefined || (folder && (folder.trashId !== null || folder.dir === null)))
      return { problem: `file ${row.id} (${row.username}/${row.name}): its folder ${row.folderId} is missing or in the trash` };
    return path.join(folder?.dir ?? path.join(storageDir, row.username), row.name);
  }
  const item = store.trash.get(row.trashId);
  if (!item) return { problem: `file ${row.id} (${row.username}/${row.name}): no trash record ${row.trashId}` };
  const itemDir = path.join(dataDir, 'trash', row.username, row.trashId);
  if (item.kind === 'file') return path.join(itemDir, item.name);
  // A file of a trashed folder: in its folder's directory inside the item (the item's own folder when the row names none of it).
  return path.join(folder?.trashId === row.trashId && folder.dir ? folder.dir : path.join(itemDir, item.name), row.name);
}

/**
 * The directory a folder row becomes: its names up the parents that share its trash state,
 * under the user's storage (a live folder) or its trash item's directory (one in a trashed
 * subtree, whose top takes the item's name). `dir` is null where the rows cannot say (a live
 * folder below one in the trash, a parent gone, a trashed one without its record); undefined
 * for no row.
 */
function directoryOf(
  store: Store,
  id: string,
  dataDir: string,
  storageDir: string,
): { dir: string | null; trashId: string | null } | undefined {
  const row = store.folders.get(id);
  if (!row) return undefined;
  const names: string[] = [];
  let top = row;
  // At most as deep as a path may be: rows that loop (edited by hand) end here.
  for (let depth = 0; depth <= 64; depth++) {
    names.unshift(top.name);
    const parent = top.parentId ? store.folders.get(top.parentId) : undefined;
    if (!parent || parent.trashId !== row.trashId) break;
    top = parent;
  }
  if (row.trashId === null) {
    const whole = !top.parentId && names.length <= 64;
    return { dir: whole ? path.join(storageDir, row.username, ...names) : null, trashId: null };
  }
  const item = store.trash.get(row.trashId);
  if (!item || item.kind !== 'folder') return { dir: null, trashId: row.trashId };
  return { dir: path.join(dataDir, 'trash', row.username, row.trashId, item.name, ...names.slice(1)), trashId: row.trashId };
}

/** Each user's directory, every folder at every depth (empty ones too), and each trash item's directory. */
async function makeFolders(store: Store, dataDir: string, storageDir: string, users: string[]): Promise<void> {
  for (const username of users) await mkdir(path.join(storageDir, username), { recursive: true });
  for (const id of store.folders.keys()) {
    const dir = directoryOf(store, id, dataDir, storageDir)?.dir;
    if (dir) await mkdir(dir, { recursive: true });
  }
  for (const item of store.trash.values()) {
    const itemDir = path.join(dataDir, 'trash', item.username, item.id);
    await mkdir(item.kind === 'folder' ? path.join(itemDir, item.name) : itemDir, { recursive: true });
  }
}

async function setFolderTimes(store: Store, dataDir: string, storageDir: string): Promise<void> {
  for (const folder of store.folders.values()) {
    const dir = directoryOf(store, folder.id, dataDir, storageDir)?.dir;
    if (dir) await utimes(dir, new Date(), seconds(folder.mtimeMs)).catch(() => undefined);
  }
}

/** An mtime for utimes in seconds: a Date would cut the sub-millisecond part the disk (and the row) keep. */
const seconds = (mtimeMs: number) => mtimeMs / 1000;

async function isEmptyOrMissing(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw err;
  }
}
