/** Subscriptions of their own for trees moved in whole, sharing @parcel/watcher's inotify instance with the main one. */
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nativeWatch } from '../../../daemon/storage/live/native-watch.js';
import type { WatchEvent, WatchFactory } from '../../../daemon/storage/live/subscription.js';
import { MAX_SUBTREE_WATCHES, SubtreeWatches } from '../../../daemon/storage/live/subtree-watches.js';

describe('SubtreeWatches', () => {
  let dir = '';
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('watches a moved-in tree at every depth, once, and ending it keeps the main watch of its top directory', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-subtree-'));
    const storage = path.join(dir, 'storage');
    await mkdir(path.join(storage, 'ana'), { recursive: true });
    await mkdir(path.join(dir, 'elsewhere', 'trip', 'day1', 'photos'), { recursive: true });
    const seen: string[] = [];
    const onEvents = (err: Error | null, batch: WatchEvent[]) => {
      if (!err) seen.push(...batch.map((e) => e.path));
    };
    const roots: string[] = [];
    const counting: WatchFactory = (root, on) => {
      roots.push(root);
      return nativeWatch(root, on);
    };
    const main = await nativeWatch(storage, onEvents);
    const subtrees = new SubtreeWatches(counting);
    try {
      const trip = path.join(storage, 'ana', 'trip');
      await rename(path.join(dir, 'elsewhere', 'trip'), trip);
      await expect.poll(() => seen, { timeout: 5000 }).toContain(trip);

      expect(await subtrees.follow(trip, Date.now(), onEvents)).toBe(true);
      // The levels below, listed next, were there when its walk began: already watched.
      expect(await subtrees.follow(path.join(trip, 'day1'), 0, onEvents)).toBe(true);
      expect(roots).toEqual([trip]);
      await writeFile(path.join(trip, 'day1', 'photos', 'a.jpg'), 'a');
      await expect.poll(() => seen, { timeout: 5000 }).toContain(path.join(trip, 'day1', 'photos', 'a.jpg'));

      await subtrees.clear();
      await writeFile(path.join(trip, 'b.txt'), 'b');
      await expect.poll(() => seen, { timeout: 5000 }).toContain(path.join(trip, 'b.txt'));
    } finally {
      await subtrees.clear();
      await main.unsubscribe();
    }
  });

  it('follows a new tree moved in where a followed one was removed: the old subscription ended, the new tree walked', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-subtree-'));
    const storage = path.join(dir, 'storage');
    await mkdir(storage);
    const seen: string[] = [];
    const onEvents = (err: Error | null, batch: WatchEvent[]) => {
      if (!err) seen.push(...batch.map((e) => e.path));
    };
    const main = await nativeWatch(storage, onEvents);
    const subtrees = new SubtreeWatches(nativeWatch);
    const trip = path.join(storage, 'trip');
    try {
      await mkdir(path.join(dir, 'elsewhere', 'trip', 'old'), { recursive: true });
      await rename(path.join(dir, 'elsewhere', 'trip'), trip);
      expect(await subtrees.follow(trip, Date.now(), onEvents)).toBe(true);
      await rm(trip, { recursive: true });
      await mkdir(path.join(dir, 'elsewhere', 'trip', 'new', 'deeper'), { recursive: true });
      await rename(path.join(dir, 'elsewhere', 'trip'), trip);
      await expect.poll(() => seen.filter((p) => p === trip).length, { timeout: 5000 }).toBeGreaterThan(1);

      expect(await subtrees.follow(trip, Date.now(), onEvents)).toBe(true);
      await writeFile(path.join(trip, 'new', 'deeper', 'c.txt'), 'c');
      await expect.poll(() => seen, { timeout: 5000 }).toContain(path.join(trip, 'new', 'deeper', 'c.txt'));
    } finally {
      await subtrees.clear();
      await main.unsubscribe();
    }
  });

  it('refuses a tree past the cap, and follows again once cleared', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-subtree-'));
    const roots: string[] = [];
    const counting: WatchFactory = async (root) => {
      roots.push(root);
      return { unsubscribe: async () => undefined };
    };
    const subtrees = new SubtreeWatches(counting);
    for (let i = 0; i < MAX_SUBTREE_WATCHES; i++)
      expect(await subtrees.follow(path.join(dir, `t${i}`), Date.now(), () => undefined)).toBe(true);
    expect(await subtrees.follow(path.join(dir, 'one-more'), Date.now(), () => undefined)).toBe(false);
    expect(roots).toHaveLength(MAX_SUBTREE_WATCHES);
    await subtrees.clear();
    expect(await subtrees.follow(path.join(dir, 'one-more'), Date.now(), () => undefined)).toBe(true);
    expect(roots.at(-1)).toBe(path.join(dir, 'one-more'));
  });
});
