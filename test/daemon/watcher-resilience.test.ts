/** The watcher failing, the daemon stopped, the storage directory gone: the index recovers, nothing is lost. */
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { subscribe } from '@parcel/watcher';
import type { WatchFactory } from '../../daemon/index.js';
import type { WatchEvent } from '../../daemon/storage/watcher.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

const WAIT = { timeout: 10_000, interval: 25 };

let t: TestDaemon | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

async function start(watchFactory?: WatchFactory): Promise<TestDaemon> {
  t = await startTestDaemon(watchFactory ? { watchFactory } : {});
  return t;
}

async function createUser(d: TestDaemon, username: string): Promise<void> {
  expect((await d.api('POST', '/api/user/create', { username, email: `${username}@example.com`, password: 'secret123' })).status).toBe(201);
}

async function names(d: TestDaemon, username: string): Promise<string[]> {
  return ((await d.api('GET', '/api/files', { username })).body.files ?? []).map((f: { name: string }) => f.name);
}

const dash = async (d: TestDaemon) => (await d.api('GET', '/api/dash')).body;

async function waitLive(d: TestDaemon, watcher = 'inotify'): Promise<void> {
  await vi.waitFor(async () => expect((await dash(d)).index).toEqual({ state: 'ready', watcher }), WAIT);
}

describe('while the daemon is stopped', () => {
  it('finds files added while it was down, and revokes shares of files deleted while it was down', async () => {
    const d = await start();
    await createUser(d, 'ana');
    await waitLive(d);
    const dir = path.join(d.storageDir, 'ana');
    await writeFile(path.join(dir, 'keep.txt'), 'keep');
    await writeFile(path.join(dir, 'doomed.txt'), 'doomed');
    await vi.waitFor(async () => expect(await names(d, 'ana')).toEqual(['doomed.txt', 'keep.txt']), WAIT);
    const kept = (await d.api('POST', '/api/files/share', { username: 'ana', file: 'keep.txt' })).body.file.shareUrl as string;
    const doomed = (await d.api('POST', '/api/files/share', { username: 'ana', file: 'doomed.txt' })).body.file.shareUrl as string;
    await d.stop();
    await unlink(path.join(dir, 'doomed.txt'));
    await mkdir(path.join(dir, 'New folder'));
    await writeFile(path.join(dir, 'New folder', 'while-down.txt'), 'hello');
    await writeFile(path.join(dir, 'while-down.txt'), 'hi');
    await d.restart();
    await waitLive(d);
    expect(await names(d, 'ana')).toEqual(['keep.txt', 'while-down.txt']);
    const inFolder = await d.api('GET', '/api/folders/files', { username: 'ana', folder: 'New folder' });
    expect(inFolder.body.files.map((f: { name: string }) => f.name)).toEqual(['while-down.txt']);
    expect((await dash(d)).shares).toBe(1);
    const keptPath = new URL(kept).pathname;
    expect((await fetch(`${d.url}${keptPath}`)).status).toBe(200);
    expect((await fetch(`${d.url}${new URL(doomed).pathname}`)).status).toBe(404);
  });
});

