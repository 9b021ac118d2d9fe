/** Applying settled changes and confirmed removals to the file index. */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileIndex } from '../../../daemon/storage/file-index.js';
import {
  applyChange,
  applyRemovals,
  indexHolds,
  knownNames,
  lookFresh,
  touchedLocation,
  type IndexTarget,
} from '../../../daemon/storage/live/apply-changes.js';

const file = (size: number) => ({ isFile: () => true, isDirectory: () => false, size, mtimeMs: 1 }) as Stats;
const dir = { isFile: () => false, isDirectory: () => true, mtimeMs: 1 } as Stats;
const link = { isFile: () => false, isDirectory: () => false } as Stats;

function target(): IndexTarget {
  return { index: new FileIndex(), store: { users: new Map([['ana', {}]]) }, orphans: new Set() };
}

describe('applyChange', () => {
  it('sets a file at a user root or in a folder', () => {
    const t = target();
    expect(applyChange(t, { username: 'ana', folder: null, name: 'a.txt' }, file(3))).toBeNull();
    expect(t.index.getFile('ana', null, 'a.txt')?.size).toBe(3);
  });

  it('adds a folder and asks for it to be listed, whatever the event said', () => {
    const t = target();
    expect(applyChange(t, { username: 'ana', folder: null, name: 'Photos' }, dir)).toEqual({ list: { username: 'ana', folder: 'Photos' } });
    expect(t.index.user('ana')?.folders.has('Photos')).toBe(true);
  });

  it('takes the echo of the daemon’s own folder move as nothing to list: the same directory at the path the move expected', () => {
    const t = target();
    const moved = { ...dir, dev: 7, ino: 42 } as Stats;
    t.index.moveEchoes.expect('ana', 'Photos', { dev: 7, ino: 42 });
    expect(applyChange(t, { username: 'ana', folder: null, name: 'Photos' }, moved)).toBeNull();
    expect(t.index.user('ana')?.folders.has('Photos')).toBe(true);
    // Taken once: the next event there is listed again, and so is another directory put in its place.
    expect(applyChange(t, { username: 'ana', folder: null, name: 'Photos' }, moved)).toEqual({
      list: { username: 'ana', folder: 'Photos' },
    });
    t.index.moveEchoes.expect('ana', 'Docs', { dev: 7, ino: 43 });
    const other = { ...dir, dev: 7, ino: 44 } as Stats;
    expect(applyChange(t, { username: 'ana', folder: null, name: 'Docs' }, other)).toEqual({ list: { username: 'ana', folder: 'Docs' } });
  });

  it('knows a file the index holds with the same size and modification time, and no other', () => {
    const t = target();
    const at = { username: 'ana', folder: null, name: 'a.txt' };
    expect(indexHolds(t.index, at, file(3))).toBe(false);
    applyChange(t, at, file(3));
    expect(indexHolds(t.index, at, file(3))).toBe(true);
    expect(indexHolds(t.index, at, file(4))).toBe(false);
    expect(indexHolds(t.index, at, { ...file(3), mtimeMs: 2 } as Stats)).toBe(false);
    expect(indexHolds(t.index, { ...at, folder: 'x' }, file(3))).toBe(false);
    expect(indexHolds(t.index, { username: null, folder: null, name: 'ana' }, file(3))).toBe(false);
  });

  it('returns removals instead of applying them: a file, a folder, a user directory swapped for a link', () => {
    const t = target();
    t.index.setFile('ana', null, 'a.txt', { size: 1, mtimeMs: 1 });
    t.index.addFolder('ana', 'Photos', 1);
    expect(applyChange(t, { username: 'ana', folder: null, name: 'a.txt' }, null)).toEqual({
      remove: { username: 'ana', folder: null, file: 'a.txt' },
    });
    expect(applyChange(t, { username: 'ana', folder: null, name: 'Photos' }, link)).toEqual({
      remove: { username: 'ana', folder: 'Photos', file: null },
    });
    expect(applyChange(t, { username: null, folder: null, name: 'ana' }, link)).toEqual({
      remove: { username: 'ana', folder: null, file: null },
    });
    expect(t.index.getFile('ana', null, 'a.txt')).toBeDefined();
  });

  it('ignores unknown users and names the API cannot address; notes orphans', () => {
    const t = target();
    expect(applyChange(t, { username: 'bo', folder: null, name: 'a.txt' }, file(1))).toBeNull();
    expect(applyChange(t, { username: 'ana', folder: null, name: 'bad\u0001' }, file(1))).toBeNull();
    // Since issue 25 a directory below a folder is a folder too (test/daemon/tree-watcher.test.ts).
    expect(applyChange(t, { username: 'ana', folder: 'Photos', name: 'deeper' }, dir)).toEqual({
      list: { username: 'ana', folder: 'Photos/deeper' },
    });
    expect(applyChange(t, { username: null, folder: null, name: 'stray' }, dir)).toBeNull();
    expect(t.orphans.has('stray')).toBe(true);
    expect(applyChange(t, { username: null, folder: null, name: 'stray' }, null)).toEqual({ remove: null });
    expect(t.orphans.has('stray')).toBe(false);
    expect(t.index.user('bo')).toBeUndefined();
  });

  it('lists a user directory that appears', () => {
    const t = target();
    expect(applyChange(t, { username: null, folder: null, name: 'ana' }, dir)).toEqual({ list: { username: 'ana', folder: null } });
  });
});

