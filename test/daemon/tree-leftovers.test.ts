/**
 * Issue 25, what a crash leaves in the storage folder: the hidden directory of a folder copy
 * (`.nimbus-copy-<hex>`), the staging file of a replacing move (`.nimbus-<hex>`) and the staged
 * entry of a move across disks (`.nimbus-staged-<hex>`), at any depth of a user's tree, are
 * removed at the next start, before the user's requests are answered: never by a runtime
 * rescan, never through a link planted in their place, never another reserved name. The
 * user's usage does not change (they were never counted) and one log line says how much went.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, show } from '../helpers/accounts.js';
import { onDisk } from '../helpers/backend.js';
import { childEnv, spawnDaemon } from '../helpers/child.js';
import { createUser, startTestDaemon, TEST_KEY, upload, type TestDaemon } from '../helpers/daemon.js';

const WAIT = { timeout: 20_000, interval: 50 };
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

onDisk(() => {
  describe('leftovers of interrupted copies and moves', () => {
    let t: TestDaemon;
    let outside: string;
    const disk = (...rest: string[]) => path.join(t.storageDir, 'ana', ...rest);
    const usedBytes = async () => (await t.api('GET', '/api/user', { username: 'ana' })).body.usage.usedBytes as number;

    // What a crash could have left (removed at the next start), with the bytes of each.
    const copyAtRoot = `.nimbus-copy-${hex(12)}`;
    const copyDeep = `a/b/c/.nimbus-copy-${hex(12)}`;
    const replacing = `a/.nimbus-${hex(6)}`;
    const stagedFile = `a/b/.nimbus-staged-${hex(12)}`;
    const stagedDir = `a/b/c/.nimbus-staged-${hex(12)}`;
    const linked = `a/b/.nimbus-copy-${hex(12)}`;
    const beyondLink = `.nimbus-copy-${hex(12)}`;
    const planted: Record<string, number> = {
      [`${copyAtRoot}/x.bin`]: 1000,
      [`${copyAtRoot}/sub/y.bin`]: 500,
      [`${copyDeep}/z.bin`]: 300,
      [replacing]: 200,
      [stagedFile]: 100,
      [`${stagedDir}/w.bin`]: 50,
    };
    // Reserved names that are no staging name: never removed.
    const kept = ['a/.nimbus-storage', 'a/b/.nimbusx/keep.bin', '.nimbus-copy-notes/keep.bin', 'a/.nimbus-deleted-0123456789abcdef-ana'];

    beforeAll(async () => {
      t = await startTestDaemon();
      await createUser(t, 'ana');
      expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'a/b/c', parents: 'true' })).status).toBe(201);
      await upload(t, 'ana', 'top.txt', 'top');
      await upload(t, 'ana', 'deep.txt', 'deep file', { folder: 'a/b/c' });
      outside = await mkdtemp(path.join(os.tmpdir(), 'nimbus-outside-'));
      await writeFile(path.join(outside, 'precious.bin'), 'not Nimbus’s');
      // A staging name beyond a link planted as a folder: never reached.
      await mkdir(path.join(outside, 'far', beyondLink), { recursive: true });
      await writeFile(path.join(outside, 'far', beyondLink, 'keep.bin'), 'not Nimbus’s either');
    });
    afterAll(async () => {
      await t.close();
      await rm(outside, { recursive: true, force: true });
    });

    it('refuses a staging name through the API', async () => {
      const folder = await t.api('POST', '/api/folders/create', { username: 'ana', folder: `a/.nimbus-copy-${hex(12)}` });
      expect(folder.status).toBe(400);
      const file = await t.api('POST', '/api/files/upload', { username: 'ana', file: `.nimbus-${hex(6)}` }, { body: 'x' });
      expect(file.status).toBe(400);
    });

    it('leaves them alone in a runtime rescan', async () => {
      for (const [rel, size] of Object.entries(planted)) {
        await mkdir(path.dirname(disk(rel)), { recursive: true });
        await writeFile(disk(rel), Buffer.alloc(size, 7));
      }
      for (const rel of kept) {
        await mkdir(path.dirname(disk(rel)), { recursive: true });
        await writeFile(disk(rel), 'kept');
      }
      await symlink(outside, disk(linked));
      await symlink(path.join(outside, 'far'), disk('a/far'));
      const before = await usedBytes();
      expect((await t.api('POST', '/api/dash/rescan')).status).toBe(200);
      for (const rel of Object.keys(planted)) expect(existsSync(disk(rel)), rel).toBe(true);
      expect(existsSync(disk(linked))).toBe(true);
      expect(await usedBytes()).toBe(before);
    });

    it('removes them at the next start: usage unchanged, real files, other reserved names and a link’s target untouched', async () => {
      const before = await usedBytes();
      expect(before).toBe('top'.length + 'deep file'.length);
      await t.stop();
      await t.restart();
      expect(await usedBytes()).toBe(before);
      for (const rel of [copyAtRoot, copyDeep, replacing, stagedFile, stagedDir, linked]) expect(existsSync(disk(rel)), rel).toBe(false);
      for (const rel of kept) expect(await readFile(disk(rel), 'utf8'), rel).toBe('kept');
      expect((await readdir(outside)).sort()).toEqual(['far', 'precious.bin']);
      expect(await readFile(path.join(outside, 'far', beyondLink, 'keep.bin'), 'utf8')).toBe('not Nimbus’s either');
      expect(await readFile(path.join(outside, 'precious.bin'), 'utf8')).toBe('not Nimbus’s');
      const deep = await t.api('GET', '/api/files/download', { username: 'ana', folder: 'a/b/c', file: 'deep.txt' });
      expect(deep.text).toBe('deep file');
      const listed = await t.api('GET', '/api/folders/files', { username: 'ana', folder: 'a/b/c' });
      expect(listed.body.files.map((f: { name: string }) => f.name)).toEqual(['deep.txt']);
      // Said once the whole first scan is done.
      await vi.waitFor(
        () =>
          expect(t.logs.filter((line) => /leftover/i.test(line))).toEqual([expect.stringMatching(/removed 6 leftovers .*\(2,150 bytes\)/)]),
        WAIT,
      );
    });
  });

  describe('a folder copy killed mid-way', () => {
    const dirs: string[] = [];
    afterAll(async () => {
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    });

    it('leaves a hidden directory that the next start removes, the usage as before the copy', async () => {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-copy-crash-'));
      dirs.push(dataDir);
      const start = (failpoints = '') =>
        spawnDaemon(dataDir, childEnv({ NIMBUS_API_KEY: TEST_KEY, NIMBUS_KEYCHAIN: 'off', NIMBUS_FAILPOINTS: failpoints }));
      const first = await start('folder.copy.filled=CRASH');
      const admin = (d: typeof first, route: string, query: Record<string, string>, body?: string) =>
        call({ url: d.url, port: Number(new URL(d.url).port) }, route, { key: TEST_KEY, method: 'POST', query, body });
      expect((await admin(first, '/api/user/create', { username: 'ana', email: 'a@example.com', password: 'password123' })).status).toBe(
        201,
      );
      expect((await admin(first, '/api/folders/create', { username: 'ana', folder: 'src/deep/er', parents: 'true' })).status).toBe(201);
      expect((await admin(first, '/api/folders/create', { username: 'ana', folder: 'to' })).status).toBe(201);
      for (const [folder, file] of [
        ['src', 'a.bin'],
        ['src/deep', 'b.bin'],
        ['src/deep/er', 'c.bin'],
      ]) {
        const up = await admin(first, '/api/files/upload', { username: 'ana', folder, file }, 'x'.repeat(4096));
        expect(up.status, show(up)).toBe(201);
      }
      // The daemon dies with the copy written under its hidden name: the request gets no answer.
      await admin(first, '/api/folders/copy', { username: 'ana', folder: 'src', to: 'to' }).catch(() => null);
      expect(await first.exited).toBe('SIGKILL');
      const hidden = (await readdir(path.join(dataDir, 'storage', 'ana', 'to'))).filter((name) => name.startsWith('.nimbus-copy-'));
      expect(hidden).toHaveLength(1);

      const second = await start();
      try {
        const d = { url: second.url, port: Number(new URL(second.url).port) };
        await vi.waitFor(async () => {
          const user = await call(d, '/api/user', { key: TEST_KEY, query: { username: 'ana' } });
          expect(user.body.usage?.usedBytes, show(user)).toBe(3 * 4096);
        }, WAIT);
        expect(await readdir(path.join(dataDir, 'storage', 'ana', 'to'))).toEqual([]);
        await vi.waitFor(() => expect(second.stdout() + second.stderr()).toMatch(/removed 1 leftover .*\(12,288 bytes\)/), WAIT);
      } finally {
        second.child.kill('SIGTERM');
        await second.exited;
      }
    });
  });
});
