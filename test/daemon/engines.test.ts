/** The test engines answer: the shared PostgreSQL and Swift, a private PostgreSQL that stops and restarts, clusterEnv. */
import { DeleteObjectsCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createS3Client } from '../../daemon/storage/objects/s3-client.js';
import { clusterEnv, sharedPostgres, sharedS3, startPostgres } from '../helpers/engines.js';

async function selectOne(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ one: number }>('SELECT 1 AS one');
    return rows[0].one;
  } finally {
    await client.end();
  }
}

describe('test engines', () => {
  it('the shared PostgreSQL answers, and each database it creates is new and empty', async () => {
    const engine = await sharedPostgres();
    expect(await selectOne(engine.url)).toBe(1);
    const [a, b] = await Promise.all([engine.createDatabase(), engine.createDatabase()]);
    expect(a).not.toBe(b);
    expect(await selectOne(a)).toBe(1);
    expect(await selectOne(b)).toBe(1);
  });

  it('the shared Swift stores and returns an object, and deletes in a batch', async () => {
    const engine = await sharedS3();
    const bucket = await engine.createBucket();
    const client = createS3Client({ ...engine, forcePathStyle: true });
    try {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: 'hello.txt', Body: 'hello swift' }));
      const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: 'hello.txt' }));
      expect(await got.Body?.transformToString()).toBe('hello swift');
      const deleted = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: [{ Key: 'hello.txt' }] } }));
      expect(deleted.Errors ?? []).toEqual([]);
    } finally {
      client.destroy();
    }
  });

  it('a private PostgreSQL stops (connections fail), restarts on the same port with its data, and closes', async () => {
    const server = await startPostgres();
    try {
      const database = await server.createDatabase();
      const client = new pg.Client({ connectionString: database });
      await client.connect();
      await client.query('CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)');
      await client.end();
      await server.stop();
      await expect(selectOne(database)).rejects.toThrow();
      await server.restart();
      const again = new pg.Client({ connectionString: database });
      await again.connect();
      expect((await again.query('SELECT v FROM kept')).rows).toEqual([{ v: 42 }]);
      await again.end();
    } finally {
      await server.close();
    }
  });

  it('clusterEnv gives a daemon a fresh database and bucket', async () => {
    const env = await clusterEnv({ database: true, s3: true });
    expect(Object.keys(env).sort()).toEqual([
      'NIMBUS_DATABASE_URL',
      'NIMBUS_S3_ACCESS_KEY_ID',
      'NIMBUS_S3_BUCKET',
      'NIMBUS_S3_ENDPOINT',
      'NIMBUS_S3_REGION',
      'NIMBUS_S3_SECRET_ACCESS_KEY',
    ]);
    expect(await selectOne(env.NIMBUS_DATABASE_URL)).toBe(1);
    expect(await clusterEnv({ database: true })).toEqual({ NIMBUS_DATABASE_URL: expect.stringMatching(/^postgres:/) });
  });
});
