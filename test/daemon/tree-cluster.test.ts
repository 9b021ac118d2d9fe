/**
 * Issue 25 across daemons (docs/tree.md, "Cluster"): two ObjectStorages on one PostgreSQL
 * database and one bucket. A tree made through A shows whole in B's index; a subtree move
 * through A is, for B too, one folder row and one folder.moved; a subtree trashed and restored
 * through A leaves and comes back whole in B (one folder.removed there too); two folders
 * moved into each other through A and B at once end with one move refused, never a loop; a copy
 * into a folder another daemon moves into the copy's source at once is whole or refused, its rows
 * a tree; folder rows arriving child first show once their parent does.
 */
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChangeEvent } from '../../shared/types.js';
import { ObjectStorage } from '../../daemon/storage/cluster/object-storage.js';
import { FileIndex } from '../../daemon/storage/file-index.js';
import { S3ObjectStore } from '../../daemon/storage/objects/s3-store.js';
import type { StoredFolder } from '../../daemon/store/schema.js';
import { Store } from '../../daemon/store/store.js';
import { sharedPostgres, sharedS3 } from '../helpers/engines.js';

interface Daemon {
  store: Store;
  index: FileIndex;
  objects: S3ObjectStore;
  storage: ObjectStorage;
  events: ChangeEvent[];
}

async function startDaemon(url: string, bucket: string): Promise<Daemon> {
  const s3 = await sharedS3();
  const store = await Store.openPostgres(url);
  const objects = new S3ObjectStore({ ...s3, forcePathStyle: true, bucket });
  const index = new FileIndex();
  const storage = new ObjectStorage({ store, index, objects, log: () => undefined });
  storage.open();
  const events: ChangeEvent[] = [];
  index.on('change', (e) => events.push(e));
  return { store, index, objects, storage, events };
}

async function upload(storage: ObjectStorage, folder: string | null, file: string, body: string): Promise<void> {
  const ticket = storage.beginUpload('ana', folder);
  try {
    const received = await storage.receive(Readable.from([Buffer.from(body)]), () => undefined);
    await storage.placeUpload(received, ticket, file, false, () => true);
  } finally {
    storage.endUpload(ticket);
  }
}

const WAIT = { timeout: 15_000, interval: 50 };
let a: Daemon;
let b: Daemon;

