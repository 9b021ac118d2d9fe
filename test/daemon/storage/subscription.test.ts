/** The subscription side of the watcher: where a path is, what is in a new directory, which limit an error means, and a real subscription of each kind. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nativeWatch, parcelWatch } from '../../../daemon/storage/live/native-watch.js';
import { limitCode, locate, type WatchEvent } from '../../../daemon/storage/live/subscription.js';
import { readArrival } from '../../../daemon/storage/live/subtree-watches.js';

const root = '/srv/storage';

describe('locate', () => {
  it('names the top level, a user root and a folder', () => {
    expect(locate(root, '/srv/storage/ana')).toEqual({ username: null, folder: null, name: 'ana' });
    expect(locate(root, '/srv/storage/ana/a.txt')).toEqual({ username: 'ana', folder: null, name: 'a.txt' });
    expect(locate(root, '/srv/storage/ana/Photos/b.jpg')).toEqual({ username: 'ana', folder: 'Photos', name: 'b.jpg' });
  });

  it('leaves out the root itself, paths outside it and what the API cannot address below a folder', () => {
    expect(locate(root, root)).toBeNull();
    expect(locate(root, '/srv/storage-other/ana')).toBeNull();
    expect(locate(root, '/srv/ana')).toBeNull();
    // Since issue 25 a folder is a path: deeper names are located with it (docs/tree.md).
    expect(locate(root, '/srv/storage/ana/Photos/deeper/c.jpg')).toEqual({ username: 'ana', folder: 'Photos/deeper', name: 'c.jpg' });
    expect(locate(root, '/srv/storage/ana/Photos/CON/c.jpg')).toBeNull();
    expect(locate(root, `/srv/storage/ana/${'d/'.repeat(65)}c.jpg`)).toBeNull();
  });
});

describe('locate, by prefix where the path is the root joined with names', () => {
  /** What locate answered when it took every path through path.relative. */
  const throughRelative = (base: string, p: string) => {
    const rel = path.relative(base, p);
    return rel === '' || path.isAbsolute(rel) || rel.split(path.sep).includes('..') ? null : locate(base, path.join(base, rel));
  };
  it.each([
    '/srv/storage/ana/a.txt',
    '/srv/storage/ana/.hidden',
    '/srv/storage/ana/..dots../b',
    '/srv/storage/ana/./a.txt',
    '/srv/storage/ana/../bob/a.txt',
    '/srv/storage/ana/Photos/..',
    '/srv/storage//ana/a.txt',
    '/srv/storage/ana/Photos/',
    '/srv/storage/..',
    '/srv/storage/../storage/ana/a.txt',
    '/srv/storageX/ana',
    '/srv/storage/',
  ])('answers %s as path.relative would', (p) => {
    for (const base of [root, `${root}/`]) expect(locate(base, p)).toEqual(throughRelative(base, p));
  });
});

describe('limitCode', () => {
  it('reads the code, or strerror in the message of @parcel/watcher', () => {
    expect(limitCode(Object.assign(new Error('x'), { code: 'ENOSPC' }))).toBe('ENOSPC');
    expect(limitCode(new Error("inotify_add_watch on '/a' failed: No space left on device"))).toBe('ENOSPC');
    expect(limitCode(new Error('Unable to initialize inotify: Too many open files'))).toBe('EMFILE');
    expect(limitCode(new Error('Too many open files in system'))).toBe('ENFILE');
    expect(limitCode(new Error('something else'))).toBeNull();
    expect(limitCode(null)).toBeNull();
  });
});

// The daemon's own inotify reader on Linux; @parcel/watcher, which macOS and Windows use, checked here too.
describe.each([
  ['the native watch', nativeWatch],
  ['@parcel/watcher', parcelWatch],
])('a real subscription: %s', (_name, watch) => {
  let dir = '';
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('reports a file in a folder, and readArrival lists a new directory', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-sub-'));
    await mkdir(path.join(dir, 'ana', 'f'), { recursive: true });
    const events: WatchEvent[] = [];
    const sub = await watch(dir, (err, batch) => {
      if (!err) events.push(...batch);
    });
    try {
      await writeFile(path.join(dir, 'ana', 'f', 'x.txt'), 'x');
      await expect.poll(() => events.map((e) => e.path), { timeout: 5000 }).toContain(path.join(dir, 'ana', 'f', 'x.txt'));
      expect(await readArrival(path.join(dir, 'ana', 'f'))).toEqual({ names: ['x.txt'], holdsDirectory: false });
      expect(await readArrival(path.join(dir, 'ana'))).toEqual({ names: ['f'], holdsDirectory: true });
      expect(await readArrival(path.join(dir, 'missing'))).toEqual({ names: [], holdsDirectory: false });
    } finally {
      await sub.unsubscribe();
    }
  });
});
