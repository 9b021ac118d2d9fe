/**
 * What a test daemon has stored, read the same way on every backend (issue 14, docs/cluster.md):
 * the metadata in db.json's shape and the bytes as a sorted listing. Embedded daemons keep them
 * in db.json and the storage folder; PostgreSQL daemons in one table per collection (`key`,
 * `data jsonb`: daemon/store/postgres/migrations/001-records.ts); object daemons in a bucket.
 * Tests compare two reads to prove a refused call changed nothing, whatever the backend.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import pg from 'pg';
import { createS3Client } from '../../daemon/storage/objects/s3-client.js';
import { COLLECTIONS, recordKey, type CollectionName } from '../../daemon/store/collections.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests inspect records loosely
export type Records = Record<CollectionName, any[]>;

/** Every collection's records (db.json's shape), ordered by key (a stable order, so two reads compare equal). */
export async function readDatabase(databaseUrl: string): Promise<Records> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const db = {} as Records;
    for (const name of COLLECTIONS) {
      const { rows } = await client.query<{ data: unknown }>(`SELECT data FROM "${name}" ORDER BY key COLLATE "C"`);
      db[name] = rows.map((row) => row.data);
    }
    return db;
  } finally {
    await client.end();
  }
}

/**
 * Replaces every table's rows with these records, each under the key the store gives it, as a
 * test editing db.json while the daemon is stopped does (dropped records go, new ones come).
 */
export async function writeDatabase(databaseUrl: string, db: Records): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    for (const name of COLLECTIONS) {
      const records = db[name] ?? [];
      await client.query(`DELETE FROM "${name}"`);
      for (const record of records) {
        await client.query(`INSERT INTO "${name}" (key, data) VALUES ($1, $2::jsonb)`, [recordKey(name, record), JSON.stringify(record)]);
      }
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    await client.end();
  }
}

/** Every object in a bucket as `name size`, sorted: the object store's picture of the bytes. */
export async function listBucket(env: Record<string, string>): Promise<string[]> {
  const client = createS3Client({
    endpoint: env.NIMBUS_S3_ENDPOINT!,
    region: env.NIMBUS_S3_REGION!,
    accessKeyId: env.NIMBUS_S3_ACCESS_KEY_ID!,
    secretAccessKey: env.NIMBUS_S3_SECRET_ACCESS_KEY!,
  });
  try {
    const out: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: env.NIMBUS_S3_BUCKET!, ContinuationToken: token }));
      for (const object of page.Contents ?? []) out.push(`${object.Key} ${object.Size}`);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out.sort();
  } finally {
    client.destroy();
  }
}