describe('a tree on two daemons (PostgreSQL + Swift)', () => {
  beforeEach(async () => {
    const url = await (await sharedPostgres()).createDatabase();
    const bucket = await (await sharedS3()).createBucket();
    [a, b] = await Promise.all([startDaemon(url, bucket), startDaemon(url, bucket)]);
    a.store.users.set('ana', { username: 'ana', email: 'ana@example.com', role: 'user', emailVerified: true } as never);
    await a.store.commit();
    await a.storage.ensureUserDir('ana');
    await vi.waitFor(() => expect(b.index.user('ana')).toBeDefined(), WAIT);
    for (const folder of ['a', 'a/b', 'a/b/c', 'other']) await a.storage.createFolder('ana', folder);
    await upload(a.storage, 'a/b', 'mid.txt', 'middle');
    await upload(a.storage, 'a/b/c', 'deep.txt', 'bottom');
    await vi.waitFor(() => expect(b.index.getFile('ana', 'a/b/c', 'deep.txt')?.size).toBe(6), WAIT);
  });

  afterEach(async () => {
    for (const d of [a, b]) {
      d.storage.close();
      await d.store.close();
      d.objects.close();
    }
  });

  it('a subtree moved through A is one folder.moved in B, its files under the new path', async () => {
    b.events.length = 0;
    await a.storage.moveFolder('ana', 'a/b', 'other');
    await vi.waitFor(() => expect(b.index.getFile('ana', 'other/b/c', 'deep.txt')?.size).toBe(6), WAIT);
    expect(b.events).toEqual([{ type: 'folder.moved', username: 'ana', folder: 'other/b', from: 'a/b', file: null }]);
    expect(b.index.folder('ana', 'a/b')).toBeUndefined();
    expect(b.index.folder('ana', 'other')).toMatchObject({ fileCount: 2, folderCount: 2, sizeBytes: 12 });
    expect((await (await b.storage.openFile('ana', 'other/b', 'mid.txt')).read()).toString()).toBe('middle');
  });

  it('a subtree trashed through A leaves B whole, and comes back whole', async () => {
    const id = 'e'.repeat(32);
    b.events.length = 0;
    await a.storage.trash.moveIn({ username: 'ana', folder: 'a', name: 'b', kind: 'folder', id }, () => undefined);
    await vi.waitFor(() => expect(b.index.folder('ana', 'a/b')).toBeUndefined(), WAIT);
    expect(b.index.usedBytes('ana')).toBe(0);
    // One event for the subtree, as on A: the folder rows are applied before the file rows.
    expect(b.events).toEqual([{ type: 'folder.removed', username: 'ana', folder: 'a/b', file: null }]);
    await a.storage.trash.restore({ username: 'ana', folder: 'a', name: 'b', kind: 'folder', id, as: 'b' }, () => undefined);
    await vi.waitFor(() => expect(b.index.getFile('ana', 'a/b/c', 'deep.txt')?.size).toBe(6), WAIT);
    expect(b.index.folder('ana', 'a')).toMatchObject({ fileCount: 2, folderCount: 2, sizeBytes: 12 });
  });

  it('two folders moved into each other through A and B at once: one move is refused (409), never a loop', async () => {
    await a.storage.createFolder('ana', 'y');
    await vi.waitFor(() => expect(b.index.folder('ana', 'y')).toBeDefined(), WAIT);
    const moves = await Promise.allSettled([a.storage.moveFolder('ana', 'other', 'y'), b.storage.moveFolder('ana', 'y', 'other')]);
    const refused = moves.filter((m): m is PromiseRejectedResult => m.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect(refused[0].reason).toMatchObject({ code: 'conflict' });
    // Both daemons show the one move that was made, and neither folder is lost.
    const nested = moves[0].status === 'fulfilled' ? 'y/other' : 'other/y';
    for (const d of [a, b]) await vi.waitFor(() => expect(d.index.folder('ana', nested)).toBeDefined(), WAIT);
  });

  it('a folder of 200 files copied through A shows whole in B (more rows than one notification names)', async () => {
    await a.storage.createFolder('ana', 'many');
    for (let i = 0; i < 200; i += 20)
      await Promise.all(Array.from({ length: 20 }, (_, j) => upload(a.storage, 'many', `f${i + j}.txt`, 'x')));
    await a.storage.copyFolder('ana', 'many', 'other', { reserve: () => undefined });
    for (const d of [a, b]) {
      await vi.waitFor(() => expect(d.index.folder('ana', 'other/many')).toMatchObject({ fileCount: 200, sizeBytes: 200 }), WAIT);
    }
  });

  it('a folder copied through A into a folder B moves into it at once: the copy whole or refused (409), the rows a tree on both', async () => {
    /** Every folder row's path as the daemon shows it (null: hidden, or a loop). */
    const paths = (d: Daemon) => [...d.storage.rows.folders.values()].map((row) => d.storage.rows.pathOf(row.id)).sort();
    for (let round = 0; round < 3; round++) {
      const target = `t${round}`;
      await a.storage.createFolder('ana', target);
      await vi.waitFor(() => expect(b.index.folder('ana', target)).toBeDefined(), WAIT);
      const [copied, moved] = await Promise.allSettled([
        a.storage.copyFolder('ana', 'a', target, { reserve: () => undefined }),
        b.storage.moveFolder('ana', target, 'a/b'),
      ]);
      expect(moved.status).toBe('fulfilled');
      if (copied.status === 'rejected') expect(copied.reason).toMatchObject({ code: 'conflict' });
      for (const d of [a, b]) {
        await vi.waitFor(() => {
          expect(d.index.folder('ana', `a/b/${target}`)).toBeDefined();
          // Whole where the target now is, or not at all.
          if (copied.status === 'fulfilled') expect(d.index.getFile('ana', `a/b/${target}/a/b/c`, 'deep.txt')?.size).toBe(6);
          else expect(d.index.folder('ana', `a/b/${target}/a`)).toBeUndefined();
          expect(paths(d)).not.toContain(null);
        }, WAIT);
      }
      expect(paths(b)).toEqual(paths(a));
    }
  });

  it('shows folder rows that arrive before their parent once the parent arrives', () => {
    const row = (id: string, name: string, parentId: string | null): StoredFolder => ({
      id,
      username: 'ana',
      name,
      mtimeMs: 1,
      trashId: null,
      parentId,
    });
    b.storage.applyRemote({ collection: 'folders', key: 'y2', before: undefined, after: row('y2', 'z', 'y1') });
    expect(b.index.folder('ana', 'x/y/z')).toBeUndefined();
    b.storage.applyRemote({ collection: 'folders', key: 'y1', before: undefined, after: row('y1', 'y', 'y0') });
    b.storage.applyRemote({ collection: 'folders', key: 'y0', before: undefined, after: row('y0', 'x', null) });
    expect(b.index.folder('ana', 'x/y/z')).toBeDefined();
    expect(b.index.folder('ana', 'x')).toMatchObject({ folderCount: 2 });
  });
});
