/**
 * Issue 25, the index at depth: a tree copied into the storage folder is indexed whole
 * (listed, searchable, counted against the quota); what lies past the limits (64 levels,
 * 4,096 bytes of folder path) is not indexed but counted in /api/dash.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

let t: TestDaemon;

/**
 * Writes `files` (path below the user's directory → content) straight onto the disk, as another
 * program would; each level through the one before (/proc/self/fd), since a whole path may pass PATH_MAX.
 */
function copyIn(username: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    const names = rel.split('/');
    let fd = openSync(`${t.storageDir}/${username}`, 'r');
    for (const name of names.slice(0, -1)) {
      const at = `/proc/self/fd/${fd}/${name}`;
      if (!existsSync(at)) mkdirSync(at);
      const next = openSync(at, 'r');
      closeSync(fd);
      fd = next;
    }
    writeFileSync(`/proc/self/fd/${fd}/${names[names.length - 1]}`, content);
    closeSync(fd);
  }
}

const usedBytes = async (username: string) => (await t.api('GET', '/api/user', { username })).body.usage.usedBytes as number;
const namesIn = async (username: string, folder: string) =>
  (await t.api('GET', '/api/folders/files', { username, folder })).body.files?.map(
    (f: { name: string; folder: string }) => `${f.folder}:${f.name}`,
  );

beforeAll(async () => {
  t = await startTestDaemon();
  await createUser(t, 'ana');
  await createUser(t, 'bob');
});
afterAll(async () => {
  // rm(1) walks a tree deeper than PATH_MAX (fs.rm does not).
  execFileSync('rm', ['-rf', `${t.storageDir}/bob`]);
  await t.close();
});

describe('a tree copied in', () => {
  it('is indexed whole after a rescan: listed at every depth and counted in usage', async () => {
    copyIn('ana', {
      'top.txt': '1',
      'photos/a.jpg': '22',
      'photos/2024/b.jpg': '333',
      'photos/2024/june/c.jpg': '4444',
      'photos/2024/june/beach/d.jpg': '55555',
    });
    expect((await t.api('POST', '/api/dash/rescan')).status).toBe(200);
    await vi.waitFor(async () => expect(await usedBytes('ana')).toBe(15));
    expect(await namesIn('ana', 'photos/2024/june')).toEqual(['photos/2024/june:c.jpg']);
    expect(await namesIn('ana', 'photos/2024/june/beach')).toEqual(['photos/2024/june/beach:d.jpg']);
    const down = await t.api('GET', '/api/files/download', { username: 'ana', folder: 'photos/2024/june/beach', file: 'd.jpg' });
    expect(down.text).toBe('55555');
  });

  it('is searchable at every depth, each hit carrying its folder path', async () => {
    const res = await t.api('GET', '/api/files/search', { username: 'ana', q: '.jpg' });
    expect(res.status, res.text).toBe(200);
    const hits = res.body.files.map((f: { name: string; folder: string | null }) => `${f.folder}:${f.name}`).sort();
    expect(hits).toEqual(['photos/2024/june/beach:d.jpg', 'photos/2024/june:c.jpg', 'photos/2024:b.jpg', 'photos:a.jpg']);
  });

  it('past 64 levels or 4,096 bytes of path is not indexed but counted in /api/dash', async () => {
    const deep = Array.from({ length: 64 }, (_, i) => `l${i}`).join('/');
    const long = Array.from({ length: 16 }, () => 'n'.repeat(250)).join('/');
    copyIn('bob', {
      [`${deep}/in.txt`]: 'a',
      [`${deep}/too-deep/x.txt`]: 'bb',
      [`${deep}/too-deep/y.txt`]: 'cc',
      [`${long}/ok.txt`]: 'd',
      [`${long}/${'m'.repeat(100)}/z.txt`]: 'ee',
    });
    expect((await t.api('POST', '/api/dash/rescan')).status).toBe(200);
    await vi.waitFor(async () => expect(await usedBytes('bob')).toBe(2));
    expect(await namesIn('bob', deep)).toEqual([`${deep}:in.txt`]);
    expect(await namesIn('bob', long)).toEqual([`${long}:ok.txt`]);
    const dash = await t.api('GET', '/api/dash');
    // too-deep, x.txt, y.txt; the 100-byte folder and z.txt.
    expect(dash.body.unaddressable).toBe(5);
  });
});
