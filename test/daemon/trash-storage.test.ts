/**
 * The trash's storage seam (FileStorage.trash, issue 24): on both backends a move into the
 * trash and a restore keep the file index in step themselves and answer what they did; the
 * hook the service passes only writes its records, in the step that makes the move real.
 * The disk backend over temp directories, the object backend over a temp db.json and the
 * run's shared Swift.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ObjectStorage } from '../../daemon/storage/cluster/object-storage.js';
import { FileIndex } from '../../daemon/storage/file-index.js';
import type { FileStorage } from '../../daemon/storage/file-storage.js';
import { S3ObjectStore } from '../../daemon/storage/objects/s3-store.js';
import { Storage } from '../../daemon/storage/storage.js';
import { Store } from '../../daemon/store/store.js';
import { sharedS3 } from '../helpers/engines.js';

interface Backend {
  storage: FileStorage;
  index: FileIndex;
  close(): Promise<void>;
}

const dirs: string[] = [];
let opened: Backend | null = null;

afterEach(async () => {
  await opened?.close();
  opened = null;
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** ana with `docs/a.txt` (3 bytes), `docs/b.txt` (2 bytes) and `c.txt` (1 byte), on disk. */
async function openDisk(): Promise<Backend> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'nimbus-trash-seam-'));
  dirs.push(dataDir);
  const storageDir = path.join(dataDir, 'storage');
  await mkdir(path.join(storageDir, 'ana', 'docs'), { recursive: true });
  await mkdir(path.join(dataDir, 'tmp'));
  await writeFile(path.join(storageDir, 'ana', 'docs', 'a.txt'), 'aaa');
  await writeFile(path.join(storageDir, 'ana', 'docs', 'b.txt'), 'bb');
  await writeFile(path.join(storageDir, 'ana', 'c.txt'), 'c');
  const index = new FileIndex();
  const storage = new Storage(storageDir, path.join(dataDir, 'tmp'), index);
  await storage.trash.survey(() => true);
  await storage.rescanUser('ana');
  index.setState('ready');
  return { storage, index, close: async () => undefined };
}

/** The same files as rows (their objects are never read here). */
async function openObjects(): Promise<Backend> {
  const dir = await mkdtemp(path.join(tmpdir(), 'nimbus-trash-seam-'));
  dirs.push(dir);
  const store = new Store(path.join(dir, 'db.json'));
  await store.open();
  // Only the user's name is read here (ObjectStorage.open gives each user a node in the index).
  store.users.set('ana', { username: 'ana', role: 'user', createdAt: new Date().toISOString() } as never);
  const folderId = 'd'.repeat(32);
  store.folders.set(folderId, { id: folderId, username: 'ana', name: 'docs', mtimeMs: 1000, trashId: null });
  const file = (id: string, folder: string | null, name: string, size: number) =>
    store.files.set(id, {
      id,
      username: 'ana',
      folderId: folder,
      name,
      size,
      mtimeMs: 2000,
      contentType: 'text/plain',
      etag: '"x"',
      trashId: null,
    });
  file('a'.repeat(32), folderId, 'a.txt', 3);
  file('b'.repeat(32), folderId, 'b.txt', 2);
  file('c'.repeat(32), null, 'c.txt', 1);
  await store.commit();
  const s3 = await sharedS3();
  const objects = new S3ObjectStore({ ...s3, forcePathStyle: true, bucket: await s3.createBucket() });
  const index = new FileIndex();
  const storage = new ObjectStorage({ store, index, objects, log: () => undefined });
  storage.open();
  return {
    storage,
    index,
    close: async () => {
      storage.close();
      await store.close();
      objects.close();
    },
  };
}

const backends: [string, () => Promise<Backend>][] = [
  ['disk', openDisk],
  ['objects', openObjects],
];

describe.each(backends)('the trash storage (%s)', (_name, open) => {
  it('a move into the trash takes the entry out of the index itself, and answers what went', async () => {
    opened = await open();
    const { storage, index } = opened;
    const seen: unknown[] = [];
    const folder = await storage.trash.moveIn({ username: 'ana', folder: null, name: 'docs', kind: 'folder', id: 'e'.repeat(32) }, (what) =>
      // The hook runs once the index no longer shows the entry.
      seen.push({ ...what, shown: index.user('ana')!.folders.has('docs') }),
    );
    expect(folder).toEqual({ size: 5, fileCount: 2 });
    expect(seen).toEqual([{ size: 5, fileCount: 2, shown: false }]);
    const file = await storage.trash.moveIn(
      { username: 'ana', folder: null, name: 'c.txt', kind: 'file', id: 'f'.repeat(32) },
      () => undefined,
    );
    expect(file).toEqual({ size: 1, fileCount: 1 });
    expect(index.getFile('ana', null, 'c.txt')).toBeUndefined();
    expect(index.usedBytes('ana')).toBe(0);
  });

  it('a restore shows the entry in the index itself, and answers what it placed', async () => {
    opened = await open();
    const { storage, index } = opened;
    await storage.trash.moveIn({ username: 'ana', folder: null, name: 'docs', kind: 'folder', id: 'e'.repeat(32) }, () => undefined);
    let shownInHook = false;
    const placed = await storage.trash.restore(
      { username: 'ana', folder: null, name: 'docs', kind: 'folder', id: 'e'.repeat(32), as: 'papers' },
      () => (shownInHook = index.getFile('ana', 'papers', 'a.txt') !== undefined),
    );
    expect(shownInHook).toBe(true);
    expect([...placed.files.keys()].sort()).toEqual(['a.txt', 'b.txt']);
    expect(placed.folderMtimeMs).toEqual(expect.any(Number));
    expect([...index.files('ana', 'papers')!.keys()].sort()).toEqual(['a.txt', 'b.txt']);
    expect(index.usedBytes('ana')).toBe(6);
  });
});
