/**
 * The walk of the inotify watch (walkSliced in storage/sliced-dir.ts): every directory once,
 * depth first in the order read, each entered before it is read; a directory refused leaves
 * out what is below it; one gone meanwhile has nothing below it; the event loop gets turns.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { walkSliced } from '../../../daemon/storage/sliced-dir.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'nimbus-walk-'));
  for (const dir of ['a/a1/a11', 'a/a2', 'b', 'c/c1']) await mkdir(path.join(root, dir), { recursive: true });
  await writeFile(path.join(root, 'a', 'file.txt'), 'x');
});
afterEach(() => rm(root, { recursive: true, force: true }));

const rel = (dirs: string[]) => dirs.map((d) => path.relative(root, d) || '.');

describe('walkSliced', () => {
  it('enters every directory once, depth first, each before what is below it; files are not entered', async () => {
    const entered: string[] = [];
    await walkSliced(root, (dir) => (entered.push(dir), true));
    const order = rel(entered);
    expect([...order].sort()).toEqual(['.', 'a', 'a/a1', 'a/a1/a11', 'a/a2', 'b', 'c', 'c/c1']);
    for (const dir of order.filter((d) => d !== '.'))
      expect(order.indexOf(path.dirname(dir) === '.' ? '.' : path.dirname(dir))).toBeLessThan(order.indexOf(dir));
    // Depth first: a's subtree comes whole before the next directory of the root, whatever order readdir gave.
    const aAt = order.indexOf('a');
    expect(order.slice(aAt, aAt + 4).sort()).toEqual(['a', 'a/a1', 'a/a1/a11', 'a/a2']);
  });

  it('leaves out what is below a directory refused, and what is below one removed once entered', async () => {
    const entered: string[] = [];
    await walkSliced(root, (dir) => {
      entered.push(dir);
      if (dir === path.join(root, 'c')) rmSync(dir, { recursive: true });
      return dir !== path.join(root, 'a');
    });
    expect(rel(entered).sort()).toEqual(['.', 'a', 'b', 'c']);
  });

  it('lets the event loop through during a long walk', async () => {
    for (let i = 0; i < 3000; i++) await mkdir(path.join(root, 'b', `d${i}`));
    let turns = 0;
    const timer = setInterval(() => turns++, 0);
    try {
      await walkSliced(root, () => {
        const until = performance.now() + 0.01;
        while (performance.now() < until); // ~10 µs a directory: ~30 ms in all
        return true;
      });
    } finally {
      clearInterval(timer);
    }
    expect(turns).toBeGreaterThan(0);
  });
});
