/**
 * The services (files, transfers, trash) on ObjectStorage, as the daemon will call them in
 * object mode: the quota refuses before anything stays in the bucket, the trash counts and
 * comes back, copies are new objects, shares follow renames. Then two daemons on one
 * PostgreSQL database and bucket racing uploads for the last bytes of a quota: never passed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { NimbusContext } from '../../daemon/context.js';
import { ChangeFeed } from '../../daemon/storage/change-feed.js';
import { uploadFile } from '../../daemon/services/files.js';
import { MemoryQuotaLedger, type QuotaLedger } from '../../daemon/services/quota.js';
import { usedBytesOf } from '../../daemon/services/records.js';
import { copyFile, renameFolder } from '../../daemon/services/transfers.js';
import { adoptTrash, deleteItem, listTrash, restoreItem, trashFile, trashFolder } from '../../daemon/services/trash.js';
import { ObjectStorage } from '../../daemon/storage/cluster/object-storage.js';
import { PgQuotaLedger } from '../../daemon/services/pg-quota.js';
import { FileIndex } from '../../daemon/storage/file-index.js';
import type { ObjectStore } from '../../daemon/storage/objects/object-store.js';
import { S3ObjectStore } from '../../daemon/storage/objects/s3-store.js';
import { MIGRATIONS } from '../../daemon/store/postgres/migrations/index.js';
import reservations from '../../daemon/store/postgres/migrations/002-reservations.js';
import { sharePathKey, Store } from '../../daemon/store/store.js';
import { KeyedMutex } from '../../daemon/util/mutex.js';
import { sharedPostgres, sharedS3 } from '../helpers/engines.js';

const MIB = 1024 * 1024;

/** What the services read of the daemon's context. */
function contextOf(store: Store, objects: ObjectStore, quota: QuotaLedger, dataDir: string): NimbusContext {
  const index = new FileIndex();
  const storage = new ObjectStorage({ store, index, objects, log: () => undefined });
  storage.open();
  const context = {
    config: { dataDir, trashDays: 30 },
    store,
    index,
    changes: new ChangeFeed(),
    storage,
    quota,
    locks: new KeyedMutex(),
    log: () => undefined,
    baseUrl: 'http://127.0.0.1',
  };
  return context as unknown as NimbusContext;
}

async function bucketKeys(objects: ObjectStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of objects.list('files/')) keys.push(object.key);
  return keys.sort();
}

const put = (nimbus: NimbusContext, file: string, bytes: number | string, folder: string | null = null, declared = true) => {
  const body = typeof bytes === 'string' ? Buffer.from(bytes) : Buffer.alloc(bytes, 1);
  return uploadFile(nimbus, {
    username: 'ana',
    folder,
    file,
    overwrite: false,
    declaredLength: declared ? body.length : null,
    body: Readable.from([body]),
  });
};

