/**
 * The cluster rows' dataset (issue 15): the embedded dataset's users, roles and all of
 * `big`'s 100,000 file rows go straight into PostgreSQL, and an object goes into the bucket
 * only where a row reads bytes — the media user's big file, which the download row fetches.
 *
 * Why rows without objects are honest for the other rows: a listing, a GET /api/user, a
 * durable role change and a daemon's start-up read only the store's rows (PgBackend loads
 * the tables, ObjectStorage builds its index from them, the quota ledger sums `files.size`);
 * objects are read only when a file is opened (download, zip, copy) or an upload is checked.
 * The sweeper lists objects and deletes those no row names — never a row — so 100,000 rows
 * without objects leave it nothing to do. Swift takes 37–80 PutObjects/s here: the 100,000
 * small objects alone would take over 20 minutes to load.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, readdirSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import mime from 'mime-types';
import pg from 'pg';
import { objectKey } from '../../daemon/storage/cluster/ids.js';
import { S3ObjectStore } from '../../daemon/storage/objects/s3-store.js';
import type { DbData, StoredFile, StoredFolder } from '../../daemon/store/schema.js';
import type { Bench } from './context.js';
import { BIG_FILE, BIG_USER, MEDIA_USER } from './dataset.js';
import type { BenchEngines } from './engines.js';

export const CLUSTER_BUCKET = 'nimbus-bench';
/** Rows per INSERT while loading (jsonb_to_recordset of one JSON array). */
const ROW_BATCH = 5000;
/** Files read at once for their size and MD5 (the ETag S3 would give). */
const READ_CONCURRENCY = 32;

export interface ClusterDataset {
  /** File rows of `big` (each without its object). */
  files: number;
  folders: number;
  users: number;
  /** ms to read the embedded files for their sizes and ETags. */
  readMs: number;
  /** ms to write the rows (one transaction). */
  rowsMs: number;
  /** ms to put the big file's object. */
  objectMs: number;
  /** The big file's object key (the download row's Swift-alone GET). */
  bigObjectKey: string;
}

/**
 * Loads the dataset into the engines (after a first daemon has migrated the schema and made
 * the bucket). Every file row carries the size and ETag its bytes would have, so a listing
 * answers the same JSON shape as with objects.
 */
export async function loadClusterDataset(b: Bench, engines: BenchEngines): Promise<ClusterDataset> {
  const db = JSON.parse(readFileSync(path.join(b.ds.dataDir, 'db.json'), 'utf8')) as DbData;
  const now = Date.now();
  const folders: StoredFolder[] = [];
  const files: { row: StoredFile; file: string }[] = [];
  const newRow = (username: string, folderId: string | null, name: string): StoredFile => ({
    id: randomBytes(16).toString('hex'),
    username,
    folderId,
    name,
    size: 0,
    mtimeMs: now,
    contentType: mime.lookup(name) || 'application/octet-stream',
    etag: '',
    trashId: null,
  });
  const bigDir = path.join(b.ds.storageDir, BIG_USER);
  for (const name of readdirSync(bigDir).sort()) {
    const folder: StoredFolder = { id: randomBytes(16).toString('hex'), username: BIG_USER, name, mtimeMs: now, trashId: null };
    folders.push(folder);
    for (const fileName of readdirSync(path.join(bigDir, name))) {
      files.push({ row: newRow(BIG_USER, folder.id, fileName), file: path.join(bigDir, name, fileName) });
    }
  }

  let t = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const { row, file } = files[next++];
      const bytes = await readFile(file);
      row.size = bytes.length;
      row.etag = `"${createHash('md5').update(bytes).digest('hex')}"`;
    }
  };
  await Promise.all(Array.from({ length: READ_CONCURRENCY }, worker));
  const readMs = performance.now() - t;

  // The big file's object first, as an upload does: its row never names missing bytes.
  t = performance.now();
  const big = newRow(MEDIA_USER, null, BIG_FILE);
  const objects = new S3ObjectStore({
    endpoint: engines.s3.endpoint,
    region: engines.s3.region,
    accessKeyId: engines.s3.accessKeyId,
    secretAccessKey: engines.s3.secretAccessKey,
    forcePathStyle: true,
    bucket: CLUSTER_BUCKET,
  });
  try {
    const stored = await objects.put(objectKey(big.id), createReadStream(b.ds.bigFilePath), { contentType: big.contentType });
    if (stored.size !== statSync(b.ds.bigFilePath).size) throw new Error(`the big file's object holds ${stored.size} bytes`);
    big.size = stored.size;
    big.etag = stored.etag;
  } finally {
    objects.close();
  }
  const objectMs = performance.now() - t;

  t = performance.now();
  const client = new pg.Client({ connectionString: engines.databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    const insert = async (table: string, rows: { key: string; data: unknown }[]) => {
      for (let i = 0; i < rows.length; i += ROW_BATCH) {
        await client.query(
          `INSERT INTO "${table}" (key, data) SELECT r.key, r.data FROM jsonb_to_recordset($1::jsonb) AS r(key text, data jsonb)`,
          [JSON.stringify(rows.slice(i, i + ROW_BATCH))],
        );
      }
    };
    const builtIn = new Set((await client.query<{ key: string }>('SELECT key FROM roles')).rows.map((r) => r.key));
    await insert(
      'roles',
      db.roles.filter((r) => !builtIn.has(r.name)).map((r) => ({ key: r.name, data: r })),
    );
    await insert(
      'users',
      db.users.map((u) => ({ key: u.username, data: u })),
    );
    await insert(
      'folders',
      folders.map((f) => ({ key: f.id, data: f })),
    );
    await insert(
      'files',
      [...files.map(({ row }) => row), big].map((row) => ({ key: row.id, data: row })),
    );
    await client.query('COMMIT');
    // Fresh statistics, as a database that has lived a while would have them.
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
  const rowsMs = performance.now() - t;
  return {
    files: files.length,
    folders: folders.length,
    users: db.users.length,
    readMs,
    rowsMs,
    objectMs,
    bigObjectKey: objectKey(big.id),
  };
}
