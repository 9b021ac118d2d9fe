/**
 * The shares by path and the count of shared files per folder (daemon/store/share-paths.ts):
 * a listing asks the folder once and skips every file's lookup when it holds no share link,
 * so the count must follow every put, replace, move and delete.
 */
import { describe, expect, it } from 'vitest';
import type { StoredShare } from '../../daemon/store/schema.js';
import { SharePaths, sharePathKey } from '../../daemon/store/share-paths.js';

const share = (token: string, folder: string | null, file: string, username = 'ana'): StoredShare => ({
  token,
  username,
  folder,
  file,
  createdAt: '2026-01-01T00:00:00.000Z',
});
const put = (paths: SharePaths, s: StoredShare) => paths.set(sharePathKey(s.username, s.folder, s.file), s);
const remove = (paths: SharePaths, s: StoredShare) => paths.delete(sharePathKey(s.username, s.folder, s.file));

describe('SharePaths', () => {
  it('says a folder holds shares while any file directly in it is shared, per user, the root included', () => {
    const paths = new SharePaths();
    const a = share('t1', 'a/b', 'one.txt');
    const b = share('t2', 'a/b', 'two.txt');
    put(paths, a);
    put(paths, b);
    put(paths, share('t3', null, 'root.txt'));
    expect(paths.anyIn('ana', 'a/b')).toBe(true);
    expect(paths.anyIn('ana', 'a')).toBe(false);
    expect(paths.anyIn('bo', 'a/b')).toBe(false);
    expect(paths.anyIn('ana', null)).toBe(true);
    remove(paths, a);
    expect(paths.anyIn('ana', 'a/b')).toBe(true);
    remove(paths, b);
    expect(paths.anyIn('ana', 'a/b')).toBe(false);
    expect(remove(paths, b)).toBe(false);
    expect(paths.anyIn('ana', null)).toBe(true);
    paths.clear();
    expect(paths.anyIn('ana', null)).toBe(false);
  });

  it('counts a replaced record once, and follows a share moved to another folder', () => {
    const paths = new SharePaths();
    const first = share('t1', 'x', 'f.txt');
    put(paths, first);
    put(paths, { ...first, createdAt: '2026-02-02T00:00:00.000Z' });
    remove(paths, first);
    expect(paths.anyIn('ana', 'x')).toBe(false);
    const moved = share('t2', 'x', 'g.txt');
    put(paths, moved);
    remove(paths, moved);
    put(paths, { ...moved, folder: 'y' });
    expect([paths.anyIn('ana', 'x'), paths.anyIn('ana', 'y')]).toEqual([false, true]);
  });
});