describe('when the watcher fails', () => {
  it('logs one line naming the inotify limit, falls back to polling and keeps the index', async () => {
    // The real subscription, whose callback the test calls as @parcel/watcher does when it
    // cannot watch a new directory (its message carries strerror, no code).
    const listeners: ((err: Error | null, events: WatchEvent[]) => void)[] = [];
    const d = await start((root, listener) => {
      listeners.push(listener);
      return subscribe(root, listener);
    });
    await createUser(d, 'bo');
    await writeFile(path.join(d.storageDir, 'bo', 'a.txt'), 'a');
    await waitLive(d);
    await vi.waitFor(async () => expect(await names(d, 'bo')).toEqual(['a.txt']), WAIT);
    const limit = new Error("inotify_add_watch on '/storage/bo/new' failed: No space left on device");
    for (const listener of listeners) listener(limit, []);
    await vi.waitFor(async () => expect((await dash(d)).index.watcher).toBe('polling'), WAIT);
    const lines = d.logs.filter((l) => l.includes('max_user_watches'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/sysctl fs\.inotify\.max_user_watches=\d+/);
    // Nothing was taken for deleted: the index still holds the file.
    expect(await names(d, 'bo')).toEqual(['a.txt']);
    expect((await dash(d)).files).toBe(1);
    // Changes are still followed, by polling now.
    await writeFile(path.join(d.storageDir, 'bo', 'b.txt'), 'b');
    await vi.waitFor(async () => expect(await names(d, 'bo')).toEqual(['a.txt', 'b.txt']), WAIT);
    await unlink(path.join(d.storageDir, 'bo', 'a.txt'));
    await vi.waitFor(async () => expect(await names(d, 'bo')).toEqual(['b.txt']), WAIT);
  });

  it('survives a watcher that cannot even be created', async () => {
    const d = await start(async () => {
      throw new Error('Unable to initialize inotify: Too many open files');
    });
    await createUser(d, 'cy');
    await waitLive(d, 'polling');
    expect(d.logs.filter((l) => l.includes('too many open files'))).toHaveLength(1);
    await writeFile(path.join(d.storageDir, 'cy', 'c.txt'), 'c');
    await vi.waitFor(async () => expect(await names(d, 'cy')).toEqual(['c.txt']), WAIT);
  });
});

describe('when the subscription fails for another reason', () => {
  it('logs the error once and polls instead', async () => {
    const d = await start(async () => {
      throw new Error('the native watcher is broken');
    });
    await createUser(d, 'gu');
    await waitLive(d, 'polling');
    expect(d.logs.filter((l) => l.includes('the native watcher is broken'))).toHaveLength(1);
    await writeFile(path.join(d.storageDir, 'gu', 'g.txt'), 'g');
    await vi.waitFor(async () => expect(await names(d, 'gu')).toEqual(['g.txt']), WAIT);
  });
});

describe('POST /api/dash/rescan', () => {
  it('repairs drift the watcher missed', async () => {
    // A watcher that hears nothing: the index drifts from the disk until a rescan.
    const d = await start(async () => ({ unsubscribe: async () => undefined }));
    await createUser(d, 'di');
    await waitLive(d);
    await writeFile(path.join(d.storageDir, 'di', 'missed.txt'), 'missed');
    expect(await names(d, 'di')).toEqual([]);
    const res = await d.api('POST', '/api/dash/rescan');
    expect(res.status).toBe(200);
    expect(await names(d, 'di')).toEqual(['missed.txt']);
  });
});

describe('when the storage directory disappears', () => {
  it('says so, keeps every file record and share, refuses writes, and recovers when it is back', async () => {
    const d = await start();
    await createUser(d, 'ed');
    await writeFile(path.join(d.storageDir, 'ed', 'photo.jpg'), 'jpg');
    await waitLive(d);
    await vi.waitFor(async () => expect(await names(d, 'ed')).toEqual(['photo.jpg']), WAIT);
    const url = (await d.api('POST', '/api/files/share', { username: 'ed', file: 'photo.jpg' })).body.file.shareUrl as string;
    const away = `${d.storageDir}-unmounted`;
    await rename(d.storageDir, away);
    // The periodic reconcile (or the watcher) notices; a rescan asks at once.
    await vi.waitFor(async () => {
      await d.api('POST', '/api/dash/rescan');
      expect((await dash(d)).index.state).toBe('unavailable');
    }, WAIT);
    expect(d.logs.some((l) => l.includes('not available') && l.includes('nothing is deleted'))).toBe(true);
    expect(await names(d, 'ed')).toEqual(['photo.jpg']);
    expect((await dash(d)).shares).toBe(1);
    expect((await dash(d)).storage.available).toBe(false);
    expect((await d.api('POST', '/api/files/upload', { username: 'ed', file: 'new.txt' }, { body: 'x' })).status).toBe(503);
    expect((await d.api('POST', '/api/dash/rescan')).status).toBe(503);
    await rename(away, d.storageDir);
    await waitLive(d);
    expect(await names(d, 'ed')).toEqual(['photo.jpg']);
    expect((await fetch(url)).status).toBe(200);
    await writeFile(path.join(d.storageDir, 'ed', 'after.txt'), 'x');
    await vi.waitFor(async () => expect(await names(d, 'ed')).toEqual(['after.txt', 'photo.jpg']), WAIT);
  });

  it('treats an empty storage directory without its marker (a bare mount point) as unavailable', async () => {
    const d = await start();
    await createUser(d, 'fi');
    await writeFile(path.join(d.storageDir, 'fi', 'x.txt'), 'x');
    await waitLive(d);
    await vi.waitFor(async () => expect(await names(d, 'fi')).toEqual(['x.txt']), WAIT);
    await d.api('POST', '/api/files/share', { username: 'fi', file: 'x.txt' });
    await d.stop();
    const away = `${d.storageDir}-disk`;
    await rename(d.storageDir, away);
    await mkdir(d.storageDir); // the mount point, without the disk
    await d.restart();
    await vi.waitFor(async () => expect((await dash(d)).index.state).toBe('unavailable'), WAIT);
    expect((await dash(d)).shares).toBe(1);
    const { rm } = await import('node:fs/promises');
    await rm(d.storageDir, { recursive: true });
    await rename(away, d.storageDir);
    await waitLive(d);
    expect(await names(d, 'fi')).toEqual(['x.txt']);
    expect((await dash(d)).shares).toBe(1);
  });
});