describe('applyRemovals', () => {
  it('removes what the disk confirms gone, keeps what is back or was changed by the API meanwhile', () => {
    const t = target();
    for (const name of ['gone.txt', 'back.txt', 'touched.txt']) t.index.setFile('ana', null, name, { size: 1, mtimeMs: 1 });
    t.index.addFolder('ana', 'F', 1);
    const r = (file: string | null, folder: string | null = null) => ({ username: 'ana', folder, file });
    applyRemovals(t, [r('gone.txt'), r('back.txt'), r('touched.txt'), r(null, 'F')], [null, file(1), undefined, link]);
    expect([...t.index.files('ana', null)!.keys()].sort()).toEqual(['back.txt', 'touched.txt']);
    expect(t.index.user('ana')?.folders.has('F')).toBe(false);
  });

  it('empties a user whose directory is gone', () => {
    const t = target();
    t.index.setFile('ana', null, 'a.txt', { size: 1, mtimeMs: 1 });
    applyRemovals(t, [{ username: 'ana', folder: null, file: null }], [null]);
    expect(t.index.user('ana')?.root.size).toBe(0);
  });
});

describe('knownNames', () => {
  it('lists the files and folders the index holds for a directory', () => {
    const t = target();
    t.index.setFile('ana', null, 'a.txt', { size: 1, mtimeMs: 1 });
    t.index.setFile('ana', 'F', 'b.txt', { size: 1, mtimeMs: 1 });
    expect(knownNames(t.index, { username: 'ana', folder: null }).sort()).toEqual(['F', 'a.txt']);
    expect(knownNames(t.index, { username: 'ana', folder: 'F' })).toEqual(['b.txt']);
    expect(knownNames(t.index, { username: null, folder: null })).toEqual([]);
  });
});

describe('lookFresh', () => {
  let root = '';
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('never reads through a link, and reads a name the API changed meanwhile as undefined', async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'nimbus-look-'));
    const outside = await mkdtemp(path.join(os.tmpdir(), 'nimbus-outside-'));
    await writeFile(path.join(outside, 'a.txt'), 'victim');
    await symlink(outside, path.join(root, 'ana'));
    await mkdir(path.join(root, 'bo'));
    await writeFile(path.join(root, 'bo', 'b.txt'), 'b');
    const index = new FileIndex();
    const at = (username: string, name: string) => ({ username, folder: null, name });
    const looks = await lookFresh(
      root,
      index,
      [
        [path.join(root, 'ana', 'a.txt'), at('ana', 'a.txt')],
        [path.join(root, 'bo', 'b.txt'), at('bo', 'b.txt')],
      ],
      touchedLocation,
    );
    expect(looks[0]).toBeNull();
    expect(looks[1]?.isFile()).toBe(true);
    index.setFile('bo', null, 'b.txt', { size: 1, mtimeMs: 1 });
    const reading = lookFresh(root, index, [[path.join(root, 'bo', 'b.txt'), at('bo', 'b.txt')]], touchedLocation);
    index.removeFile('bo', null, 'b.txt'); // the API, while the disk is read
    expect(await reading).toEqual([undefined]);
    await rm(outside, { recursive: true, force: true });
  });
});
