/**
 * Self-registration never hands anyone files that are already in storage (issue 22, item 3):
 * a directory under the name (an orphan: a restored backup, a sync tool, a delete cut short)
 * makes registering that name a 409 `name_unavailable` that changes nothing. The admin's
 * `user.create` still adopts such a directory (README, "Accounts").
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listTree, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { call, codeOf, sessionCookie, show } from '../helpers/accounts.js';
import { onDisk } from '../helpers/backend.js';

const register = (t: TestDaemon, username: string, from?: string) =>
  call(t, '/api/auth/register', { body: { username, email: `${username}@example.com`, password: `Reg-${username}-pw-7712` }, from });

describe('registering the name of a deleted user', () => {
  it('starts an empty account: none of the old files, folders or trash', async () => {
    const t = await startTestDaemon({ env: { NIMBUS_REGISTRATION: 'open' } });
    try {
      expect((await t.api('POST', '/api/user/create', { username: 'gone', email: 'g@example.com', password: 'password1' })).status).toBe(
        201,
      );
      expect((await t.api('POST', '/api/folders/create', { username: 'gone', folder: 'docs' })).status).toBe(201);
      for (const file of ['kept.txt', 'trashed.txt'])
        expect((await t.api('POST', '/api/files/upload', { username: 'gone', file }, { body: 'old' })).status).toBe(201);
      expect((await t.api('POST', '/api/files/delete', { username: 'gone', file: 'trashed.txt' })).status).toBe(200);
      expect((await t.api('POST', '/api/user/delete', { username: 'gone' })).status).toBe(200);
      const res = await register(t, 'gone');
      expect(res.status, show(res)).toBe(201);
      expect((await t.api('GET', '/api/files', { username: 'gone' })).body.files).toEqual([]);
      expect((await t.api('GET', '/api/folders', { username: 'gone' })).body.folders).toEqual([]);
      expect((await t.api('GET', '/api/trash', { username: 'gone' })).body.items).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

onDisk(() => {
  describe('registering a name whose directory is already in storage', () => {
    let t: TestDaemon;
    beforeAll(async () => {
      t = await startTestDaemon({ env: { NIMBUS_REGISTRATION: 'open' } });
    });
    afterAll(() => t.close());

    it('answers 409 name_unavailable, creates no user and leaves the files as they were', async () => {
      const dir = path.join(t.storageDir, 'mallory');
      await mkdir(path.join(dir, 'docs'), { recursive: true });
      await writeFile(path.join(dir, 'secret.txt'), 'not yours');
      await writeFile(path.join(dir, 'docs', 'plan.txt'), 'nor this');
      const before = await listTree(t.storageDir);
      const res = await register(t, 'mallory');
      expect(res.status, show(res)).toBe(409);
      expect(codeOf(res)).toBe('name_unavailable');
      expect(res.body.error).not.toMatch(/director|storage|file/i);
      expect(sessionCookie(res)).toBeNull();
      expect((await t.api('GET', '/api/user', { username: 'mallory' })).status).toBe(404);
      expect(await listTree(t.storageDir)).toEqual(before);
      expect(await readFile(path.join(dir, 'secret.txt'), 'utf8')).toBe('not yours');
    });

    it('refuses an empty directory, a file and a directory differing only in case the same way', async () => {
      await mkdir(path.join(t.storageDir, 'emptyone'));
      await writeFile(path.join(t.storageDir, 'afile'), 'x');
      await mkdir(path.join(t.storageDir, 'CaseTwin'));
      for (const name of ['emptyone', 'afile', 'casetwin']) {
        const res = await register(t, name);
        expect(res.status, `${name}: ${show(res)}`).toBe(409);
        expect(codeOf(res)).toBe('name_unavailable');
        expect((await t.api('GET', '/api/user', { username: name })).status).toBe(404);
      }
    });

    it('still registers a name with nothing in storage, into an empty directory', async () => {
      const res = await register(t, 'newcomer');
      expect(res.status, show(res)).toBe(201);
      expect(await listTree(path.join(t.storageDir, 'newcomer'))).toEqual([]);
    });

    it('an admin creating that name adopts the directory (a restored backup)', async () => {
      const dir = path.join(t.storageDir, 'restored');
      await mkdir(dir);
      await writeFile(path.join(dir, 'kept.txt'), 'from the backup');
      const res = await t.api('POST', '/api/user/create', { username: 'restored', email: 'r@example.com', password: 'password1' });
      expect(res.status, res.text).toBe(201);
      const files = await t.api('GET', '/api/files', { username: 'restored' });
      expect(files.body.files.map((f: { name: string }) => f.name)).toEqual(['kept.txt']);
    });
  });
});
