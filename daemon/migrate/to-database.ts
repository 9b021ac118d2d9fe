/**
 * `nimbus migrate --data-dir DIR`: an embedded installation into PostgreSQL (records) and,
 * with S3 configured, a bucket (every file, trashed ones included, as `files/<id>` with its
 * row). The source is only read; the data-directory lock keeps its daemon from starting
 * meanwhile. Resumable: ids derive from the file's place and a salt the target keeps
 * (target-claim.ts), so a row already there with the file's size and mtime is not copied
 * again. Verified at the end from a freshly loaded store: records equal, and each file's
 * sha256 taken while it was uploaded (or read from the disk, for one copied by an earlier
 * run) equal to the sha256 of the object read back.
 */
import { createReadStream, existsSync } from 'node:fs';
import os from 'node:os';
import { pipeline } from 'node:stream';
import path from 'node:path';
import type { S3Config } from '../config.js';
import { objectKey } from '../storage/cluster/ids.js';
import { S3ObjectStore } from '../storage/objects/s3-store.js';
import { DataDirLock } from '../store/lock.js';
import type { StoredFolder } from '../store/schema.js';
import { Store } from '../store/store.js';
import { readEmbedded, refuseUnknownCollections } from './embedded-source.js';
import { planRows, type PlannedFile } from './plan-rows.js';
import { canonical, compareRecords, mirrorRecords, recordsOfData, recordsOfStore } from './records.js';
import { forEachLimit, formatBytes, hashingStream, hashOf, hashOfFile, PARALLEL_FILES } from './streams.js';
import { claimTarget, MigrationRefused } from './target-claim.js';
import { Progress, reportOk, type MigrationReport } from './report.js';

export interface ToDatabaseOptions {
  dataDir: string;
  storageDir: string;
  databaseUrl: string;
  /** Null: PostgreSQL with the storage folder (the files stay where they are; only records move). */
  s3: S3Config | null;
  out: (line: string) => void;
}

export async function migrateToDatabase(options: ToDatabaseOptions): Promise<MigrationReport> {
  const { dataDir, storageDir, databaseUrl, s3, out } = options;
  const started = Date.now();
  if (!existsSync(path.join(dataDir, 'db.json'))) throw new MigrationRefused(`${dataDir} holds no db.json: not a Nimbus data directory`);
  const lock = new DataDirLock(path.join(dataDir, 'nimbus.lock'));
  lock.acquire();
  try {
    const source = await readEmbedded(dataDir, storageDir);
    refuseUnknownCollections(source.data, path.join(dataDir, 'db.json'));
    for (const line of source.skipped) out(`Skipped ${line}`);
    const records = recordsOfData(source.data);
    const bucket = s3 ? new S3ObjectStore(s3) : null;
    let store: Store;
    let claim: Awaited<ReturnType<typeof claimTarget>>;
    try {
      store = await Store.openPostgres(databaseUrl);
    } catch (err) {
      bucket?.close();
      throw err;
    }
    try {
      claim = await claimTarget(databaseUrl, store, `${os.hostname()}:${path.resolve(dataDir)}`);
    } catch (err) {
      await store.close();
      bucket?.close();
      throw err;
    }
    const uploaded = new Map<string, string>();
    const plan = planRows(source.files, source.folders, claim.idOf);
    const report: MigrationReport = { counts: {}, mismatches: [], files: 0, bytes: 0, ms: 0, notes: [] };
    try {
      try {
        if (claim.resumed) out('Carrying on with an earlier run of this migration.');
        mirrorRecords(records, store);
        await store.commit();
        if (bucket) {
          await bucket.ensureBucket();
          await mirrorFolders(store, plan.folders);
          await copyFiles(store, bucket, plan.files, uploaded, out);
          await dropStaleFiles(store, bucket, new Set(plan.files.map((f) => f.row.id)));
        }
      } finally {
        await store.close();
      }
      // Checked on what the database holds now, not on the Maps this run wrote.
      const check = await Store.openPostgres(databaseUrl);
      try {
        const compared = compareRecords(records, recordsOfStore(check));
        Object.assign(report.counts, compared.counts);
        report.mismatches.push(...compared.mismatches);
        if (bucket) {
          report.counts.files = [plan.files.length, check.files.size];
          report.counts.folders = [plan.folders.length, check.folders.size];
          await verifyObjects(check, bucket, plan.files, uploaded, report, out);
        } else {
          const bytes = source.files.reduce((n, f) => n + f.size, 0);
          report.notes.push(
            `The ${source.files.length} files (${formatBytes(bytes)}) stay in ${storageDir}: start the daemon with this --data-dir ` +
              '(and --storage-dir, if you gave one) and NIMBUS_DATABASE_URL.',
          );
        }
      } finally {
        await check.close();
      }
      if (reportOk(report)) await claim.finish();
    } finally {
      await claim.release();
      bucket?.close();
    }
    report.ms = Date.now() - started;
    return report;
  } finally {
    lock.release();
  }
}

