/**
 * The daemon's own inotify watch (daemon/storage/live/inotify.ts) over a real directory: what
 * it reports, what it follows and what it never follows. The watcher above it is tested with
 * it in tree-watcher*.test.ts and watcher*.test.ts.
 */
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inotifyWatch } from '../../../daemon/storage/live/inotify.js';
import type { WatchEvent, WatchSubscription } from '../../../daemon/storage/live/subscription.js';

let dir = '';
let outside = '';
const subs: WatchSubscription[] = [];
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-inotify-'));
  outside = await mkdtemp(path.join(os.tmpdir(), 'nimbus-inotify-outside-'));
});
afterEach(async () => {
  for (const sub of subs.splice(0)) await sub.unsubscribe();
  await rm(dir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

async function watch(root: string): Promise<{ events: WatchEvent[]; seen: () => string[] }> {
  const factory = inotifyWatch();
  expect(factory).not.toBeNull();
  const events: WatchEvent[] = [];
  subs.push(
    await factory!(root, (err, batch) => {
      if (err) throw err;
      events.push(...batch);
    }),
  );
  return { events, seen: () => events.map((e) => `${e.type} ${path.relative(root, e.path)}`) };
}

describe('the inotify watch', () => {
  it('reports files at every depth and follows a directory made after it began', async () => {
    await mkdir(path.join(dir, 'ana', 'a', 'b'), { recursive: true });
    const w = await watch(dir);
    await writeFile(path.join(dir, 'ana', 'a', 'b', 'deep.txt'), 'd');
    await expect.poll(w.seen, { timeout: 3000 }).toContain('create ana/a/b/deep.txt');
    await writeFile(path.join(dir, 'ana', 'a', 'b', 'deep.txt'), 'dd');
    await expect.poll(w.seen, { timeout: 3000 }).toContain('update ana/a/b/deep.txt');
    await mkdir(path.join(dir, 'ana', 'new'));
    await expect.poll(w.seen, { timeout: 3000 }).toContain('create ana/new');
    await writeFile(path.join(dir, 'ana', 'new', 'later.txt'), 'l');
    await expect.poll(w.seen, { timeout: 3000 }).toContain('create ana/new/later.txt');
    await rm(path.join(dir, 'ana', 'new'), { recursive: true });
    await expect.poll(w.seen, { timeout: 3000 }).toEqual(expect.arrayContaining(['delete ana/new/later.txt', 'delete ana/new']));
  });

  it('reads less often after a quiet second, and still reports the next change at its next read', async () => {
    await mkdir(path.join(dir, 'ana'));
    const w = await watch(dir);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await writeFile(path.join(dir, 'ana', 'after-quiet.txt'), 'q');
    await expect.poll(w.seen, { timeout: 3000 }).toContain('create ana/after-quiet.txt');
  });

  it('never follows a link: a directory behind one is not watched, at the top or below', async () => {
    await mkdir(path.join(dir, 'ana'));
    await mkdir(path.join(outside, 'sub'));
    await symlink(outside, path.join(dir, 'ana', 'link'));
    const w = await watch(dir);
    // A link made after the watch began, and one swapped in for a directory just made.
    await symlink(path.join(outside, 'sub'), path.join(dir, 'ana', 'later-link'));
    await mkdir(path.join(dir, 'ana', 'swapped'));
    await rm(path.join(dir, 'ana', 'swapped'), { recursive: true });
    await symlink(outside, path.join(dir, 'ana', 'swapped'));
    await writeFile(path.join(dir, 'ana', 'marker.txt'), 'm');
    await expect.poll(w.seen, { timeout: 3000 }).toContain('create ana/marker.txt');
    await writeFile(path.join(outside, 'secret.txt'), 's');
    await writeFile(path.join(outside, 'sub', 'secret.txt'), 's');
    await writeFile(path.join(dir, 'ana', 'marker2.txt'), 'm');
    await expect.poll(w.seen, { timeout: 3000 }).toContain('create ana/marker2.txt');
    expect(w.seen().filter((e) => e.includes('secret'))).toEqual([]);
  });

  it('reports a directory moved within the tree, and the root itself moved away', async () => {
    await mkdir(path.join(dir, 'root', 'ana', 'old'), { recursive: true });
    const root = path.join(dir, 'root');
    const w = await watch(root);
    await rename(path.join(root, 'ana', 'old'), path.join(root, 'ana', 'renamed'));
    await expect.poll(w.seen, { timeout: 3000 }).toEqual(expect.arrayContaining(['delete ana/old', 'create ana/renamed']));
    await writeFile(path.join(root, 'ana', 'renamed', 'in.txt'), 'i');
    await expect.poll(w.seen, { timeout: 3000 }).toContain('create ana/renamed/in.txt');
    await rename(root, path.join(dir, 'gone'));
    await expect.poll(w.seen, { timeout: 3000 }).toContain('delete ');
  });

  it('shares one descriptor between subscriptions, each told of its own tree, and stops telling once unsubscribed', async () => {
    await mkdir(path.join(dir, 'ana', 'tree'), { recursive: true });
    const whole = await watch(dir);
    const tree = await watch(path.join(dir, 'ana', 'tree'));
    await writeFile(path.join(dir, 'ana', 'tree', 'x.txt'), 'x');
    await expect.poll(tree.seen, { timeout: 3000 }).toContain('create x.txt');
    await expect.poll(whole.seen, { timeout: 3000 }).toContain('create ana/tree/x.txt');
    await subs.pop()!.unsubscribe();
    const before = tree.events.length;
    await writeFile(path.join(dir, 'ana', 'tree', 'y.txt'), 'y');
    // The other subscription still watches the same directory.
    await expect.poll(whole.seen, { timeout: 3000 }).toContain('create ana/tree/y.txt');
    expect(tree.events.length).toBe(before);
  });
});
