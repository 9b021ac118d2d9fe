/**
 * Issue 25, the watcher's polling fallback at depth: when the OS refuses watches, folders at
 * every depth are polled, and a folder in the middle of a path swapped for a link is never
 * read through.
 */
import { mkdir, rename, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

const WAIT = { timeout: 10_000, interval: 50 };
let t: TestDaemon;

const namesIn = async (folder: string) => {
  const res = await t.api('GET', '/api/folders/files', { username: 'ana', folder });
  return res.status === 200 ? (res.body.files as { name: string }[]).map((f) => f.name) : res.status;
};

beforeAll(async () => {
  t = await startTestDaemon({
    watchFactory: async () => {
      throw new Error('Unable to initialize inotify: Too many open files');
    },
  });
  await createUser(t, 'ana');
  await vi.waitFor(async () => expect((await t.api('GET', '/api/dash')).body.index.watcher).toBe('polling'), WAIT);
});
afterAll(() => t.close());

describe('polling', () => {
  it('finds directories and files made levels down, and later files in them', async () => {
    const home = path.join(t.storageDir, 'ana');
    await mkdir(path.join(home, 'a', 'b', 'c'), { recursive: true });
    await writeFile(path.join(home, 'a', 'b', 'c', 'one.txt'), '1');
    await vi.waitFor(async () => expect(await namesIn('a/b/c')).toEqual(['one.txt']), WAIT);
    await writeFile(path.join(home, 'a', 'b', 'c', 'two.txt'), '22');
    await vi.waitFor(async () => expect(await namesIn('a/b/c')).toEqual(['one.txt', 'two.txt']), WAIT);
  });

  it('never lists through a folder in the middle of the path swapped for a link', async () => {
    const home = path.join(t.storageDir, 'ana');
    const victim = path.join(t.dataDir, 'victim');
    await mkdir(path.join(victim, 'c'), { recursive: true });
    await writeFile(path.join(victim, 'c', 'VICTIM.txt'), 'victim');
    await rename(path.join(home, 'a', 'b'), path.join(t.dataDir, 'b-real'));
    await symlink(victim, path.join(home, 'a', 'b'));
    await vi.waitFor(async () => expect(await namesIn('a/b/c')).toBe(404), WAIT);
    await writeFile(path.join(victim, 'c', 'LATER.txt'), 'victim');
    expect((await t.api('POST', '/api/dash/rescan')).status).toBe(200);
    expect(await namesIn('a/b/c')).toBe(404);
    expect(await namesIn('a/b')).toBe(404);
    await unlink(path.join(home, 'a', 'b'));
    await rename(path.join(t.dataDir, 'b-real'), path.join(home, 'a', 'b'));
    await vi.waitFor(async () => expect(await namesIn('a/b/c')).toEqual(['one.txt', 'two.txt']), WAIT);
  });
});
