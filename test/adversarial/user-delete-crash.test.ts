/**
 * A `user.delete` killed at each of its steps (failpoints armed with CRASH in a child daemon)
 * never leaves the old files under the user's name (issue 22, item 3): after a restart, the
 * name registers as an empty account, or the user is still there with every file (a delete
 * that never committed), never a new account holding the old files.
 */
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { armFailpoint, disarmFailpoint } from '../../daemon/util/failpoints.js';
import type { FailpointName } from '../../daemon/util/failpoints.js';
import { call, show } from '../helpers/accounts.js';
import { childEnv, spawnDaemon, type CliRun } from '../helpers/child.js';
import { startTestDaemon, TEST_KEY, type TestDaemon } from '../helpers/daemon.js';
import { onDisk } from '../helpers/backend.js';
import { clusterEnv } from '../helpers/engines.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** A child daemon on `dataDir` with open registration (and the failpoints given), as the API sees it. */
async function daemonOn(
  dataDir: string,
  failpoints = '',
  env: Record<string, string> = {},
): Promise<CliRun & { url: string; port: number }> {
  const run = await spawnDaemon(
    dataDir,
    childEnv({ ...env, NIMBUS_API_KEY: TEST_KEY, NIMBUS_KEYCHAIN: 'off', NIMBUS_REGISTRATION: 'open', NIMBUS_FAILPOINTS: failpoints }),
  );
  return { ...run, port: Number(new URL(run.url).port) };
}

const admin = (d: { url: string; port: number }, route: string, body: Record<string, string>) => call(d, route, { key: TEST_KEY, body });

onDisk(() => {
  describe('a user.delete killed part-way', () => {
    for (const point of ['user.delete.entombed', 'user.delete.committed'] as FailpointName[]) {
      it(`at ${point}: after a restart the name never comes with the old files`, async () => {
        const dataDir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-delete-crash-'));
        dirs.push(dataDir);
        const first = await daemonOn(dataDir, `${point}=CRASH`);
        expect((await admin(first, '/api/user/create', { username: 'victim', email: 'v@example.com', password: 'password1' })).status).toBe(
          201,
        );
        for (const file of ['a.txt', 'b.txt']) {
          const up = await call(first, '/api/files/upload', {
            key: TEST_KEY,
            method: 'POST',
            query: { username: 'victim', file },
            body: 'old',
          });
          expect(up.status, show(up)).toBe(201);
        }
        // The daemon dies inside the delete: the request gets no answer.
        await admin(first, '/api/user/delete', { username: 'victim' }).catch(() => null);
        expect(await first.exited).toBe('SIGKILL');

        const second = await daemonOn(dataDir);
        try {
          const user = await call(second, '/api/user', { key: TEST_KEY, query: { username: 'victim' } });
          // Before its commit the delete is undone; after it, it is finished.
          expect(user.status, show(user)).toBe(point === 'user.delete.entombed' ? 200 : 404);
          if (user.status === 200) {
            // The delete never committed: the user keeps every file.
            const files = await call(second, '/api/files', { key: TEST_KEY, query: { username: 'victim' } });
            expect(files.body.files.map((f: { name: string }) => f.name).sort()).toEqual(['a.txt', 'b.txt']);
            expect((await admin(second, '/api/user/delete', { username: 'victim' })).status).toBe(200);
          }
          const res = await call(second, '/api/auth/register', {
            body: { username: 'victim', email: 'new@example.com', password: 'Brand-new-pw-4471' },
          });
          expect(res.status, show(res)).toBe(201);
          const files = await call(second, '/api/files', { key: TEST_KEY, query: { username: 'victim' } });
          expect(files.body.files, 'the new account is empty').toEqual([]);
          expect(await readdir(path.join(dataDir, 'storage', 'victim'))).toEqual([]);
          // Nothing of the old user is left behind in storage either (once the start-up's clean-up is done).
          await vi.waitFor(async () => {
            const leftovers = (await readdir(path.join(dataDir, 'storage'))).filter((n) => n !== 'victim' && n !== '.nimbus-storage');
            expect(leftovers).toEqual([]);
          });
        } finally {
          second.child.kill('SIGTERM');
          await second.exited;
        }
      }, 60_000);
    }
  });

  describe('a deleted user’s tombstone in storage', () => {
    it('is neither a user nor an orphan, for the watcher and a rescan alike', async () => {
      const t = await startTestDaemon();
      try {
        await vi.waitFor(async () => expect((await t.api('GET', '/api/dash')).body.index.state).toBe('ready'));
        await mkdir(path.join(t.storageDir, '.nimbus-deleted-0123456789abcdef-bob', 'docs'), { recursive: true });
        await mkdir(path.join(t.storageDir, 'stray'));
        // The plain directory made at the same time shows the watcher has seen both.
        await vi.waitFor(async () => expect((await t.api('GET', '/api/dash')).body.orphans).toContain('stray'));
        expect((await t.api('GET', '/api/dash')).body.orphans).toEqual(['stray']);
        expect((await t.api('POST', '/api/dash/rescan')).status).toBe(200);
        expect((await t.api('GET', '/api/dash')).body.orphans).toEqual(['stray']);
      } finally {
        await t.close();
      }
    });
  });

  describe('a user.delete whose commit fails (EIO at the store write)', () => {
    let t: TestDaemon;
    beforeAll(async () => {
      t = await startTestDaemon();
    });
    afterEach(() => disarmFailpoint('store.write'));
    afterAll(() => t.close());

    it('answers 500, and the user keeps their record and every file, under their name', async () => {
      expect((await t.api('POST', '/api/user/create', { username: 'kept', email: 'k@example.com', password: 'password1' })).status).toBe(
        201,
      );
      expect((await t.api('POST', '/api/files/upload', { username: 'kept', file: 'one.txt' }, { body: 'still here' })).status).toBe(201);
      armFailpoint('store.write', 'EIO');
      expect((await t.api('POST', '/api/user/delete', { username: 'kept' })).status).toBe(500);
      disarmFailpoint('store.write');
      expect((await t.api('GET', '/api/user', { username: 'kept' })).status).toBe(200);
      expect(await readdir(path.join(t.storageDir, 'kept'))).toEqual(['one.txt']);
      expect((await readdir(t.storageDir)).filter((n) => n.startsWith('.nimbus-deleted'))).toEqual([]);
      await vi.waitFor(async () => {
        const files = await t.api('GET', '/api/files', { username: 'kept' });
        expect(files.body.files.map((f: { name: string }) => f.name)).toEqual(['one.txt']);
      });
      const down = await t.api('GET', '/api/files/download', { username: 'kept', file: 'one.txt' });
      expect(down.text).toBe('still here');
    });
  });
});

