/** Polling directory mtimes: the fallback when the OS watch limit is hit, and the bridge while the watch starts. */
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORAGE_MARKER } from '../../../daemon/storage/availability.js';
import { FileIndex } from '../../../daemon/storage/file-index.js';
import { DirPoller } from '../../../daemon/storage/live/poller.js';
import { Storage } from '../../../daemon/storage/storage.js';

let root = '';
let storageDir = '';
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'nimbus-poll-'));
  storageDir = path.join(root, 'storage');
  await mkdir(path.join(storageDir, 'ana', 'F'), { recursive: true });
  await writeFile(path.join(storageDir, STORAGE_MARKER), '');
});
afterEach(() => rm(root, { recursive: true, force: true }));

function poller() {
  const index = new FileIndex();
  index.ensureUser('ana');
  index.addFolder('ana', 'F', 1);
  const storage = new Storage(storageDir, path.join(root, 'tmp'), index);
  const unavailable: string[] = [];
  const p = new DirPoller(
    { config: { storageDir }, store: { users: new Map([['ana', {}]]) }, index, storage },
    {
      unavailable: (reason) => unavailable.push(reason),
      onError: (err) => {
        throw err;
      },
    },
  );
  return { p, index, unavailable };
}

describe('DirPoller', () => {
  it('reads again the directories whose mtime moved since the start, then since the last pass', async () => {
    const { p, index } = poller();
    p.start(60_000, Date.now());
    await writeFile(path.join(storageDir, 'ana', 'a.txt'), 'a');
    await p.once();
    expect(index.getFile('ana', null, 'a.txt')?.size).toBe(1);
    await writeFile(path.join(storageDir, 'ana', 'F', 'b.txt'), 'bb');
    const later = new Date(Date.now() + 5000);
    await utimes(path.join(storageDir, 'ana', 'F'), later, later);
    await p.once();
    expect(index.getFile('ana', 'F', 'b.txt')?.size).toBe(2);
    p.stop();
  });

  it('catches up in one pass with what changed since a time, at every depth', async () => {
    const { p, index } = poller();
    const since = Date.now();
    await mkdir(path.join(storageDir, 'ana', 'F', 'G'));
    index.addFolder('ana', 'F/G', 1);
    await writeFile(path.join(storageDir, 'ana', 'F', 'G', 'deep.txt'), 'ddd');
    await writeFile(path.join(storageDir, 'ana', 'top.txt'), 't');
    await p.catchUp(since);
    expect(index.getFile('ana', 'F/G', 'deep.txt')?.size).toBe(3);
    expect(index.getFile('ana', null, 'top.txt')?.size).toBe(1);
  });

  it('changes nothing and says so when the storage marker is gone', async () => {
    const { p, index, unavailable } = poller();
    index.setFile('ana', null, 'keep.txt', { size: 1, mtimeMs: 1 });
    await rm(path.join(storageDir, STORAGE_MARKER));
    p.start(60_000, 0);
    await p.once();
    expect(unavailable).toHaveLength(1);
    expect(index.getFile('ana', null, 'keep.txt')).toBeDefined();
    p.stop();
  });
});