function addAna(store: Store, maxStorageMiB: number): void {
  store.roles.set('tiny', { name: 'tiny', maxStorage: maxStorageMiB, badge: '', builtIn: false });
  store.users.set('ana', {
    username: 'ana',
    email: 'ana@example.com',
    role: 'tiny',
    emailVerified: true,
    createdAt: new Date().toISOString(),
  } as never);
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('services on ObjectStorage (db.json + Swift)', () => {
  async function setup(maxStorageMiB = 1) {
    const dir = await mkdtemp(path.join(tmpdir(), 'nimbus-object-services-'));
    const store = new Store(path.join(dir, 'db.json'));
    await store.open();
    const s3 = await sharedS3();
    const objects = new S3ObjectStore({ ...s3, forcePathStyle: true, bucket: await s3.createBucket() });
    addAna(store, maxStorageMiB);
    await store.commit();
    const nimbus = contextOf(store, objects, new MemoryQuotaLedger(), dir);
    await nimbus.storage.ensureUserDir('ana');
    cleanups.push(async () => {
      (nimbus.storage as ObjectStorage).close();
      await store.close();
      objects.close();
      await rm(dir, { recursive: true, force: true });
    });
    return { nimbus, store, objects };
  }

  it('the quota refuses an upload (declared or streamed) before anything stays in the bucket; the trash counts', async () => {
    const { nimbus, objects } = await setup(1);
    await put(nimbus, 'a.bin', 700 * 1024);
    await expect(put(nimbus, 'b.bin', 400 * 1024)).rejects.toMatchObject({ code: 'quota_exceeded' });
    await expect(put(nimbus, 'c.bin', 400 * 1024, null, false)).rejects.toMatchObject({ code: 'quota_exceeded' });
    expect(await bucketKeys(objects)).toHaveLength(1);

    const id = await trashFile(nimbus, 'ana', null, 'a.bin');
    expect(listTrash(nimbus, 'ana')).toMatchObject([{ id, kind: 'file', name: 'a.bin', size: 700 * 1024 }]);
    expect(usedBytesOf(nimbus, 'ana')).toBe(700 * 1024);
    // In the trash it still counts.
    await expect(put(nimbus, 'b.bin', 400 * 1024)).rejects.toMatchObject({ code: 'quota_exceeded' });
    await deleteItem(nimbus, 'ana', id);
    expect(await bucketKeys(objects)).toEqual([]);
    await put(nimbus, 'b.bin', 400 * 1024);
    expect(usedBytesOf(nimbus, 'ana')).toBe(400 * 1024);
  });

  it('a folder in the trash comes back; a file restored beside a newer one takes "(restored)"; nothing to adopt at start', async () => {
    const { nimbus } = await setup(10);
    await nimbus.storage.createFolder('ana', 'docs');
    await put(nimbus, 'a.txt', 'aaa', 'docs');
    await put(nimbus, 'b.txt', 'bb');
    const folderItem = await trashFolder(nimbus, 'ana', 'docs');
    const fileItem = await trashFile(nimbus, 'ana', null, 'b.txt');
    expect(listTrash(nimbus, 'ana').map((t) => [t.kind, t.name, t.size, t.fileCount])).toEqual(
      expect.arrayContaining([
        ['folder', 'docs', 3, 1],
        ['file', 'b.txt', 2, 1],
      ]),
    );
    expect(await adoptTrash(nimbus)).toEqual({ adopted: 0, dropped: 0 });
    await put(nimbus, 'b.txt', 'newer');
    await expect(restoreItem(nimbus, 'ana', fileItem, false)).rejects.toMatchObject({ code: 'file_exists' });
    expect(await restoreItem(nimbus, 'ana', fileItem, true)).toEqual({ kind: 'file', name: 'b (restored).txt', folder: null });
    expect(await restoreItem(nimbus, 'ana', folderItem, false)).toEqual({ kind: 'folder', name: 'docs', folder: null });
    expect(nimbus.index.getFile('ana', 'docs', 'a.txt')?.size).toBe(3);
    expect(listTrash(nimbus, 'ana')).toEqual([]);
  });

  it('a copy is a new object with the same bytes; a folder rename keeps the objects and moves the shares', async () => {
    const { nimbus, store, objects } = await setup(10);
    await nimbus.storage.createFolder('ana', 'docs');
    await put(nimbus, 'a.txt', 'copy me', 'docs');
    await copyFile(nimbus, 'ana', 'docs', 'a.txt', null);
    expect(await bucketKeys(objects)).toHaveLength(2);
    expect((await (await nimbus.storage.openFile('ana', null, 'a.txt')).read()).toString()).toBe('copy me');

    const share = { token: 't'.repeat(32), username: 'ana', folder: 'docs', file: 'a.txt', createdAt: new Date().toISOString() };
    store.putShare(share as never);
    await store.commit();
    const before = await bucketKeys(objects);
    await renameFolder(nimbus, 'ana', 'docs', 'papers');
    expect(await bucketKeys(objects)).toEqual(before);
    expect(store.sharesByPath.get(sharePathKey('ana', 'papers', 'a.txt'))?.token).toBe(share.token);
    expect(nimbus.index.getFile('ana', 'papers', 'a.txt')?.size).toBe(7);
  });
});

describe('services on ObjectStorage, two daemons (PostgreSQL + Swift)', () => {
  it('uploads through A and B racing for the last bytes of the quota never pass it together', async () => {
    const url = await (await sharedPostgres()).createDatabase();
    const s3 = await sharedS3();
    const bucket = await s3.createBucket();
    const dir = await mkdtemp(path.join(tmpdir(), 'nimbus-object-services-'));
    const daemons: NimbusContext[] = [];
    for (let i = 0; i < 2; i++) {
      const store = await Store.openPostgres(url);
      if (i === 0 && !MIGRATIONS.some((m) => m.version === reservations.version)) await store.database!.query(reservations.sql);
      const objects = new S3ObjectStore({ ...s3, forcePathStyle: true, bucket });
      const ledger = new PgQuotaLedger(store.database!);
      daemons.push(contextOf(store, objects, ledger, dir));
      cleanups.push(async () => {
        ledger.close();
        (daemons[i].storage as ObjectStorage).close();
        await store.close();
        objects.close();
      });
    }
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const [a, b] = daemons;
    addAna(a.store, 1);
    await a.store.commit();
    await a.storage.ensureUserDir('ana');
    await b.storage.ensureUserDir('ana');
    // Wait until B has the user and the role (another daemon's commit arrives by NOTIFY).
    for (let i = 0; i < 200 && !b.store.users.has('ana'); i++) await new Promise((r) => setTimeout(r, 25));

    // Six uploads of 300 KiB (three through each daemon, half of them without a length): 1 MiB holds three.
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => put(i % 2 === 0 ? a : b, `f${i}.bin`, 300 * 1024, null, i < 3)),
    );
    const stored = results.filter((r) => r.status === 'fulfilled').length;
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'quota_exceeded' });
    // Refused ones held their bytes for a moment too (counted twice, never zero times), so fewer may fit; never more.
    expect(stored).toBeGreaterThanOrEqual(1);
    expect(stored).toBeLessThanOrEqual(3);
    const { rows } = await a.store.database!.query<{ used: string }>(
      `SELECT coalesce(sum(size), 0) AS used FROM files WHERE username = 'ana'`,
    );
    expect(Number(rows[0].used)).toBeLessThanOrEqual(MIB);
    expect(Number(rows[0].used)).toBe(stored * 300 * 1024);
    expect(await bucketKeys((a.storage as ObjectStorage).objects)).toHaveLength(stored);
    const left = await a.store.database!.query(`SELECT count(*)::int AS n FROM reservations`);
    expect(left.rows[0]).toEqual({ n: 0 });
  });
});
