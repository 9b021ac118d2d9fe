/** The coordinator, driven through a stand-in subscription over a real storage directory. */
import { mkdir, mkdtemp, rename, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../../shared/types.js';
import { STORAGE_MARKER } from '../../../daemon/storage/availability.js';
import { QUEUE_OVERFLOW } from '../../../daemon/storage/live/inotify.js';
import { FileIndex } from '../../../daemon/storage/file-index.js';
import type { ShareRef } from '../../../daemon/storage/reconcile.js';
import { Storage } from '../../../daemon/storage/storage.js';
import { LiveStorage, type LiveTarget, type WatchEvent, type WatchFactory } from '../../../daemon/storage/watcher.js';

let root = '';
let storageDir = '';
let live: LiveStorage | null = null;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'nimbus-live-'));
  storageDir = path.join(root, 'storage');
  await mkdir(path.join(storageDir, 'ana'), { recursive: true });
  await writeFile(path.join(storageDir, STORAGE_MARKER), '');
});
afterEach(async () => {
  await live?.close();
  live = null;
  await rm(root, { recursive: true, force: true });
});

function target(): LiveTarget {
  const index = new FileIndex();
  return {
    config: { storageDir, reconcileIntervalMs: 0 },
    store: {
      users: new Map([['ana', {}]]),
      sharesByToken: new Map<string, ShareRef>(),
      deleteShare: () => undefined,
      commit: async () => undefined,
    },
    index,
    storage: new Storage(storageDir, path.join(root, 'tmp'), index),
    orphans: new Set(),
    watcherMode: 'starting',
    log: () => undefined,
  };
}

/** A subscription the test speaks for. */
function standIn() {
  let emit: (err: Error | null, events: WatchEvent[]) => void = () => undefined;
  let unsubscribed = 0;
  const factory: WatchFactory = async (_root, onEvents) => {
    emit = onEvents;
    return { unsubscribe: async () => void unsubscribed++ };
  };
  return { factory, emit: (...e: WatchEvent[]) => emit(null, e), fail: (err: Error) => emit(err, []), unsubscribed: () => unsubscribed };
}

