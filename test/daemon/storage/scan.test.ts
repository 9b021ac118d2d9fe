/** Reading a user's directory (the first scan, reconciles) and the pool that reads users a few at a time. */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eachInPool } from '../../../daemon/storage/reconcile.js';
import { scanUserDir, statInto } from '../../../daemon/storage/scan.js';

let root = '';
let storageDir = '';
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'nimbus-scan-'));
  storageDir = path.join(root, 'storage');
  await mkdir(path.join(storageDir, 'ana', 'F'), { recursive: true });
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe('scanUserDir', () => {
  it('reads root files and folders with their sizes, skipping links, names the API cannot address and what is neither', async () => {
    await writeFile(path.join(storageDir, 'ana', 'a.txt'), 'abc');
    await writeFile(path.join(storageDir, 'ana', 'F', 'b.txt'), 'hello');
    await writeFile(path.join(root, 'outside.txt'), 'secret');
    await mkdir(path.join(root, 'outsideDir'));
    await writeFile(path.join(root, 'outsideDir', 'c.txt'), 'secret');
    await symlink(path.join(root, 'outside.txt'), path.join(storageDir, 'ana', 'link.txt'));
    await symlink(path.join(root, 'outside.txt'), path.join(storageDir, 'ana', 'F', 'link.txt'));
    await symlink(path.join(root, 'outsideDir'), path.join(storageDir, 'ana', 'LinkedFolder'));
    await writeFile(path.join(storageDir, 'ana', 'F', 'bad\u0001name'), 'x');
    await mkdir(path.join(storageDir, 'ana', 'F', 'nested'));

    const node = await scanUserDir(storageDir, 'ana');
    expect([...node.root.keys()]).toEqual(['a.txt']);
    expect([...node.folders.keys()]).toEqual(['F']);
    expect([...node.folders.get('F')!.files.keys()]).toEqual(['b.txt']);
    expect(node.folders.get('F')!.sizeBytes).toBe(5);
    expect(node.usedBytes).toBe(8);
  });

  it('reads nothing through a user directory that is a link, or that is missing', async () => {
    await mkdir(path.join(root, 'elsewhere', 'G'), { recursive: true });
    await writeFile(path.join(root, 'elsewhere', 'x.txt'), 'x');
    await symlink(path.join(root, 'elsewhere'), path.join(storageDir, 'bob'));
    for (const user of ['bob', 'nobody']) {
      const node = await scanUserDir(storageDir, user);
      expect(node.root.size + node.folders.size).toBe(0);
    }
  });

  it('reads a folder of many files whole across its slices, leaving out a name already gone', async () => {
    const names = Array.from({ length: 600 }, (_, i) => `f${i}.bin`);
    for (const name of names) await writeFile(path.join(storageDir, 'ana', 'F', name), name);
    const into = new Map();
    await statInto(path.join(storageDir, 'ana', 'F'), [...names, 'gone.bin'], into);
    expect(into.size).toBe(600);
    expect(into.get('f12.bin')).toMatchObject({ size: 'f12.bin'.length });
  });
});

describe('eachInPool', () => {
  it('calls every item, never more than the pool size at once', async () => {
    let inFlight = 0;
    let most = 0;
    const seen: number[] = [];
    await eachInPool(
      Array.from({ length: 50 }, (_, i) => i),
      4,
      async (i) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((r) => setTimeout(r, 1));
        seen.push(i);
        inFlight--;
      },
    );
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(most).toBe(4);
  });

  it('stops taking items after a failure and rejects only once the calls in flight have ended', async () => {
    let inFlight = 0;
    let started = 0;
    const failing = eachInPool(
      Array.from({ length: 100 }, (_, i) => i),
      4,
      async (i) => {
        started++;
        inFlight++;
        await new Promise((r) => setTimeout(r, i === 2 ? 1 : 5));
        inFlight--;
        if (i === 2) throw new Error('disk gone');
      },
    );
    await expect(failing).rejects.toThrow('disk gone');
    expect(inFlight).toBe(0);
    expect(started).toBeLessThan(100);
  });

  it('does nothing for no items', async () => {
    await eachInPool([], 8, () => Promise.reject(new Error('called')));
  });
});