describe('a user.delete killed after its commit, in object mode (db.json + S3)', () => {
  it('leaves no rows under the name: registering it again starts empty', async () => {
    const env = await clusterEnv({ s3: true });
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-delete-crash-s3-'));
    dirs.push(dataDir);
    const first = await daemonOn(dataDir, 'user.delete.committed=CRASH', env);
    expect((await admin(first, '/api/user/create', { username: 'victim', email: 'v@example.com', password: 'password1' })).status).toBe(
      201,
    );
    expect((await admin(first, '/api/folders/create', { username: 'victim', folder: 'docs' })).status).toBe(201);
    const up = await call(first, '/api/files/upload', {
      key: TEST_KEY,
      method: 'POST',
      query: { username: 'victim', file: 'a.txt' },
      body: 'old',
    });
    expect(up.status, show(up)).toBe(201);
    await admin(first, '/api/user/delete', { username: 'victim' }).catch(() => null);
    expect(await first.exited).toBe('SIGKILL');

    const second = await daemonOn(dataDir, '', env);
    try {
      expect((await call(second, '/api/user', { key: TEST_KEY, query: { username: 'victim' } })).status).toBe(404);
      const res = await call(second, '/api/auth/register', {
        body: { username: 'victim', email: 'new@example.com', password: 'Brand-new-pw-4471' },
      });
      expect(res.status, show(res)).toBe(201);
      expect((await call(second, '/api/files', { key: TEST_KEY, query: { username: 'victim' } })).body.files).toEqual([]);
      expect((await call(second, '/api/folders', { key: TEST_KEY, query: { username: 'victim' } })).body.folders).toEqual([]);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  }, 120_000);
});
