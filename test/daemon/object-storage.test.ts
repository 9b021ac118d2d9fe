/**
 * ObjectStorage (daemon/storage/cluster) against a real Swift (S3) and a Store on a temp
 * db.json: object mode with one daemon. The bytes are objects `files/<id>`, the names rows;
 * renames change rows only, the index (and its events) follow the rows, the trash keeps rows
 * with a trashId, and the sweeper deletes only objects no row names.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../shared/types.js';
import { ApiError, databaseUnavailable } from '../../daemon/errors.js';
import { startObjectMode } from '../../daemon/object-mode.js';
import { ObjectStorage } from '../../daemon/storage/cluster/object-storage.js';
import { MemoryQuotaLedger } from '../../daemon/services/quota.js';
import { Sweeper } from '../../daemon/storage/cluster/sweeper.js';
import { FileIndex } from '../../daemon/storage/file-index.js';
import type { ObjectStore } from '../../daemon/storage/objects/object-store.js';
import { Store } from '../../daemon/store/store.js';
import { S3ObjectStore } from '../../daemon/storage/objects/s3-store.js';
import { sharedS3 } from '../helpers/engines.js';

/** An object store on a fresh bucket of the run's shared Swift. */
async function newObjectStore(bucket?: string): Promise<ObjectStore> {
  const s3 = await sharedS3();
  return new S3ObjectStore({ ...s3, forcePathStyle: true, bucket: bucket ?? (await s3.createBucket()) });
}

/** The keys under files/ in the bucket, sorted. */
async function bucketKeys(objects: ObjectStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of objects.list('files/')) keys.push(object.key);
  return keys.sort();
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** An upload as services/files.ts makes it: checked, received, placed. */
async function upload(storage: ObjectStorage, username: string, folder: string | null, file: string, text: string, overwrite = false) {
  await storage.checkUploadTarget(username, folder, file, overwrite);
  const ticket = storage.beginUpload(username, folder);
  try {
    const received = await storage.receive(Readable.from([Buffer.from(text)]), () => undefined);
    return await storage.placeUpload(received, ticket, file, overwrite, () => true);
  } finally {
    storage.endUpload(ticket);
  }
}

function chunksOf(bytes: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return chunks;
}

interface Setup {
  dir: string;
  store: Store;
  index: FileIndex;
  objects: ObjectStore;
  storage: ObjectStorage;
  events: ChangeEvent[];
  logs: string[];
}

async function openStorage(dir: string, objects: ObjectStore): Promise<Setup> {
  const store = new Store(path.join(dir, 'db.json'));
  await store.open();
  const index = new FileIndex();
  const logs: string[] = [];
  const storage = new ObjectStorage({ store, index, objects, log: (line) => logs.push(line) });
  storage.open();
  const events: ChangeEvent[] = [];
  index.on('change', (e) => events.push(e));
  return { dir, store, index, objects, storage, events, logs };
}

function addUser(store: Store, username: string): void {
  store.users.set(username, {
    username,
    email: `${username}@example.com`,
    role: 'user',
    emailVerified: true,
    createdAt: new Date().toISOString(),
  } as never);
}

let s: Setup;

beforeEach(async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'nimbus-objects-'));
  s = await openStorage(dir, await newObjectStore());
  addUser(s.store, 'ana');
  await s.store.commit();
  await s.storage.ensureUserDir('ana');
});

afterEach(async () => {
  s.storage.close();
  await s.store.close();
  s.objects.close();
  await rm(s.dir, { recursive: true, force: true });
});

