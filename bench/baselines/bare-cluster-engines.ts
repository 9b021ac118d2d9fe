/**
 * The engines' side of bench/baselines/bare-cluster-files.ts, from its environment: one pg Pool
 * and one S3 client as a daemon has them (10 connections as store/postgres/database.ts, the
 * daemon's createS3Client), the one-statement write with its NOTIFY, and the tables and bucket.
 */
import { CreateBucketCommand, DeleteObjectsCommand } from '@aws-sdk/client-s3';
import pg from 'pg';
import { createS3Client } from '../../daemon/storage/objects/s3-client.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`bare-cluster-files.ts: ${name} is not set`);
  return value;
};
export const apiKey = env('BARE_API_KEY');
export const bucket = env('BARE_S3_BUCKET');
export const pool = new pg.Pool({ connectionString: env('BARE_DATABASE_URL'), max: 10, connectionTimeoutMillis: 5000 });
export const s3 = createS3Client({
  endpoint: env('BARE_S3_ENDPOINT'),
  region: env('BARE_S3_REGION'),
  accessKeyId: env('BARE_S3_ACCESS_KEY_ID'),
  secretAccessKey: env('BARE_S3_SECRET_ACCESS_KEY'),
  forcePathStyle: true,
});
const CHANNEL = 'bare_changes';
/** DeleteObjects takes at most 1000 keys. */
const DELETE_BATCH = 1000;

/** Runs `statement` (a write named `w`) and its pg_notify as one statement, as a daemon's one-statement commit does; rows written. */
export async function writeAndNotify(statement: string, values: unknown[], notice: object): Promise<number> {
  const n = values.length;
  const { rows } = await pool.query<{ written: number }>(
    `WITH w AS (${statement} RETURNING 1), n AS (SELECT pg_notify($${n + 1}, $${n + 2})) SELECT (SELECT count(*) FROM w)::int AS written FROM n`,
    [...values, CHANNEL, JSON.stringify(notice)],
  );
  return rows[0].written;
}

/** Deletes objects, DELETE_BATCH keys a call. */
export async function deleteObjects(keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += DELETE_BATCH) {
    const Objects = keys.slice(i, i + DELETE_BATCH).map((Key) => ({ Key }));
    await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects, Quiet: true } }));
  }
}

/**
 * The tables a daemon's migration would make for these rows (the record under its key, the
 * columns a lookup needs generated from it, unique name indexes as files_name and folders_name)
 * and the bucket.
 */
export async function prepareEngines(): Promise<void> {
  await pool.query(`
    CREATE TABLE IF NOT EXISTS bare_files (key text PRIMARY KEY, data jsonb NOT NULL,
      username text GENERATED ALWAYS AS (data->>'username') STORED, folder text GENERATED ALWAYS AS (data->>'folder') STORED,
      name text GENERATED ALWAYS AS (data->>'name') STORED);
    CREATE UNIQUE INDEX IF NOT EXISTS bare_files_name ON bare_files (username, folder, name);
    CREATE TABLE IF NOT EXISTS bare_folders (key text PRIMARY KEY, data jsonb NOT NULL,
      username text GENERATED ALWAYS AS (data->>'username') STORED, name text GENERATED ALWAYS AS (data->>'name') STORED);
    CREATE UNIQUE INDEX IF NOT EXISTS bare_folders_name ON bare_folders (username, name);`);
  try {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (err) {
    if ((err as Error).name !== 'BucketAlreadyOwnedByYou' && (err as Error).name !== 'BucketAlreadyExists') throw err;
  }
}
