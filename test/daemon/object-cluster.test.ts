/**
 * Two ObjectStorages on one PostgreSQL database and one bucket, as two daemons of a cluster
 * (docs/cluster.md): what one uploads the other's index shows (with the same events); renames
 * leave the bucket alone; two uploads of one new name end with one file and one object; the
 * quota, raced from both, is never passed; a dead daemon's reservations expire; one sweeper at
 * a time deletes orphans and keeps what rows name.
 */
import { Readable } from 'node:stream';
import type { PoolClient } from 'pg';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChangeEvent } from '../../shared/types.js';
import { startObjectMode } from '../../daemon/object-mode.js';
import { ObjectStorage } from '../../daemon/storage/cluster/object-storage.js';
import { PgQuotaLedger } from '../../daemon/services/pg-quota.js';
import { Sweeper } from '../../daemon/storage/cluster/sweeper.js';
import { FileIndex } from '../../daemon/storage/file-index.js';
import type { ObjectStore } from '../../daemon/storage/objects/object-store.js';
import { S3ObjectStore } from '../../daemon/storage/objects/s3-store.js';
import { Database } from '../../daemon/store/postgres/database.js';
import { MIGRATIONS } from '../../daemon/store/postgres/migrations/index.js';
import reservations from '../../daemon/store/postgres/migrations/002-reservations.js';
import type { StoredFile } from '../../daemon/store/schema.js';
import { Store } from '../../daemon/store/store.js';
import { sharedPostgres, sharedS3, startPostgres } from '../helpers/engines.js';

const MIB = 1024 * 1024;

interface Daemon {
  store: Store;
  index: FileIndex;
  objects: ObjectStore;
  storage: ObjectStorage;
  events: ChangeEvent[];
  database: Database;
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
  return { store, index, objects, storage, events, database: store.database! };
}

async function bucketKeys(objects: ObjectStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of objects.list('files/')) keys.push(object.key);
  return keys.sort();
}

async function upload(storage: ObjectStorage, username: string, folder: string | null, file: string, body: Buffer | string) {
  await storage.checkUploadTarget(username, folder, file, false);
  const ticket = storage.beginUpload(username, folder);
  try {
    const received = await storage.receive(Readable.from([Buffer.from(body)]), () => undefined);
    return await storage.placeUpload(received, ticket, file, false, () => true);
  } finally {
    storage.endUpload(ticket);
  }
}

/** `keepAs`: the replaced file's object stays, its row the version record of that id. */
async function overwrite(storage: ObjectStorage, username: string, folder: string | null, file: string, body: string, keepAs?: string) {
  const ticket = storage.beginUpload(username, folder);
  try {
    const received = await storage.receive(Readable.from([Buffer.from(body)]), () => undefined);
    return await storage.placeUpload(received, ticket, file, true, () => true, keepAs === undefined ? undefined : { id: keepAs, path: '' });
  } finally {
    storage.endUpload(ticket);
  }
}

/** The gates of held reads, opened at each test's end: a daemon that wrote nothing more must still close. */
const heldReads: (() => void)[] = [];

/**
 * Holds `d`'s reads of other daemons' rows (the follower's snapshots) until its next write has
 * been answered: `d` writes without having heard of what the others just committed.
 */
function holdReadsUntilNextWrite(d: Daemon): void {
  const { database } = d;
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  heldReads.push(open);
  const query = database.query.bind(database);
  const transaction = database.transaction.bind(database);
  database.query = ((text: string, values?: unknown[]) => query(text, values).finally(open)) as typeof database.query;
  database.transaction = (async (fn: (client: PoolClient) => Promise<unknown>) => {
    let reads = false;
    const held = transaction((client) => {
      const gated = new Proxy(client, {
        get(target, key) {
          if (key !== 'query') return Reflect.get(target, key) as unknown;
          return async (text: unknown, ...rest: unknown[]) => {
            if (typeof text === 'string' && text.includes('READ ONLY')) {
              reads = true;
              await gate;
            }
            return (target.query as (...args: unknown[]) => Promise<unknown>)(text, ...rest);
          };
        },
      });
      return fn(gated);
    });
    return held.finally(() => {
      if (!reads) open();
    });
  }) as typeof database.transaction;
}