describe('ObjectStorage (db.json + Swift)', () => {
  it('an upload becomes an object files/<id> and a row; the index shows it; reads are whole or ranged', async () => {
    const meta = await upload(s.storage, 'ana', null, 'hello.txt', 'hello object world');
    expect(meta.size).toBe(18);
    const [row] = [...s.store.files.values()];
    expect(row).toMatchObject({ username: 'ana', folderId: null, name: 'hello.txt', size: 18, contentType: 'text/plain', trashId: null });
    expect(row.id).toMatch(/^[0-9a-f]{32}$/);
    expect(await bucketKeys(s.objects)).toEqual([`files/${row.id}`]);
    expect(s.index.getFile('ana', null, 'hello.txt')).toEqual({ size: 18, mtimeMs: row.mtimeMs });
    expect(s.events).toContainEqual({ type: 'file.added', username: 'ana', folder: null, file: 'hello.txt' });

    const opened = await s.storage.openFile('ana', null, 'hello.txt');
    expect(opened.identity).toBe(`${row.id}:${row.etag}`);
    expect(opened.etag).toBe(row.etag);
    expect((await readAll(await opened.stream())).toString()).toBe('hello object world');
    expect((await readAll(await opened.stream({ start: 6, end: 11 }))).toString()).toBe('object');
    expect((await opened.read()).toString()).toBe('hello object world');
    await opened.close();
  });

  it('an upload without overwrite onto a taken name is refused and leaves no object; with overwrite the old object goes', async () => {
    await upload(s.storage, 'ana', null, 'a.txt', 'one');
    const first = [...s.store.files.keys()];
    await expect(upload(s.storage, 'ana', null, 'a.txt', 'two')).rejects.toMatchObject({ code: 'file_exists' });
    expect(await bucketKeys(s.objects)).toEqual(first.map((id) => `files/${id}`));

    s.events.length = 0;
    await upload(s.storage, 'ana', null, 'a.txt', 'three!', true);
    const rows = [...s.store.files.values()];
    expect(rows).toHaveLength(1);
    expect(rows[0].id).not.toBe(first[0]);
    expect(rows[0].size).toBe(6);
    expect(await bucketKeys(s.objects)).toEqual([`files/${rows[0].id}`]);
    // As an overwrite on disk: one change, not a removal and an addition.
    expect(s.events).toEqual([{ type: 'file.changed', username: 'ana', folder: null, file: 'a.txt' }]);
    const opened = await s.storage.openFile('ana', null, 'a.txt');
    expect((await opened.read()).toString()).toBe('three!');
  });

  it('a body refused mid-stream (the quota) leaves nothing in the bucket', async () => {
    const refused = new ApiError('quota_exceeded', 'Storage quota exceeded');
    const body = Readable.from([Buffer.alloc(300_000, 1), Buffer.alloc(300_000, 2), Buffer.alloc(300_000, 3)]);
    await expect(
      s.storage.receive(body, (total) => {
        if (total > 500_000) throw refused;
      }),
    ).rejects.toBe(refused);
    expect(await bucketKeys(s.objects)).toEqual([]);
  });

  it('a commit lost with its connection after it was written keeps the object its row names; one that wrote nothing leaves none', async () => {
    // As PostgreSQL restarting between its commit and the answer (the cluster soak caught it): written, then a 503.
    const commit = s.store.commit.bind(s.store);
    s.store.commit = async () => {
      await commit();
      throw databaseUnavailable();
    };
    await expect(upload(s.storage, 'ana', null, 'lost.txt', 'written all the same')).rejects.toMatchObject({
      code: 'database_unavailable',
    });
    s.store.commit = commit;
    const [row] = [...s.store.files.values()].filter((f) => f.name === 'lost.txt');
    expect(await bucketKeys(s.objects)).toEqual([`files/${row.id}`]);

    // A folder copy whose commit was written, then lost: its objects stay too.
    await s.storage.createFolder('ana', 'docs');
    await s.storage.createFolder('ana', 'src');
    await upload(s.storage, 'ana', 'docs', 'd.txt', 'copied');
    s.store.commit = async () => {
      await commit();
      throw databaseUnavailable();
    };
    await expect(s.storage.copyFolder('ana', 'docs', 'src', { reserve: () => undefined })).rejects.toMatchObject({
      code: 'database_unavailable',
    });
    s.store.commit = commit;
    const named = [...s.store.files.values()].map((f) => `files/${f.id}`).sort();
    expect(named).toHaveLength(3);
    expect(await bucketKeys(s.objects)).toEqual(named);

    // Read again from the rows (as PostgreSQL's resync after the outage does), both download whole.
    s.storage.close();
    await s.store.close();
    s = await openStorage(s.dir, s.objects);
    expect((await (await s.storage.openFile('ana', null, 'lost.txt')).read()).toString()).toBe('written all the same');
    expect((await (await s.storage.openFile('ana', 'src/docs', 'd.txt')).read()).toString()).toBe('copied');

    // A commit that wrote nothing (a refusal, a failed disk write): the new object goes.
    const reopened = s.store.commit.bind(s.store);
    s.store.commit = () => Promise.reject(new Error('the disk refused the write'));
    await expect(upload(s.storage, 'ana', null, 'refused.txt', 'never named')).rejects.toThrow('the disk refused');
    s.store.commit = reopened;
    expect(await bucketKeys(s.objects)).toEqual(named);
  });

  it('an empty file is an empty object', async () => {
    const meta = await upload(s.storage, 'ana', null, 'empty.txt', '');
    expect(meta.size).toBe(0);
    expect(await bucketKeys(s.objects)).toHaveLength(1);
    expect((await (await s.storage.openFile('ana', null, 'empty.txt')).read()).length).toBe(0);
  });

  it('a large body goes up in parts while an asynchronous quota check holds it; ranges across parts read right', async () => {
    const size = 20 * 1024 * 1024 + 123;
    const bytes = Buffer.alloc(size);
    for (let i = 0; i < size; i += 4096) bytes.writeUInt32LE(i, i);
    const checked: number[] = [];
    const received = await s.storage.receive(Readable.from(chunksOf(bytes, 1 << 20)), async (total) => {
      // As the PostgreSQL ledger: an answer that takes a while.
      await new Promise((resolve) => setImmediate(resolve));
      checked.push(total);
    });
    expect(received.size).toBe(size);
    expect(checked.at(-1)).toBe(size);
    const ticket = s.storage.beginUpload('ana', null);
    await s.storage.placeUpload(received, ticket, 'big.bin', false, () => true);
    s.storage.endUpload(ticket);
    const opened = await s.storage.openFile('ana', null, 'big.bin');
    expect(opened.size).toBe(size);
    const start = 8 * 1024 * 1024 - 10;
    const part = await readAll(await opened.stream({ start, end: start + 99 }));
    expect(part.equals(bytes.subarray(start, start + 100))).toBe(true);
    expect((await opened.read()).equals(bytes)).toBe(true);
  });

  it('an asynchronous refusal mid-way through a large body leaves nothing in the bucket (parts included)', async () => {
    const bytes = Buffer.alloc(20 * 1024 * 1024, 7);
    const refused = new ApiError('quota_exceeded', 'Storage quota exceeded');
    await expect(
      s.storage.receive(Readable.from(chunksOf(bytes, 1 << 20)), async (total) => {
        await new Promise((resolve) => setImmediate(resolve));
        if (total > 17 * 1024 * 1024) throw refused;
      }),
    ).rejects.toBe(refused);
    expect(await bucketKeys(s.objects)).toEqual([]);
  });

  it('renames of a file, a folder and a user and a move change rows only: the same objects stay', async () => {
    await s.storage.createFolder('ana', 'docs');
    await upload(s.storage, 'ana', 'docs', 'a.txt', 'aaa');
    await upload(s.storage, 'ana', null, 'b.txt', 'bbbb');
    const keys = await bucketKeys(s.objects);
    expect(keys).toHaveLength(2);

    await s.storage.renameFile('ana', 'docs', 'a.txt', 'A2.txt');
    await s.storage.renameFolder('ana', 'docs', 'papers');
    await s.storage.moveFile('ana', null, 'b.txt', 'papers');
    addUser(s.store, 'bea');
    await s.storage.renameUser('ana', 'bea');
    s.store.users.delete('ana');
    await s.store.commit();

    expect(await bucketKeys(s.objects)).toEqual(keys);
    expect(s.index.user('ana')).toBeUndefined();
    expect([...s.index.files('bea', 'papers')!.keys()].sort()).toEqual(['A2.txt', 'b.txt']);
    expect([...s.store.files.values()].every((f) => f.username === 'bea')).toBe(true);
    const opened = await s.storage.openFile('bea', 'papers', 'b.txt');
    expect((await opened.read()).toString()).toBe('bbbb');
  });

  it('a folder rename emits what the disk path emits: one folder.moved with the old name in from, none per file', async () => {
    await s.storage.createFolder('ana', 'docs');
    await upload(s.storage, 'ana', 'docs', 'a.txt', 'aaa');
    s.events.length = 0;
    await s.storage.renameFolder('ana', 'docs', 'papers');
    expect(s.events).toEqual([{ type: 'folder.moved', username: 'ana', folder: 'papers', from: 'docs', file: null }]);
    expect(s.index.user('ana')!.folders.get('papers')!.sizeBytes).toBe(3);
  });

  it('names already taken are refused as on disk', async () => {
    await s.storage.createFolder('ana', 'docs');
    await upload(s.storage, 'ana', null, 'a.txt', 'a');
    await upload(s.storage, 'ana', null, 'b.txt', 'b');
    await expect(s.storage.createFolder('ana', 'docs')).rejects.toMatchObject({ code: 'folder_exists' });
    await expect(s.storage.renameFile('ana', null, 'a.txt', 'b.txt')).rejects.toMatchObject({ code: 'file_exists' });
    await expect(s.storage.renameFolder('ana', 'docs', 'a.txt')).rejects.toMatchObject({ code: 'folder_exists' });
    await expect(s.storage.checkUploadTarget('ana', null, 'docs', true)).rejects.toMatchObject({ code: 'file_exists' });
    await expect(s.storage.openFile('ana', null, 'nope.txt')).rejects.toMatchObject({ code: 'file_not_found' });
    await expect(s.storage.checkUploadTarget('ana', 'nope', 'x', false)).rejects.toMatchObject({ code: 'folder_not_found' });
  });

  it('a copy is a new object and row; deletes for good remove rows, then objects', async () => {
    await s.storage.createFolder('ana', 'docs');
    await upload(s.storage, 'ana', null, 'a.txt', 'copy me');
    await s.storage.copyFile('ana', null, 'a.txt', 'docs');
    expect(await bucketKeys(s.objects)).toHaveLength(2);
    expect((await (await s.storage.openFile('ana', 'docs', 'a.txt')).read()).toString()).toBe('copy me');

    await s.storage.deleteFile('ana', null, 'a.txt');
    expect(await bucketKeys(s.objects)).toHaveLength(1);
    await s.storage.deleteFolder('ana', 'docs');
    expect(await bucketKeys(s.objects)).toEqual([]);
    expect(s.store.files.size).toBe(0);
    expect(s.store.folders.size).toBe(0);
    expect(s.index.user('ana')!.folders.size).toBe(0);
  });

  it('the trash keeps rows (and bytes) with a trashId; a restore shows them again; a removal deletes the objects', async () => {
    await s.storage.createFolder('ana', 'docs');
    await upload(s.storage, 'ana', 'docs', 'a.txt', 'aaa');
    await upload(s.storage, 'ana', 'docs', 'b.txt', 'bb');
    await upload(s.storage, 'ana', null, 'c.txt', 'c');
    let movedIn = 0;
    await s.storage.trash.moveIn({ username: 'ana', folder: null, name: 'docs', kind: 'folder', id: 'f'.repeat(32) }, () => movedIn++);
    await s.storage.trash.moveIn({ username: 'ana', folder: null, name: 'c.txt', kind: 'file', id: 'c'.repeat(32) }, () => movedIn++);
    expect(movedIn).toBe(2);
    expect(s.index.user('ana')!.folders.size).toBe(0);
    expect(s.index.user('ana')!.root.size).toBe(0);
    expect(s.index.usedBytes('ana')).toBe(0);
    expect([...s.store.files.values()].every((f) => f.trashId !== null)).toBe(true);
    expect(await bucketKeys(s.objects)).toHaveLength(3);

    const survey = await s.storage.trash.survey(() => true);
    expect(survey.get('ana')!.map(({ id, kind, name, size, fileCount }) => ({ id, kind, name, size, fileCount }))).toEqual(
      expect.arrayContaining([
        { id: 'f'.repeat(32), kind: 'folder', name: 'docs', size: 5, fileCount: 2 },
        { id: 'c'.repeat(32), kind: 'file', name: 'c.txt', size: 1, fileCount: 1 },
      ]),
    );

    // A new file took the name meanwhile: the restore is refused, then made under another name.
    await upload(s.storage, 'ana', null, 'c.txt', 'new');
    const target = { username: 'ana', folder: null, name: 'c.txt', kind: 'file' as const, id: 'c'.repeat(32) };
    await expect(s.storage.trash.restore({ ...target, as: 'c.txt' }, () => undefined)).rejects.toMatchObject({ kind: 'file' });
    let placed: unknown;
    await s.storage.trash.restore({ ...target, as: 'c (restored).txt' }, (what) => (placed = what));
    expect(placed).toEqual({ files: new Map([['c (restored).txt', { size: 1, mtimeMs: expect.any(Number) }]]), folderMtimeMs: null });
    expect((await (await s.storage.openFile('ana', null, 'c (restored).txt')).read()).toString()).toBe('c');

    await s.storage.trash.restore(
      { username: 'ana', folder: null, name: 'docs', kind: 'folder', id: 'f'.repeat(32), as: 'docs' },
      () => undefined,
    );
    expect([...s.index.files('ana', 'docs')!.keys()].sort()).toEqual(['a.txt', 'b.txt']);

    await s.storage.trash.moveIn({ username: 'ana', folder: null, name: 'docs', kind: 'folder', id: 'e'.repeat(32) }, () => undefined);
    await s.storage.trash.removeItem('ana', 'e'.repeat(32));
    expect(await bucketKeys(s.objects)).toHaveLength(2);
    expect([...s.store.folders.values()]).toEqual([]);
  });

  it('a file whose folder is gone comes back into the folder made again', async () => {
    await s.storage.createFolder('ana', 'docs');
    await upload(s.storage, 'ana', 'docs', 'a.txt', 'aaa');
    await s.storage.trash.moveIn({ username: 'ana', folder: 'docs', name: 'a.txt', kind: 'file', id: 'a'.repeat(32) }, () => undefined);
    await s.storage.deleteFolder('ana', 'docs');
    expect(await bucketKeys(s.objects)).toHaveLength(1);
    await s.storage.trash.restore(
      { username: 'ana', folder: 'docs', name: 'a.txt', kind: 'file', id: 'a'.repeat(32), as: 'a.txt' },
      () => undefined,
    );
    expect(s.index.getFile('ana', 'docs', 'a.txt')?.size).toBe(3);
  });

  it('a daemon started again builds the same index from the rows (the trash left out)', async () => {
    await s.storage.createFolder('ana', 'docs');
    await upload(s.storage, 'ana', 'docs', 'a.txt', 'aaa');
    await upload(s.storage, 'ana', null, 'b.txt', 'bb');
    await s.storage.trash.moveIn({ username: 'ana', folder: null, name: 'b.txt', kind: 'file', id: 'b'.repeat(32) }, () => undefined);
    s.storage.close();
    await s.store.close();
    const again = await openStorage(s.dir, s.objects);
    try {
      expect(again.index.state).toBe('ready');
      expect([...again.index.files('ana', 'docs')!.keys()]).toEqual(['a.txt']);
      expect(again.index.files('ana', null)!.size).toBe(0);
      expect(again.index.usedBytes('ana')).toBe(3);
    } finally {
      again.storage.close();
      s.store = again.store;
    }
  });

  it('the sweeper deletes old objects no row names and keeps named and young ones', async () => {
    await upload(s.storage, 'ana', null, 'kept.txt', 'kept');
    const orphan = await s.storage.receive(Readable.from([Buffer.from('orphan')]), () => undefined);
    expect(await bucketKeys(s.objects)).toHaveLength(2);

    const patient = new Sweeper({ objects: s.objects, store: s.store, database: null, log: () => undefined });
    expect(await patient.sweep()).toEqual({ ran: true, listed: 2, deleted: 0, young: 1 });

    const eager = new Sweeper({ objects: s.objects, store: s.store, database: null, log: () => undefined, minAgeMs: -60_000 });
    expect(await eager.sweep()).toEqual({ ran: true, listed: 2, deleted: 1, young: 0 });
    const keys = await bucketKeys(s.objects);
    expect(keys).toEqual([`files/${[...s.store.files.keys()][0]}`]);
    expect(keys).not.toContain(orphan.ref);
  });

  it('the sweeper keeps an object that a kept version names, though no file row does (docs/versions.md)', async () => {
    await upload(s.storage, 'ana', null, 'old.txt', 'old content');
    const row = [...s.store.files.values()].find((f) => f.name === 'old.txt')!;
    // What an overwrite keeping a version commits: the file's row goes, a version names its object.
    s.store.files.delete(row.id);
    const id = 'ab'.repeat(16);
    s.store.collection('versions').set(id, {
      id,
      username: 'ana',
      folder: null,
      file: 'old.txt',
      size: row.size,
      mtimeMs: row.mtimeMs,
      keptAt: new Date().toISOString(),
      objectId: row.id,
      etag: row.etag,
    });
    await s.store.commit();
    const eager = new Sweeper({ objects: s.objects, store: s.store, database: null, log: () => undefined, minAgeMs: -60_000 });
    await eager.sweep();
    expect(await bucketKeys(s.objects)).toContain(`files/${row.id}`);
  });

  it('startObjectMode (db.json): a bucket made if missing, the index ready from the rows, the in-memory ledger, a sweeper, a probe', async () => {
    await upload(s.storage, 'ana', null, 'a.txt', 'aaa');
    s.storage.close();
    const engine = await sharedS3();
    const bucket = `nimbus-new-${Date.now().toString(16)}`;
    const index = new FileIndex();
    const mode = await startObjectMode({
      store: s.store,
      index,
      s3: {
        endpoint: engine.endpoint,
        region: engine.region,
        accessKeyId: engine.accessKeyId,
        secretAccessKey: engine.secretAccessKey,
        bucket,
        forcePathStyle: true,
      },
      log: () => undefined,
    });
    try {
      expect(index.state).toBe('ready');
      expect(index.getFile('ana', null, 'a.txt')?.size).toBe(3);
      expect(mode.quota).toBeInstanceOf(MemoryQuotaLedger);
      await mode.probe.check();
      expect(await mode.sweeper.sweep()).toMatchObject({ ran: true });
    } finally {
      await mode.close();
    }
  });
});
