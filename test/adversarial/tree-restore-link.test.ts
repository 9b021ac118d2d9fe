/**
 * Issue 25: restoring a file trashed at depth makes its missing folders again one level at a
 * time through directories opened without following links, so a folder on the path swapped
 * for a link to a directory outside storage is refused, and nothing is made outside.
 */
import { mkdir, readdir, rename, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';

let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon({ watchFactory: async () => ({ unsubscribe: async () => undefined }) });
  await createUser(t, 'ana');
});
afterAll(() => t.close());

describe('restoring a file trashed at depth', () => {
  it('makes its missing folders again, one level at a time', async () => {
    expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'a/b', parents: 'true' })).status).toBe(201);
    expect((await upload(t, 'ana', 'x.txt', 'mine', { folder: 'a/b' })).status).toBe(201);
    const trashed = await t.api('POST', '/api/files/delete', { username: 'ana', folder: 'a/b', file: 'x.txt' });
    await rm(path.join(t.storageDir, 'ana', 'a'), { recursive: true });
    expect((await t.api('POST', '/api/dash/rescan')).status).toBe(200);
    const restored = await t.api('POST', '/api/trash/restore', { username: 'ana', id: trashed.body.trashId });
    expect(restored.status, restored.text).toBe(201);
    expect((await t.api('GET', '/api/files/download', { username: 'ana', folder: 'a/b', file: 'x.txt' })).text).toBe('mine');
  });

  it('refuses a folder on the path that is a link, and makes nothing where it points', async () => {
    const victim = path.join(t.dataDir, 'victim');
    await mkdir(victim);
    const trashed = await t.api('POST', '/api/files/delete', { username: 'ana', folder: 'a/b', file: 'x.txt' });
    expect(trashed.status, trashed.text).toBe(200);
    await rename(path.join(t.storageDir, 'ana', 'a'), path.join(t.dataDir, 'a-real'));
    await symlink(victim, path.join(t.storageDir, 'ana', 'a'));
    const restored = await t.api('POST', '/api/trash/restore', { username: 'ana', id: trashed.body.trashId });
    expect(restored.status, restored.text).toBeGreaterThanOrEqual(400);
    expect(restored.status).toBeLessThan(500);
    expect(await readdir(victim)).toEqual([]);
  });
});
