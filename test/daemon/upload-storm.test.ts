/**
 * A storm of uploads must not take down what needs no bucket (issue 23, the soak's last
 * defect): with the bucket unreachable, clients retrying failing uploads hundreds of times a
 * second made some listings, renames and even /api/health answer 503 `database_unavailable`.
 * Each failing upload reserved quota first (a transaction holding the user's advisory lock
 * and a pooled connection); with every pooled connection waiting, the next commit waited 5 s
 * for one, and that wait's timeout was taken for a lost database, which makes the whole store
 * unavailable until a resync.
 *
 * Here the test's own connection holds the user's quota lock, as another daemon's long
 * reservation would, so a reservation waits as long as the test says: each upload that
 * reserves holds a pooled connection until the lock is let go. The daemon reaches the shared
 * Swift through a TCP proxy the test cuts (the shared Swift keeps serving other test files).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/cluster.js';
import { createUser, startTestDaemon, upload, type ApiResponse, type TestDaemon } from '../helpers/daemon.js';
import { sharedS3 } from '../helpers/engines.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const KIB = 1024;
/** The daemon's pool holds ten connections (daemon/store/postgres/database.ts): more uploads than that. */
const MORE_THAN_THE_POOL = 14;

let t: TestDaemon;
let proxy: TcpProxy;

beforeAll(async () => {
  const s3 = await sharedS3();
  const endpoint = new URL(s3.endpoint);
  proxy = await startTcpProxy({ host: endpoint.hostname, port: Number(endpoint.port) });
  endpoint.port = String(proxy.port);
  t = await startTestDaemon({ backend: 'cluster', env: { NIMBUS_S3_ENDPOINT: endpoint.origin } });
  await createUser(t, 'ana');
  await createUser(t, 'bo');
  await upload(t, 'ana', 'kept.txt', 'kept bytes');
  await upload(t, 'bo', 'first.txt', 'bo bytes');
}, 120_000);

afterAll(async () => {
  await t?.close();
  await proxy?.close();
});

/** A connection of the test's own holding `username`'s quota lock (services/pg-quota.ts) until released. */
async function holdQuotaLock(username: string): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: t.env.NIMBUS_DATABASE_URL });
  await client.connect();
  await client.query('SELECT pg_advisory_lock(hashtext($1))', [username]);
  return { release: () => client.end() };
}

/** How many sessions wait for an advisory lock now. */
async function waitingForQuotaLocks(): Promise<number> {
  const client = new pg.Client({ connectionString: t.env.NIMBUS_DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`);
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

const uploadAs = (username: string, file: string) =>
  t.api('POST', '/api/files/upload', { username, file }, { body: new Uint8Array(10 * KIB), signal: AbortSignal.timeout(20_000) });
const names = async (username: string) => {
  const res = await t.api('GET', '/api/files', { username });
  expect(res.status, res.text).toBe(200);
  return (res.body.files as { name: string }[]).map((f) => f.name);
};

function expectRetryLater(res: ApiResponse, code: string): void {
  expect(res.status, res.text).toBe(503);
  expect(res.body.code).toBe(code);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
}

describe('a storm of uploads while the bucket is unreachable', () => {
  it('refuses each before it reserves quota, while listings, renames and health keep answering', async () => {
    proxy.cut();
    let lock: { release(): Promise<void> } | undefined;
    try {
      // The daemon learns that the bucket is gone from the first upload it failed.
      expectRetryLater(await uploadAs('ana', 'first.bin'), 'storage_unavailable');
      lock = await holdQuotaLock('ana');
      // Each would wait on ana's quota lock, holding a pooled connection, had it reserved first.
      const storm = Array.from({ length: 4 * MORE_THAN_THE_POOL }, (_, i) => uploadAs('ana', `storm-${i}.bin`));
      const renamed = await t.api('POST', '/api/files/rename', { username: 'bo', file: 'first.txt', newname: 'second.txt' });
      expect(renamed.status, renamed.text).toBe(201);
      expect(await names('bo')).toEqual(['second.txt']);
      const health = await t.api('GET', '/api/health', {}, { key: null });
      expect(health.status, health.text).toBe(200);
      expect(health.body.status).toBe('degraded');
      for (const res of await Promise.all(storm)) expectRetryLater(res, 'storage_unavailable');
      expect(await names('ana')).toEqual(['kept.txt']);
    } finally {
      await lock?.release();
      proxy.mend();
    }
    // Back: the first upload finds the bucket again.
    await upload(t, 'ana', 'after.txt', 'after bytes');
  }, 60_000);
});

describe('a pool whose every connection waits on a quota lock', () => {
  it('answers a request that waited too long for a connection 503 with Retry-After, and keeps the store available', async () => {
    const lock = await holdQuotaLock('ana');
    let uploads: Promise<ApiResponse>[] = [];
    try {
      uploads = Array.from({ length: MORE_THAN_THE_POOL }, (_, i) => uploadAs('ana', `wait-${i}.bin`));
      await eventually('every pooled connection waits on the lock', async () => (await waitingForQuotaLocks()) >= 10);
      // A commit needs a pooled connection too: this one waits until the pool gives up on it.
      const renamed = await t.api('POST', '/api/files/rename', { username: 'bo', file: 'second.txt', newname: 'third.txt' });
      expectRetryLater(renamed, 'database_unavailable');
      // One busy request, not a lost database: the store stays available.
      expect(await names('bo')).toEqual(['second.txt']);
    } finally {
      await lock.release();
    }
    for (const res of await Promise.all(uploads)) {
      if (res.status !== 201) expectRetryLater(res, 'database_unavailable');
    }
    const renamed = await t.api('POST', '/api/files/rename', { username: 'bo', file: 'second.txt', newname: 'third.txt' });
    expect(renamed.status, renamed.text).toBe(201);
    expect(await names('bo')).toEqual(['third.txt']);
  }, 60_000);
});
