/**
 * A quota reservation outlives no database outage (issue 23): an upload whose commit failed
 * with 503 because PostgreSQL was down could not delete its reservation row then; once the
 * database is back the daemon deletes it, so the user's quota is whole again at once, not
 * after the reservation's 5-minute expiry. A private PostgreSQL (startPostgres()), so
 * stopping it touches no other test.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/cluster.js';
import { createUser, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startPostgres, type PrivatePostgres } from '../helpers/engines.js';
import { slowUpload } from '../helpers/slow-upload.js';

const KIB = 1024;
let postgres: PrivatePostgres;
let databaseUrl: string;
let t: TestDaemon;

beforeAll(async () => {
  postgres = await startPostgres();
  databaseUrl = await postgres.createDatabase();
  t = await startTestDaemon({ backend: 'cluster', env: { NIMBUS_DATABASE_URL: databaseUrl } });
  // A quota of 1 MiB: a 700 KiB reservation still held refuses the next 700 KiB upload.
  await t.api('POST', '/api/role/create', { name: 'small', maxStorage: '1', badge: 'https://example.com/s.png' });
  await createUser(t, 'ana');
  await t.api('POST', '/api/user/role', { username: 'ana', name: 'small' });
}, 120_000);

afterAll(async () => {
  await t?.close();
  await postgres?.close();
});

/** The reservation rows the database holds now. */
async function reservations(): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM reservations')).rows[0].n);
  } finally {
    await client.end();
  }
}

describe('an upload that failed with 503 while the database was down', () => {
  it('releases its quota reservation once the database is back', async () => {
    const size = 700 * KIB;
    const up = slowUpload(t.port, t.key, { username: 'ana', file: 'during.bin' }, size);
    await up.write(Buffer.alloc(100 * KIB, 1));
    await eventually('the upload holds its reservation', async () => (await reservations()) === 1);
    await postgres.stop();
    try {
      up.end(Buffer.alloc(size - 100 * KIB, 2));
      const res = await up.response;
      expect(res.status, res.text).toBe(503);
    } finally {
      await postgres.restart();
    }
    await eventually('the daemon is healthy again', async () => (await fetch(`${t.url}/api/health`)).status === 200, 60_000);
    await eventually('the reservation is gone', async () => (await reservations()) === 0);
    const again = await t.api('POST', '/api/files/upload', { username: 'ana', file: 'after.bin' }, { body: new Uint8Array(size) });
    expect(again.status, again.text).toBe(201);
  }, 120_000);
});