let a: Daemon;
let b: Daemon;

/** A file uploaded and put in the trash (as item `id`) through A, seen in the trash by B; then B's reads are held until its next write. */
async function trashedThroughA(id: string, name: string, body: string): Promise<void> {
  await upload(a.storage, 'ana', null, name, body);
  await a.storage.trash.moveIn({ username: 'ana', folder: null, name, kind: 'file', id }, () => undefined);
  await vi.waitFor(() => expect(b.storage.rows.inTrash(id, 'ana').files).toHaveLength(1));
  holdReadsUntilNextWrite(b);
}
const ledgers: PgQuotaLedger[] = [];

describe('ObjectStorage, two daemons (PostgreSQL + Swift)', () => {
  beforeEach(async () => {
    const url = await (await sharedPostgres()).createDatabase();
    const bucket = await (await sharedS3()).createBucket();
    a = await startDaemon(url, bucket);
    // Until migrations/index.ts lists 002, the table is made here (the same SQL).
    if (!MIGRATIONS.some((m) => m.version === reservations.version)) await a.database.query(reservations.sql);
    b = await startDaemon(url, bucket);
    a.store.users.set('ana', {
      username: 'ana',
      email: 'ana@example.com',
      role: 'user',
      emailVerified: true,
      createdAt: new Date().toISOString(),
    } as never);
    await a.store.commit();
    await a.storage.ensureUserDir('ana');
    await vi.waitFor(() => expect(b.index.user('ana')).toBeDefined());
  });

  afterEach(async () => {
    // A read still held (the daemon made no write after it, as some interleavings allow) would
    // keep its store from closing: CI saw this hook time out after the purge race's test.
    for (const open of heldReads.splice(0)) open();
    for (const ledger of ledgers.splice(0)) ledger.close();
    for (const d of [a, b]) {
      d.storage.close();
      await d.store.close();
      d.objects.close();
    }
  });

  it('an upload through A shows in B’s index with the same events; B reads its bytes', async () => {
    await a.storage.createFolder('ana', 'docs');
    await upload(a.storage, 'ana', 'docs', 'a.txt', 'from A');
    await vi.waitFor(() => expect(b.index.getFile('ana', 'docs', 'a.txt')?.size).toBe(6));
    expect(b.events).toEqual(
      expect.arrayContaining([
        { type: 'folder.added', username: 'ana', folder: 'docs', file: null },
        { type: 'file.added', username: 'ana', folder: 'docs', file: 'a.txt' },
      ]),
    );
    expect((await (await b.storage.openFile('ana', 'docs', 'a.txt')).read()).toString()).toBe('from A');
  });

  it('renames through A change rows only: the bucket holds the same objects, B sees the new names', async () => {
    await a.storage.createFolder('ana', 'docs');
    await upload(a.storage, 'ana', 'docs', 'a.txt', 'aaa');
    await upload(a.storage, 'ana', null, 'b.txt', 'bb');
    const before = await bucketKeys(a.objects);
    await a.storage.renameFolder('ana', 'docs', 'papers');
    await a.storage.renameFile('ana', null, 'b.txt', 'c.txt');
    expect(await bucketKeys(a.objects)).toEqual(before);
    await vi.waitFor(() => {
      expect(b.index.getFile('ana', 'papers', 'a.txt')?.size).toBe(3);
      expect(b.index.getFile('ana', null, 'c.txt')?.size).toBe(2);
    });
    expect(b.index.user('ana')!.folders.has('docs')).toBe(false);
    expect(b.index.getFile('ana', null, 'b.txt')).toBeUndefined();
  });

  it('A’s trash, restore, overwrite and user delete show in B’s index', async () => {
    await a.storage.createFolder('ana', 'docs');
    await upload(a.storage, 'ana', 'docs', 'a.txt', 'aaa');
    await vi.waitFor(() => expect(b.index.getFile('ana', 'docs', 'a.txt')).toBeDefined());
    const id = 'd'.repeat(32);
    await a.storage.trash.moveIn({ username: 'ana', folder: null, name: 'docs', kind: 'folder', id }, () => undefined);
    await vi.waitFor(() => expect(b.index.user('ana')!.folders.has('docs')).toBe(false));
    expect(b.index.usedBytes('ana')).toBe(0);
    await a.storage.trash.restore({ username: 'ana', folder: null, name: 'docs', kind: 'folder', id, as: 'docs' }, () => undefined);
    await vi.waitFor(() => expect(b.index.getFile('ana', 'docs', 'a.txt')?.size).toBe(3));

    await overwrite(a.storage, 'ana', 'docs', 'a.txt', 'longer');
    await vi.waitFor(() => expect(b.index.getFile('ana', 'docs', 'a.txt')?.size).toBe(6));
    expect((await (await b.storage.openFile('ana', 'docs', 'a.txt')).read()).toString()).toBe('longer');
    expect(await bucketKeys(a.objects)).toHaveLength(1);

    await a.storage.deleteUser('ana');
    a.store.users.delete('ana');
    await a.store.commit();
    await vi.waitFor(() => expect(b.index.user('ana')).toBeUndefined());
    expect(await bucketKeys(a.objects)).toEqual([]);
  });

  it('the same new name uploaded through A and B at once: one file, one object, the other a 409', async () => {
    const results = await Promise.allSettled([
      upload(a.storage, 'ana', null, 'same.txt', 'AAAA'),
      upload(b.storage, 'ana', null, 'same.txt', 'BBBBBB'),
    ]);
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({ code: expect.stringMatching(/^(conflict|file_exists)$/) });
    const rows = [...(await a.database.query<{ key: string }>('SELECT key FROM files')).rows];
    expect(rows).toHaveLength(1);
    expect(await bucketKeys(a.objects)).toEqual([`files/${rows[0].key}`]);
  });

  it('an overwrite through B of a file A made a moment ago, before B heard of it, replaces it: B catches up, not a 409', async () => {
    // The cluster soak saw the 409: a client's upload through one daemon, then its overwrite through another.
    holdReadsUntilNextWrite(b);
    await upload(a.storage, 'ana', null, 'fresh.txt', 'first');
    expect(b.index.getFile('ana', null, 'fresh.txt')).toBeUndefined();
    const meta = await overwrite(b.storage, 'ana', null, 'fresh.txt', 'second');
    expect(meta.size).toBe(6);
    const rows = (await a.database.query<{ key: string }>('SELECT key FROM files')).rows;
    expect(rows).toHaveLength(1);
    expect(await bucketKeys(a.objects)).toEqual([`files/${rows[0].key}`]);
    await vi.waitFor(() => expect(a.index.getFile('ana', null, 'fresh.txt')?.size).toBe(6));
    expect((await (await a.storage.openFile('ana', null, 'fresh.txt')).read()).toString()).toBe('second');

    // Without overwrite, the answer after catching up is the right one: the name is taken; nothing is left behind.
    holdReadsUntilNextWrite(a);
    await upload(b.storage, 'ana', null, 'taken.txt', 'from B');
    await expect(upload(a.storage, 'ana', null, 'taken.txt', 'from A')).rejects.toMatchObject({ code: 'file_exists' });
    const named = (await a.database.query<{ key: string }>('SELECT key FROM files')).rows.map((r) => `files/${r.key}`);
    expect(named).toHaveLength(2);
    expect(await bucketKeys(a.objects)).toEqual(named.sort());
  });

  it('a rename, move, trash or delete through B of a file A has just overwritten, before B heard of it, acts on the new file: not a 409', async () => {
    // The cluster soak saw the 409: an overwrite through one daemon replaces the file's row (the
    // old one becomes its version), then the same client's rename through another daemon updated the old row.
    await a.storage.createFolder('ana', 'docs');
    const trashId = 'trash-item-1';
    const steps: [string, (file: string) => Promise<unknown>, string | null, string][] = [
      ['rename', (file) => b.storage.renameFile('ana', null, file, `${file}.renamed`), null, 'renamed'],
      ['move', (file) => b.storage.moveFile('ana', null, file, 'docs'), 'docs', ''],
      [
        'trash',
        (file) => b.storage.trash.moveIn({ username: 'ana', folder: null, name: file, kind: 'file', id: trashId }, () => undefined),
        null,
        'trashed',
      ],
      ['delete', (file) => b.storage.deleteFile('ana', null, file), null, 'deleted'],
    ];
    for (const [step, act, folder, suffix] of steps) {
      const file = `${step}.txt`;
      await upload(a.storage, 'ana', null, file, 'first');
      await vi.waitFor(() => expect(b.index.getFile('ana', null, file)?.size).toBe(5));
      holdReadsUntilNextWrite(b);
      await overwrite(a.storage, 'ana', null, file, 'second!', `version-of-${step}`);
      expect(b.index.getFile('ana', null, file)?.size, step).toBe(5);
      await act(file);
      const rows = (
        await a.database.query<{ key: string; value: StoredFile }>("SELECT key, data AS value FROM files WHERE data->>'name' LIKE $1", [
          `${file}%`,
        ])
      ).rows;
      if (suffix === 'deleted') expect(rows, step).toEqual([]);
      else {
        expect(rows, step).toHaveLength(1);
        expect(rows[0].value.size, step).toBe(7);
        if (suffix === 'renamed') expect(rows[0].value.name).toBe(`${file}.renamed`);
        if (suffix === 'trashed') expect(rows[0].value.trashId).toBe(trashId);
        if (folder !== null) expect(rows[0].value.folderId).toBe(a.storage.rows.folderId('ana', folder));
      }
      expect(b.index.getFile('ana', null, file), step).toBeUndefined();
    }
    // Each overwrite kept the replaced object as a version: none was deleted with a row it no longer belonged to.
    const kept = (await a.database.query<{ id: string }>("SELECT data->>'objectId' AS id FROM versions")).rows.map((r) => `files/${r.id}`);
    expect(kept).toHaveLength(steps.length);
    const inBucket = await bucketKeys(a.objects);
    for (const key of kept) expect(inBucket).toContain(key);
  });

  it('a rename through B of a file A has just moved, before B heard of it, renames it where it is now: the move is not undone', async () => {
    await a.storage.createFolder('ana', 'docs');
    await upload(a.storage, 'ana', null, 'wander.txt', 'here');
    await vi.waitFor(() => expect(b.index.getFile('ana', null, 'wander.txt')?.size).toBe(4));
    holdReadsUntilNextWrite(b);
    await a.storage.moveFile('ana', null, 'wander.txt', 'docs');
    expect(b.index.getFile('ana', null, 'wander.txt')?.size).toBe(4);
    // B renames what it still sees at the root: caught up, the file is no longer there (404), and stays moved.
    await expect(b.storage.renameFile('ana', null, 'wander.txt', 'renamed.txt')).rejects.toMatchObject({ code: 'file_not_found' });
    const rows = (
      await a.database.query<{ name: string; folder: string | null }>(
        "SELECT data->>'name' AS name, data->>'folderId' AS folder FROM files",
      )
    ).rows;
    expect(rows).toEqual([{ name: 'wander.txt', folder: a.storage.rows.folderId('ana', 'docs') }]);
    await vi.waitFor(() => expect(b.index.getFile('ana', 'docs', 'wander.txt')?.size).toBe(4));
  });

  it('an overwrite through B of a name A has just renamed away, before B heard of it, makes a new file: the renamed one stays', async () => {
    await upload(a.storage, 'ana', null, 'old-name.txt', 'kept');
    await vi.waitFor(() => expect(b.index.getFile('ana', null, 'old-name.txt')?.size).toBe(4));
    holdReadsUntilNextWrite(b);
    await a.storage.renameFile('ana', null, 'old-name.txt', 'new-name.txt');
    expect(b.index.getFile('ana', null, 'old-name.txt')?.size).toBe(4);
    await overwrite(b.storage, 'ana', null, 'old-name.txt', 'made anew', 'never-kept');
    const rows = (
      await a.database.query<{ name: string; size: number }>("SELECT data->>'name' AS name, (data->>'size')::int AS size FROM files")
    ).rows;
    expect(rows.sort((x, y) => x.name.localeCompare(y.name))).toEqual([
      { name: 'new-name.txt', size: 4 },
      { name: 'old-name.txt', size: 9 },
    ]);
    expect((await a.database.query('SELECT 1 FROM versions')).rows).toEqual([]);
    const named = (await a.database.query<{ key: string }>('SELECT key FROM files')).rows.map((r) => `files/${r.key}`);
    expect(await bucketKeys(a.objects)).toEqual(named.sort());
  });

  it('a purge through B of a trash item A has just restored, before B heard of it, deletes nothing: the restored file keeps its bytes', async () => {
    // The trash's upkeep (or "empty the trash") on one daemon, a restore of the same item on another.
    const id = 'trash-item-restored';
    await trashedThroughA(id, 'keep.txt', 'restored bytes');
    await a.storage.trash.restore({ username: 'ana', folder: null, name: 'keep.txt', kind: 'file', id, as: 'keep.txt' }, () => undefined);
    expect(b.storage.rows.inTrash(id, 'ana').files).toHaveLength(1);
    // B's rows still show the item in the trash: caught up, they no longer do, and nothing is deleted.
    await b.storage.trash.removeItem('ana', id);
    const rows = (await a.database.query<{ key: string; value: StoredFile }>('SELECT key, data AS value FROM files')).rows;
    expect(rows.map((r) => [r.value.name, r.value.trashId])).toEqual([['keep.txt', null]]);
    expect(await bucketKeys(a.objects)).toEqual([`files/${rows[0].key}`]);
    await vi.waitFor(() => expect(b.index.getFile('ana', null, 'keep.txt')?.size).toBe(14));
    expect((await (await b.storage.openFile('ana', null, 'keep.txt')).read()).toString()).toBe('restored bytes');
  });

  it('a purge of one trash item through A and B at once deletes its rows and object once, and neither fails', async () => {
    const id = 'trash-item-purged';
    await trashedThroughA(id, 'gone.txt', 'bytes');
    await a.storage.trash.removeItem('ana', id);
    await b.storage.trash.removeItem('ana', id);
    expect((await a.database.query('SELECT 1 FROM files')).rows).toEqual([]);
    expect(await bucketKeys(a.objects)).toEqual([]);
  });

  it('reservations raced from A and B never pass the quota together; the files’ sizes count', async () => {
    await upload(a.storage, 'ana', null, 'two.bin', Buffer.alloc(2 * MIB));
    const onA = new PgQuotaLedger(a.database);
    const onB = new PgQuotaLedger(b.database);
    ledgers.push(onA, onB);
    const max = 10 * MIB;
    const attempts = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? onA : onB).reserve('ana', 3 * MIB, max, 0, 0));
    const results = await Promise.allSettled(attempts);
    const held = results.filter((r) => r.status === 'fulfilled');
    // 2 MiB of files + 2 × 3 MiB fits in 10 MiB; a third would not.
    expect(held).toHaveLength(2);
    for (const r of results.filter((x) => x.status === 'rejected'))
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'quota_exceeded' });
    expect(await onB.usedBytes('ana')).toBe(8 * MIB);
    // Growing past the quota is refused too; what an overwrite frees counts.
    const first = (held[0] as PromiseFulfilledResult<Awaited<ReturnType<PgQuotaLedger['reserve']>>>).value;
    await expect(onA.grow(first, 3 * MIB, max, 0, 0)).rejects.toMatchObject({ code: 'quota_exceeded' });
    await onA.grow(first, 3 * MIB, max, 0, 2 * MIB);
    for (const r of held)
      await (first === (r as PromiseFulfilledResult<typeof first>).value ? onA : onB).release(
        (r as PromiseFulfilledResult<typeof first>).value,
      );
    expect(await onA.usedBytes('ana')).toBe(2 * MIB);
  });

  it('a dead daemon’s reservation expires and stops counting', async () => {
    const dead = new PgQuotaLedger(b.database, { ttlMs: 300 });
    ledgers.push(dead);
    await dead.reserve('ana', 9 * MIB, 10 * MIB, 0, 0);
    dead.close();
    const onA = new PgQuotaLedger(a.database);
    ledgers.push(onA);
    await vi.waitFor(async () => expect(await onA.usedBytes('ana')).toBe(0), { timeout: 10_000, interval: 100 });
    const held = await onA.reserve('ana', 9 * MIB, 10 * MIB, 0, 0);
    await onA.release(held);
  });

  it('sweepers on A and B at once: orphans deleted once, objects rows name kept', async () => {
    await upload(a.storage, 'ana', null, 'kept.txt', 'kept');
    const orphanA = await a.storage.receive(Readable.from([Buffer.from('orphan a')]), () => undefined);
    const orphanB = await b.storage.receive(Readable.from([Buffer.from('orphan b')]), () => undefined);
    const sweeper = (d: Daemon) =>
      new Sweeper({ objects: d.objects, store: d.store, database: d.database, log: () => undefined, minAgeMs: -60_000 });
    const results = await Promise.all([sweeper(a).sweep(), sweeper(b).sweep()]);
    expect(results.some((r) => r.ran)).toBe(true);
    expect(results.reduce((n, r) => n + r.deleted, 0)).toBe(2);
    const keys = await bucketKeys(a.objects);
    expect(keys).toHaveLength(1);
    expect(keys).not.toContain(orphanA.ref);
    expect(keys).not.toContain(orphanB.ref);
    expect((await (await b.storage.openFile('ana', null, 'kept.txt')).read()).toString()).toBe('kept');
  });

  it('startObjectMode with PostgreSQL: the shared ledger, an index from the database’s rows', async () => {
    await upload(a.storage, 'ana', null, 'a.txt', 'aaa');
    const index = new FileIndex();
    const mode = await startObjectMode({ store: b.store, index, s3: b.objects, log: () => undefined, sweeper: { intervalMs: 60_000 } });
    try {
      await vi.waitFor(() => expect(index.getFile('ana', null, 'a.txt')?.size).toBe(3));
      expect(mode.quota).toBeInstanceOf(PgQuotaLedger);
      const held = await mode.quota.reserve('ana', 5, 100, 0, 0);
      expect(await (mode.quota as PgQuotaLedger).usedBytes('ana')).toBe(8);
      await mode.quota.release(held);
    } finally {
      await mode.sweeper.stop();
      (mode.quota as PgQuotaLedger).close();
      mode.storage.close();
    }
  });
});

describe('PgQuotaLedger while the database is away', () => {
  it('a reservation answers 503 database_unavailable; a release does not fail the upload; both work again once it is back', async () => {
    const server = await startPostgres();
    const database = await Database.connect(await server.createDatabase());
    const ledger = new PgQuotaLedger(database);
    try {
      await database.query(reservations.sql);
      await database.query('CREATE TABLE files (key text PRIMARY KEY, username text, size bigint)');
      await database.query('CREATE TABLE versions (key text PRIMARY KEY, data jsonb NOT NULL, username text)');
      const held = await ledger.reserve('ana', 10, 100, 0, 0);
      await server.stop();
      await expect(ledger.reserve('ana', 10, 100, 0, 0)).rejects.toMatchObject({ code: 'database_unavailable' });
      await ledger.release(held);
      await server.restart();
      await vi.waitFor(async () => expect(await ledger.usedBytes('ana')).toBe(10), { timeout: 10_000, interval: 200 });
      const again = await ledger.reserve('ana', 10, 100, 0, 0);
      expect(await ledger.usedBytes('ana')).toBe(20);
      await ledger.release(again);
    } finally {
      ledger.close();
      await database.close().catch(() => undefined);
      await server.close();
    }
  });
});
