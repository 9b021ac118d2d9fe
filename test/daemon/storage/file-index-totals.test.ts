/** The index's totals (files, folders, bytes) are kept between calls and stay exact through every kind of change. */
import { describe, expect, it } from 'vitest';
import { FileIndex } from '../../../daemon/storage/file-index.js';

const tree = (files: [string, number][], folders: Record<string, [string, number][]> = {}) => {
  const meta = (list: [string, number][]) => new Map(list.map(([name, size]) => [name, { size, mtimeMs: 1 }]));
  const folderNodes = new Map(
    Object.entries(folders).map(([name, list]) => [
      name,
      { files: meta(list), mtimeMs: 1, sizeBytes: list.reduce((s, [, b]) => s + b, 0) },
    ]),
  );
  const root = meta(files);
  const usedBytes = files.reduce((s, [, b]) => s + b, 0) + [...folderNodes.values()].reduce((s, f) => s + f.sizeBytes, 0);
  return { root, folders: folderNodes, usedBytes };
};

describe('FileIndex.totals', () => {
  it('answers the same as a fresh count after each change', () => {
    const index = new FileIndex();
    expect(index.totals()).toEqual({ files: 0, folders: 0, usedBytes: 0 });
    index.replaceUser('ana', tree([['a', 3]], { F: [['b', 5]] }));
    expect(index.totals()).toEqual({ files: 2, folders: 1, usedBytes: 8 });
    index.setFile('ana', 'F', 'c', { size: 10, mtimeMs: 2 });
    expect(index.totals()).toEqual({ files: 3, folders: 1, usedBytes: 18 });
    index.setFile('ana', null, 'a', { size: 4, mtimeMs: 2 });
    expect(index.totals()).toEqual({ files: 3, folders: 1, usedBytes: 19 });
    index.addFolder('bob', 'G', 1);
    expect(index.totals()).toEqual({ files: 3, folders: 2, usedBytes: 19 });
    index.removeFile('ana', 'F', 'b');
    expect(index.totals()).toEqual({ files: 2, folders: 2, usedBytes: 14 });
    index.removeFolder('ana', 'F');
    expect(index.totals()).toEqual({ files: 1, folders: 1, usedBytes: 4 });
    index.replaceUser('bob', tree([['x', 7]]));
    expect(index.totals()).toEqual({ files: 2, folders: 0, usedBytes: 11 });
    index.removeUser('ana');
    expect(index.totals()).toEqual({ files: 1, folders: 0, usedBytes: 7 });
    index.forgetUser('bob');
    expect(index.totals()).toEqual({ files: 0, folders: 0, usedBytes: 0 });
  });

  it('gives each caller its own object', () => {
    const index = new FileIndex();
    index.replaceUser('ana', tree([['a', 3]]));
    const first = index.totals();
    first.files = 99;
    expect(index.totals().files).toBe(1);
  });
});