describe('LiveStorage', () => {
  it('scans, subscribes, then applies settled events (a file, a folder made and filled at once)', async () => {
    const t = target();
    const sub = standIn();
    live = new LiveStorage(t, sub.factory);
    expect(await live.reconcile()).toBe(true);
    await expect.poll(() => t.watcherMode).toBe('inotify');
    await writeFile(path.join(storageDir, 'ana', 'a.txt'), 'abc');
    sub.emit({ type: 'create', path: path.join(storageDir, 'ana', 'a.txt') });
    await expect.poll(() => t.index.getFile('ana', null, 'a.txt')?.size, { timeout: 3000 }).toBe(3);
    // Only the folder is reported: its file is found by listing it.
    await mkdir(path.join(storageDir, 'ana', 'F'));
    await writeFile(path.join(storageDir, 'ana', 'F', 'b.txt'), 'b');
    sub.emit({ type: 'create', path: path.join(storageDir, 'ana', 'F') });
    await expect.poll(() => t.index.getFile('ana', 'F', 'b.txt')?.size, { timeout: 3000 }).toBe(1);
  });

  it('finds what was copied in while the subscription started, at every depth, once it is up', async () => {
    const t = target();
    await mkdir(path.join(storageDir, 'ana', 'a', 'b'), { recursive: true });
    const sub = standIn();
    let subscribed: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (subscribed = resolve));
    let subscribing = false;
    // A subscription that takes its time (seconds over a million files), and reports nothing of what came before it.
    const slow: WatchFactory = async (root, onEvents) => {
      subscribing = true;
      await started;
      return sub.factory(root, onEvents);
    };
    live = new LiveStorage(t, slow);
    expect(await live.reconcile()).toBe(true);
    await expect.poll(() => subscribing).toBe(true);
    await writeFile(path.join(storageDir, 'ana', 'root.txt'), 'r');
    await writeFile(path.join(storageDir, 'ana', 'a', 'b', 'deep.txt'), 'dd');
    await mkdir(path.join(storageDir, 'ana', 'a', 'new'));
    await writeFile(path.join(storageDir, 'ana', 'a', 'new', 'n.txt'), 'nnn');
    expect(t.watcherMode).toBe('starting');
    subscribed();
    await expect.poll(() => t.watcherMode).toBe('inotify');
    expect(t.index.getFile('ana', null, 'root.txt')?.size).toBe(1);
    expect(t.index.getFile('ana', 'a/b', 'deep.txt')?.size).toBe(2);
    expect(t.index.getFile('ana', 'a/new', 'n.txt')?.size).toBe(3);
  });

  it('removes a file only once the disk confirms it, and not at all when the marker is gone', async () => {
    const t = target();
    await writeFile(path.join(storageDir, 'ana', 'a.txt'), 'a');
    await writeFile(path.join(storageDir, 'ana', 'b.txt'), 'b');
    const sub = standIn();
    live = new LiveStorage(t, sub.factory);
    await live.reconcile();
    await expect.poll(() => t.watcherMode).toBe('inotify');
    await unlink(path.join(storageDir, 'ana', 'a.txt'));
    sub.emit({ type: 'delete', path: path.join(storageDir, 'ana', 'a.txt') });
    await expect.poll(() => t.index.getFile('ana', null, 'a.txt'), { timeout: 3000 }).toBeUndefined();
    // An unmounted disk: the marker is gone with the files; nothing is taken for deleted.
    await unlink(path.join(storageDir, STORAGE_MARKER));
    await unlink(path.join(storageDir, 'ana', 'b.txt'));
    sub.emit({ type: 'delete', path: path.join(storageDir, 'ana', 'b.txt') });
    await expect.poll(() => t.watcherMode, { timeout: 3000 }).toBe('reconcile-only');
    expect(t.index.getFile('ana', null, 'b.txt')).toBeDefined();
    expect(t.index.state).toBe('unavailable');
    expect(sub.unsubscribed()).toBe(1);
  });

  it('falls back to polling when the subscription reports the watch limit', async () => {
    const t = target();
    const lines: string[] = [];
    t.log = (line) => lines.push(line);
    const sub = standIn();
    live = new LiveStorage(t, sub.factory);
    await live.reconcile();
    await expect.poll(() => t.watcherMode).toBe('inotify');
    sub.fail(new Error("inotify_add_watch on '/x' failed: No space left on device"));
    expect(t.watcherMode).toBe('polling');
    expect(lines.filter((l) => l.includes('max_user_watches'))).toHaveLength(1);
    await expect.poll(() => sub.unsubscribed()).toBe(1);
    // Followed by polling now.
    await writeFile(path.join(storageDir, 'ana', 'later.txt'), 'x');
    await expect.poll(() => t.index.getFile('ana', null, 'later.txt')?.size, { timeout: 6000 }).toBe(1);
  });

  it('starts afresh when the kernel dropped changes: what no event told is found, and the watch is made again', async () => {
    const t = target();
    const sub = standIn();
    let subscriptions = 0;
    const counted: WatchFactory = async (root, onEvents) => {
      subscriptions++;
      return sub.factory(root, onEvents);
    };
    live = new LiveStorage(t, counted);
    await live.reconcile();
    await expect.poll(() => t.watcherMode).toBe('inotify');
    // Written while the queue overflowed: no event will ever name it.
    await writeFile(path.join(storageDir, 'ana', 'unseen.txt'), 'xyz');
    sub.fail(Object.assign(new Error('inotify queue overflow'), { code: QUEUE_OVERFLOW }));
    await expect.poll(() => t.index.getFile('ana', null, 'unseen.txt')?.size, { timeout: 3000 }).toBe(3);
    await expect.poll(() => subscriptions).toBe(2);
    await expect.poll(() => t.watcherMode).toBe('inotify');
    expect(sub.unsubscribed()).toBe(1);
  });

  describe('a directory moved (delete of the old path, create of the new one)', () => {
    /** A folder F holding a folder with a file, followed by the coordinator: the index's events from then on. */
    async function followed() {
      await mkdir(path.join(storageDir, 'ana', 'F', 'sub'), { recursive: true });
      await writeFile(path.join(storageDir, 'ana', 'F', 'sub', 'x.txt'), 'x');
      const t = target();
      const sub = standIn();
      live = new LiveStorage(t, sub.factory);
      await live.reconcile();
      await expect.poll(() => t.watcherMode, { timeout: 5000 }).toBe('inotify');
      const events: string[] = [];
      t.index.on('change', (e: ChangeEvent) => events.push(`${e.type} ${e.folder}:${e.file}${e.from ? ` from ${e.from}` : ''}`));
      const node = t.index.folder('ana', 'F');
      await rename(path.join(storageDir, 'ana', 'F'), path.join(storageDir, 'ana', 'G'));
      const at = (name: string) => path.join(storageDir, 'ana', name);
      return { t, sub, events, node, at };
    }

    it('is one folder.moved, whatever order the batch names them in, the node relinked whole', async () => {
      const { t, sub, events, node, at } = await followed();
      sub.emit({ type: 'create', path: at('G') }, { type: 'delete', path: at('F') });
      await expect.poll(() => t.index.folder('ana', 'G'), { timeout: 3000 }).toBe(node);
      expect(t.index.folder('ana', 'F')).toBeUndefined();
      expect(t.index.getFile('ana', 'G/sub', 'x.txt')?.size).toBe(1);
      // What the removal of F and the re-read of G would announce has had its time.
      await writeFile(at('after.txt'), '');
      sub.emit({ type: 'create', path: at('after.txt') });
      await expect.poll(() => events, { timeout: 3000 }).toContain('file.added null:after.txt');
      expect(events).toEqual(['folder.moved G:null from F', 'file.added null:after.txt']);
    });

    it('is one folder.moved when the watcher hands the two names over in two batches, half a second apart', async () => {
      const { t, sub, events, node, at } = await followed();
      sub.emit({ type: 'delete', path: at('F') });
      // @parcel/watcher hands a batch over at the latest 500 ms after its first event, under load.
      await new Promise((resolve) => setTimeout(resolve, 450));
      sub.emit({ type: 'create', path: at('G') });
      await expect.poll(() => t.index.folder('ana', 'G'), { timeout: 3000 }).toBe(node);
      await writeFile(at('after.txt'), '');
      sub.emit({ type: 'create', path: at('after.txt') });
      await expect.poll(() => events, { timeout: 3000 }).toContain('file.added null:after.txt');
      expect(events).toEqual(['folder.moved G:null from F', 'file.added null:after.txt']);
    });

    it('keeps the files of a folder whose names were seen gone before the folder itself: it was moved', async () => {
      const { t, sub, events, node, at } = await followed();
      // Names still waiting to settle when the directory moved (a copy just finished) are found gone first.
      sub.emit({ type: 'update', path: path.join(at('F'), 'sub', 'x.txt') });
      await new Promise((resolve) => setTimeout(resolve, 300));
      sub.emit({ type: 'delete', path: at('F') }, { type: 'create', path: at('G') });
      await expect.poll(() => t.index.folder('ana', 'G'), { timeout: 3000 }).toBe(node);
      await writeFile(at('after.txt'), '');
      sub.emit({ type: 'create', path: at('after.txt') });
      await expect.poll(() => events, { timeout: 3000 }).toContain('file.added null:after.txt');
      expect(events).toEqual(['folder.moved G:null from F', 'file.added null:after.txt']);
      expect(t.index.getFile('ana', 'G/sub', 'x.txt')?.size).toBe(1);
    });

    it("stays a removal when the directory went past the tree's limits (64 levels)", async () => {
      const deep = Array.from({ length: 64 }, () => 'd');
      await mkdir(path.join(storageDir, 'ana', ...deep), { recursive: true });
      const { t, sub, events, at } = await followed();
      await rename(at('G'), path.join(storageDir, 'ana', ...deep, 'G'));
      sub.emit({ type: 'delete', path: at('F') }, { type: 'create', path: path.join(storageDir, 'ana', ...deep, 'G') });
      await expect.poll(() => events, { timeout: 3000 }).toEqual(['folder.removed F:null']);
      expect(t.index.folder('ana', deep.join('/'))?.folders.size).toBe(0);
    });
  });
});
