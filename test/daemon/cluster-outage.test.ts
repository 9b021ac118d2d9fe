/**
 * The database goes away and comes back under two cluster daemons (issue 14,
 * docs/cluster.md, "The store"): while PostgreSQL is stopped every API call answers 503
 * `database_unavailable` and /api/health 503 naming `database`; once it is started again
 * health is 200 and calls work, without restarting a daemon. Then one daemon alone cut off
 * (its connections go through a proxy the test cuts): it answers 503 while the other keeps
 * serving, and what the other changed meanwhile shows on it once it is back (its resync).
 * A private PostgreSQL (startPostgres()) so that stopping it touches no other test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/cluster.js';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { clusterEnv, startPostgres, type PrivatePostgres } from '../helpers/engines.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const health = async (t: TestDaemon) => {
  const res = await fetch(`${t.url}/api/health`);
  return { status: res.status, body: (await res.json()) as { status: string; checks?: Record<string, string> } };
};

describe('cluster daemons through a database outage', () => {
  let postgres: PrivatePostgres;
  let proxy: TcpProxy;
  let a: TestDaemon;
  let b: TestDaemon;

  beforeAll(async () => {
    postgres = await startPostgres();
    const databaseUrl = await postgres.createDatabase();
    const bucketEnv = await clusterEnv({ s3: true });
    // A reaches the database through a proxy (to be cut off alone); B directly.
    const direct = new URL(databaseUrl);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
    const viaProxy = new URL(databaseUrl);
    viaProxy.port = String(proxy.port);
    a = await startTestDaemon({ env: { ...bucketEnv, NIMBUS_DATABASE_URL: viaProxy.toString() }, backend: 'embedded' });
    b = await startTestDaemon({ env: { ...bucketEnv, NIMBUS_DATABASE_URL: databaseUrl }, backend: 'embedded' });
    await createUser(a, 'ana');
    await upload(a, 'ana', 'kept.txt', 'kept bytes');
  }, 120_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await proxy?.close();
    await postgres?.close();
  });

  it('answers 503 database_unavailable while PostgreSQL is stopped, and works again once it is back, without a restart', async () => {
    expect((await health(a)).status).toBe(200);
    await postgres.stop();
    try {
      for (const t of [a, b]) {
        // The daemon notices when its LISTEN connection drops or a query fails: soon, not at once.
        const res = await eventually('a call answers 503', async () => {
          const got = await t.api('GET', '/api/files', { username: 'ana' });
          return got.status === 503 ? got : undefined;
        });
        expect(res.body.code).toBe('database_unavailable');
        const created = await t.api('POST', '/api/user/create', { username: 'during', email: 'd@example.com', password: 'password123' });
        expect(created.status).toBe(503);
        expect(created.body.code).toBe('database_unavailable');
        const h = await eventually('health answers 503', async () => {
          const got = await health(t);
          return got.status === 503 ? got : undefined;
        });
        expect(h.body.status).toBe('unavailable');
        expect(h.body.checks?.database).toBeTruthy();
        expect(h.body.checks?.database).not.toBe('ok');
      }
    } finally {
      await postgres.restart();
    }
    for (const t of [a, b]) {
      await eventually('health is 200 again', async () => (await health(t)).status === 200, 60_000);
      const list = await eventually('calls work again', async () => {
        const got = await t.api('GET', '/api/files', { username: 'ana' });
        return got.status === 200 ? got : undefined;
      });
      expect((list.body.files as { name: string }[]).map((f) => f.name)).toContain('kept.txt');
      const got = await t.api('GET', '/api/files/download', { username: 'ana', file: 'kept.txt' });
      expect(got.status).toBe(200);
      expect(got.text).toBe('kept bytes');
    }
    // A change through one daemon after the outage reaches the other (its LISTEN is back).
    await createUser(a, 'afterwards');
    await eventually('B knows afterwards', async () => (await b.api('GET', '/api/user', { username: 'afterwards' })).status === 200);
  }, 300_000);

  it('shows on A, once its database is back, what B changed while A was cut off', async () => {
    await eventually('A is healthy', async () => (await health(a)).status === 200, 60_000);
    proxy.cut();
    try {
      await eventually('A answers 503', async () => (await a.api('GET', '/api/files', { username: 'ana' })).status === 503);
      // B has its own connections: it goes on, and changes things A cannot hear of.
      expect((await health(b)).status).toBe(200);
      await createUser(b, 'meanwhile');
      await upload(b, 'ana', 'meanwhile.txt', 'written while A was away');
      const renamed = await b.api('POST', '/api/files/rename', { username: 'ana', file: 'kept.txt', newname: 'kept-renamed.txt' });
      expect(renamed.status, renamed.text).toBe(201);
      expect((await a.api('GET', '/api/user', { username: 'meanwhile' })).status).toBe(503);
    } finally {
      proxy.mend();
    }
    await eventually('A is healthy again', async () => (await health(a)).status === 200, 60_000);
    // Notifications sent while A was away were missed: its resync re-read everything.
    const user = await eventually('A knows meanwhile', async () => {
      const got = await a.api('GET', '/api/user', { username: 'meanwhile' });
      return got.status === 200 ? got : undefined;
    });
    expect(JSON.stringify(user.body)).toContain('meanwhile@example.com');
    const names = (await a.api('GET', '/api/files', { username: 'ana' })).body.files.map((f: { name: string }) => f.name);
    expect(names).toEqual(expect.arrayContaining(['meanwhile.txt', 'kept-renamed.txt']));
    expect(names).not.toContain('kept.txt');
    const got = await a.api('GET', '/api/files/download', { username: 'ana', file: 'meanwhile.txt' });
    expect(got.status).toBe(200);
    expect(got.text).toBe('written while A was away');
  }, 300_000);
});