/** Folder rows first, so a daemon started on a half-migrated database never shows a file in an unknown folder. */
async function mirrorFolders(store: Store, folders: StoredFolder[]): Promise<void> {
  const wanted = new Map(folders.map((f) => [f.id, f]));
  for (const id of [...store.folders.keys()]) if (!wanted.has(id)) store.folders.delete(id);
  for (const folder of folders) store.folders.set(folder.id, folder);
  await store.commit();
}

/** Uploads each file whose row is missing or describes other bytes, then commits its row (the object first, as a daemon does). */
async function copyFiles(
  store: Store,
  bucket: S3ObjectStore,
  files: PlannedFile[],
  uploaded: Map<string, string>,
  out: (line: string) => void,
) {
  const progress = new Progress('Copied', files.length, out);
  await forEachLimit(files, PARALLEL_FILES, async ({ source, row }) => {
    const existing = store.files.get(row.id);
    if (existing && existing.size === row.size && existing.mtimeMs === row.mtimeMs && existing.etag !== '') {
      // The same bytes: not copied again, only its place put back if the row was changed since.
      const wanted = { ...row, etag: existing.etag };
      if (canonical(existing) !== canonical(wanted)) {
        store.files.set(row.id, wanted);
        await store.commit();
      }
      progress.step(0);
      return;
    }
    const hasher = hashingStream();
    // pipeline, not pipe: a read error must fail the upload (destroying the hasher), not leave it waiting.
    const body = pipeline(createReadStream(source.path), hasher, () => undefined);
    const stored = await bucket.put(objectKey(row.id), body, { contentType: row.contentType });
    if (stored.size !== row.size)
      throw new Error(`${describe(source)} changed while it was copied (${row.size} bytes, then ${stored.size})`);
    uploaded.set(row.id, hasher.digest());
    store.files.set(row.id, { ...row, etag: stored.etag });
    await store.commit();
    progress.step(row.size);
  });
  progress.done();
}

/** Rows (and objects) an earlier run made for files that are no longer in the source. */
async function dropStaleFiles(store: Store, bucket: S3ObjectStore, wanted: Set<string>): Promise<void> {
  const stale = [...store.files.keys()].filter((id) => !wanted.has(id));
  if (stale.length === 0) return;
  for (const id of stale) store.files.delete(id);
  await store.commit();
  await bucket.delete(stale.map(objectKey));
}

async function verifyObjects(
  store: Store,
  bucket: S3ObjectStore,
  files: PlannedFile[],
  uploaded: Map<string, string>,
  report: MigrationReport,
  out: (line: string) => void,
): Promise<void> {
  const progress = new Progress('Verified', files.length, out);
  await forEachLimit(files, PARALLEL_FILES, async ({ source, row }) => {
    const stored = store.files.get(row.id);
    if (!stored) return void report.mismatches.push(`${describe(source)}: no row in the database`);
    if (stored.size !== source.size)
      return void report.mismatches.push(`${describe(source)}: ${source.size} bytes, the row says ${stored.size}`);
    const expected = uploaded.get(row.id) ?? (await hashOfFile(source.path)).sha256;
    let actual: { sha256: string; size: number };
    try {
      actual = await hashOf(await bucket.get(objectKey(row.id)));
    } catch (err) {
      return void report.mismatches.push(`${describe(source)}: object ${objectKey(row.id)} unreadable (${(err as Error).message})`);
    }
    if (actual.sha256 !== expected || actual.size !== source.size)
      return void report.mismatches.push(`${describe(source)}: the object's sha256 differs from the file's`);
    report.files++;
    report.bytes += source.size;
    progress.step(source.size);
  });
  progress.done();
}

export const describe = (f: { username: string; folder: string | null; name: string; trashId: string | null }) =>
  `${f.trashId ? `trash ${f.trashId} of ` : ''}${[f.username, f.folder, f.name].filter((p) => p !== null).join('/')}`;
