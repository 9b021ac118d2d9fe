/**
 * The trash (docs/explorer.md, "Trash"): deletes go to `<data-dir>/trash/<user>/<id>/<name>`
 * unless `permanent`, count against the quota, come back by trash.restore, go for good by
 * trash.delete, trash.empty or the purge after NIMBUS_TRASH_DAYS; crash leftovers are adopted
 * or dropped at start; the trash follows its user through a rename and a delete.
 */
import { mkdir, mkdtemp, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resolveConfig } from '../../daemon/config.js';
import type { NimbusContext } from '../../daemon/context.js';
import { ChangeFeed } from '../../daemon/storage/change-feed.js';
import { purgeTrash, restoreItem } from '../../daemon/services/trash.js';
import { FileIndex } from '../../daemon/storage/file-index.js';
import { Storage } from '../../daemon/storage/storage.js';
import { Store } from '../../daemon/store/store.js';
import { KeyedMutex } from '../../daemon/util/mutex.js';
import { api, apiLoose, signIn } from '../helpers/api.js';
import { childEnv, runCli } from '../helpers/child.js';
import { openEventStream } from '../helpers/events.js';
import { embeddedRun, onDisk } from '../helpers/backend.js';
import { createUser, listTree, readDb, startTestDaemon, storedBytes, upload, type TestDaemon } from '../helpers/daemon.js';
import { expectErrorBody } from '../helpers/records.js';

const WAIT = { timeout: 8000, interval: 25 };
const DAY_MS = 86_400_000;
let t: TestDaemon;
let userCount = 0;

async function newUser(daemon = t): Promise<string> {
  const username = `t${++userCount}`;
  await createUser(daemon, username);
  return username;
}

/** A stored file's text: from the storage folder on an embedded daemon, downloaded elsewhere. */
const textOf = async (username: string, where: string) => (await storedBytes(t, username, where)).toString('utf8');
/** Checks of the storage folder and <data-dir>/trash themselves: only an embedded daemon has them. */
const whenOnDisk = async (check: () => Promise<void>) => {
  if (embeddedRun) await check();
};
const trashDir = (daemon: TestDaemon, username: string) => path.join(daemon.dataDir, 'trash', username);
const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

async function trashFile(daemon: TestDaemon, username: string, file: string, folder?: string): Promise<string> {
  const res = await api(daemon, 'files.delete', { username, file, ...(folder === undefined ? {} : { folder }) });
  expect(res.status, res.text).toBe(200);
  expect(res.body.trashId).toMatch(/^[0-9a-f]{32}$/);
  return res.body.trashId!;
}

async function listed(daemon: TestDaemon, username: string) {
  const res = await api(daemon, 'trash.list', { username });
  expect(res.status, res.text).toBe(200);
  return res.body.items;
}

/**
 * The parts of a daemon the trash service works with, over a stopped daemon's data
 * directory: real store, real disk, real index (only what trash.ts reads is filled in).
 */
async function openContext(dataDir: string, storageDir: string): Promise<NimbusContext> {
  const config = resolveConfig({ dataDir, storageDir }, {}, '');
  const store = new Store(path.join(dataDir, 'db.json'));
  await store.open();
  const index = new FileIndex();
  const storage = new Storage(config.storageDir, path.join(dataDir, 'tmp'), index);
  for (const username of store.users.keys()) await storage.rescanUser(username);
  index.setState('ready');
  // The mailer, sessions, keys and the rest are not used by the trash service.
  const nimbus = { config, store, index, storage, reserved: new Map(), locks: new KeyedMutex(), log: () => undefined };
  return { ...nimbus, changes: new ChangeFeed() } as unknown as NimbusContext;
}

beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.close());

describe('deleting to the trash', () => {
  it('moves a file out of the storage folder into the trash, keeping its bytes and usage', async () => {
    const u = await newUser();
    await upload(t, u, 'notes.txt', 'hello trash');
    const id = await trashFile(t, u, 'notes.txt');
    await whenOnDisk(async () => expect(await exists(path.join(t.storageDir, u, 'notes.txt'))).toBe(false));
    await whenOnDisk(async () => expect(await readFile(path.join(trashDir(t, u), id, 'notes.txt'), 'utf8')).toBe('hello trash'));
    const items = await listed(t, u);
    expect(items).toEqual([
      {
        id,
        kind: 'file',
        name: 'notes.txt',
        folder: null,
        size: 11,
        fileCount: 1,
        deletedAt: expect.any(String),
        purgeAt: expect.any(String),
      },
    ]);
    expect(Date.parse(items[0].purgeAt) - Date.parse(items[0].deletedAt)).toBe(30 * DAY_MS);
    expect((await api(t, 'files.list', { username: u })).body.files).toEqual([]);
    expect((await api(t, 'user.get', { username: u })).body.usage.usedBytes).toBe(11);
  });

  it('moves a folder with its files; a file in a folder keeps where it was', async () => {
    const u = await newUser();
    await api(t, 'folders.create', { username: u, folder: 'Work' });
    await upload(t, u, 'a.txt', 'aaa', { folder: 'Work' });
    await upload(t, u, 'b.txt', 'bb', { folder: 'Work' });
    const one = await api(t, 'folders.files.delete', { username: u, folder: 'Work', file: 'b.txt' });
    expect(one.status).toBe(200);
    const res = await api(t, 'folders.delete', { username: u, folder: 'Work' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ msg: 'Folder deleted', trashId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    await whenOnDisk(async () => expect(await exists(path.join(t.storageDir, u, 'Work'))).toBe(false));
    await whenOnDisk(async () => expect(await readFile(path.join(trashDir(t, u), res.body.trashId!, 'Work', 'a.txt'), 'utf8')).toBe('aaa'));
    const items = await listed(t, u);
    expect(items.map((i) => [i.kind, i.name, i.folder, i.size, i.fileCount])).toEqual([
      ['folder', 'Work', null, 3, 1],
      ['file', 'b.txt', 'Work', 2, 1],
    ]);
  });

  it('deletes for good with permanent=true: no trash item, the space is free', async () => {
    const u = await newUser();
    await upload(t, u, 'gone.bin', Buffer.alloc(1000));
    const res = await api(t, 'files.delete', { username: u, file: 'gone.bin', permanent: true });
    expect(res.body).toEqual({ msg: 'File deleted', trashId: null });
    await api(t, 'folders.create', { username: u, folder: 'F' });
    await upload(t, u, 'x', 'x', { folder: 'F' });
    expect((await api(t, 'folders.files.delete', { username: u, folder: 'F', file: 'x', permanent: true })).body.trashId).toBeNull();
    expect((await api(t, 'folders.delete', { username: u, folder: 'F', permanent: true })).body.trashId).toBeNull();
    expect(await listed(t, u)).toEqual([]);
    await whenOnDisk(async () => expect(await listTree(trashDir(t, u))).toEqual([]));
    expect((await api(t, 'user.get', { username: u })).body.usage.usedBytes).toBe(0);
  });

  it('answers DaneeCloud keys {msg} exactly as before', async () => {
    const u = await newUser();
    await upload(t, u, 'd.txt', 'd');
    const made = await api(t, 'keys.create', { label: `dc-${u}`, scope: 'admin', dialect: 'daneecloud' });
    expect(made.status, made.text).toBe(201);
    const res = await t.api('POST', '/api/files/delete', { username: u, file: 'd.txt' }, { key: made.body.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ msg: 'File deleted' });
    expect(await listed(t, u)).toHaveLength(1);
  });

  it('revokes the share at once, and a restored file is not shared', async () => {
    const u = await newUser();
    await upload(t, u, 'pub.txt', 'public');
    const shared = await api(t, 'files.share', { username: u, file: 'pub.txt' });
    const link = shared.body.file.shareUrl!;
    expect((await fetch(link)).status).toBe(200);
    const id = await trashFile(t, u, 'pub.txt');
    expect((await fetch(link)).status).toBe(404);
    expect((await api(t, 'trash.restore', { username: u, id })).status).toBe(201);
    const files = (await api(t, 'files.list', { username: u })).body.files;
    expect(files.map((f) => [f.name, f.shared])).toEqual([['pub.txt', false]]);
    expect((await fetch(link)).status).toBe(404);
  });

  it('announces trash.changed on a delete and a restore', async () => {
    const u = await newUser();
    await upload(t, u, 'e.txt', 'e');
    const stream = await openEventStream(t.url, { 'API-Key': t.key });
    try {
      const id = await trashFile(t, u, 'e.txt');
      await vi.waitFor(
        () => expect(stream.messages.filter((m) => m.event === 'trash.changed' && m.data.username === u)).toHaveLength(1),
        WAIT,
      );
      await api(t, 'trash.restore', { username: u, id });
      await vi.waitFor(
        () => expect(stream.messages.filter((m) => m.event === 'trash.changed' && m.data.username === u)).toHaveLength(2),
        WAIT,
      );
    } finally {
      await stream.close();
    }
  });

  // A link another program puts where the trash directory goes: embedded only.
  onDisk(() => {
    it('refuses to follow a link where the user’s trash directory should be', async () => {
      const u = await newUser();
      await upload(t, u, 'keep.txt', 'keep');
      const elsewhere = await mkdtemp(path.join(os.tmpdir(), 'nimbus-elsewhere-'));
      try {
        await symlink(elsewhere, trashDir(t, u));
        const res = await apiLoose(t, 'files.delete', { username: u, file: 'keep.txt' });
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(await listTree(elsewhere)).toEqual([]);
        expect(await textOf(u, 'keep.txt')).toBe('keep');
        expect((await api(t, 'files.list', { username: u })).body.files.map((f) => f.name)).toEqual(['keep.txt']);
      } finally {
        await rm(trashDir(t, u), { force: true });
        await rm(elsewhere, { recursive: true, force: true });
      }
    });
  });
});

describe('trash.restore', () => {
  it('puts a file back where it was, bytes intact; the item is gone', async () => {
    const u = await newUser();
    await api(t, 'folders.create', { username: u, folder: 'Docs' });
    await upload(t, u, 'r.txt', 'restore me', { folder: 'Docs' });
    const id = await trashFile(t, u, 'r.txt', 'Docs');
    const res = await api(t, 'trash.restore', { username: u, id });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({ msg: expect.any(String), restored: { kind: 'file', name: 'r.txt', folder: 'Docs' } });
    expect(await textOf(u, 'Docs/r.txt')).toBe('restore me');
    expect(await listed(t, u)).toEqual([]);
    await whenOnDisk(async () => expect(await listTree(trashDir(t, u))).toEqual([]));
    expect((await api(t, 'folders.files', { username: u, folder: 'Docs' })).body.files.map((f) => f.name)).toEqual(['r.txt']);
  });

  it('makes a file’s folder again when it no longer exists', async () => {
    const u = await newUser();
    await api(t, 'folders.create', { username: u, folder: 'Gone' });
    await upload(t, u, 'f.txt', 'ff', { folder: 'Gone' });
    const id = await trashFile(t, u, 'f.txt', 'Gone');
    await api(t, 'folders.delete', { username: u, folder: 'Gone', permanent: true });
    expect((await api(t, 'trash.restore', { username: u, id })).status).toBe(201);
    expect((await api(t, 'folders.list', { username: u })).body.folders.map((f) => f.name)).toEqual(['Gone']);
    expect(await textOf(u, 'Gone/f.txt')).toBe('ff');
  });

  it('puts a folder back with its files', async () => {
    const u = await newUser();
    await api(t, 'folders.create', { username: u, folder: 'Album' });
    await upload(t, u, '1.jpg', 'one', { folder: 'Album' });
    await upload(t, u, '2.jpg', 'two', { folder: 'Album' });
    const id = (await api(t, 'folders.delete', { username: u, folder: 'Album' })).body.trashId!;
    const res = await api(t, 'trash.restore', { username: u, id });
    expect(res.body.restored).toEqual({ kind: 'folder', name: 'Album', folder: null });
    const folder = (await api(t, 'folders.list', { username: u })).body.folders[0];
    expect([folder.name, folder.fileCount, folder.sizeBytes]).toEqual(['Album', 2, 6]);
    expect((await api(t, 'user.get', { username: u })).body.usage.usedBytes).toBe(6);
  });

  it('answers 409 when the name is taken again and changes nothing; rename=true restores beside it', async () => {
    const u = await newUser();
    await upload(t, u, 'report.pdf', 'old');
    const first = await trashFile(t, u, 'report.pdf');
    await upload(t, u, 'report.pdf', 'new');
    const refused = await apiLoose(t, 'trash.restore', { username: u, id: first });
    expectErrorBody(refused, 409, 'file_exists');
    expect(await listed(t, u)).toHaveLength(1);
    expect(await textOf(u, 'report.pdf')).toBe('new');
    const beside = await api(t, 'trash.restore', { username: u, id: first, rename: true });
    expect(beside.status, beside.text).toBe(201);
    expect(beside.body.restored.name).toBe('report (restored).pdf');
    // Once more: the first " (restored)" name is taken too.
    await upload(t, u, 'report.pdf', 'newer', { overwrite: 'true' });
    await upload(t, u, 'tmp.pdf', 'x');
    const second = await trashFile(t, u, 'report.pdf');
    await upload(t, u, 'report.pdf', 'newest');
    const again = await api(t, 'trash.restore', { username: u, id: second, rename: true });
    expect(again.body.restored.name).toBe('report (restored 2).pdf');
    expect(await textOf(u, 'report (restored 2).pdf')).toBe('newer');
  });

  it('answers 409 folder_exists for a folder whose name is taken, or a file at the root where a folder is', async () => {
    const u = await newUser();
    await api(t, 'folders.create', { username: u, folder: 'Same' });
    const id = (await api(t, 'folders.delete', { username: u, folder: 'Same' })).body.trashId!;
    await api(t, 'folders.create', { username: u, folder: 'Same' });
    expectErrorBody(await apiLoose(t, 'trash.restore', { username: u, id }), 409, 'folder_exists');
    await upload(t, u, 'Twin', 't');
    const fileId = await trashFile(t, u, 'Twin');
    await api(t, 'folders.create', { username: u, folder: 'Twin' });
    expectErrorBody(await apiLoose(t, 'trash.restore', { username: u, id: fileId }), 409, 'folder_exists');
    const renamed = await api(t, 'trash.restore', { username: u, id: fileId, rename: true });
    expect(renamed.body.restored.name).toBe('Twin (restored)');
    const folderBack = await api(t, 'trash.restore', { username: u, id, rename: true });
    expect(folderBack.body.restored.name).toBe('Same (restored)');
  });

  it('answers 404 for an id that is not this user’s, and 400 for one that is not an id', async () => {
    const u = await newUser();
    const other = await newUser();
    await upload(t, other, 'theirs.txt', 'x');
    const id = await trashFile(t, other, 'theirs.txt');
    expectErrorBody(await apiLoose(t, 'trash.restore', { username: u, id }), 404, 'trash_item_not_found');
    expectErrorBody(await apiLoose(t, 'trash.delete', { username: u, id }), 404, 'trash_item_not_found');
    expectErrorBody(await apiLoose(t, 'trash.restore', { username: u, id: '../x' }), 400);
    expectErrorBody(await apiLoose(t, 'trash.restore', { username: u, id: 'a'.repeat(31) }), 400);
    expect(await listed(t, other)).toHaveLength(1);
    // A signed-in user naming another user's trash is as a user that does not exist.
    const session = await signIn(t, u);
    const peek = await apiLoose(t, 'trash.list', { username: other }, { headers: session.headers, key: null });
    expectErrorBody(peek, 404, 'user_not_found');
    const own = await api(t, 'trash.list', { username: u }, { headers: session.headers, key: null });
    expect(own.status).toBe(200);
  });
});

describe('trash.delete and trash.empty', () => {
  it('deletes one item for good, then empties the rest, freeing the space', async () => {
    const u = await newUser();
    for (const name of ['1', '2', '3']) await upload(t, u, name, Buffer.alloc(100));
    const ids = [await trashFile(t, u, '1'), await trashFile(t, u, '2'), await trashFile(t, u, '3')];
    expect((await api(t, 'user.get', { username: u })).body.usage.usedBytes).toBe(300);
    const one = await api(t, 'trash.delete', { username: u, id: ids[0] });
    expect(one.status).toBe(200);
    await whenOnDisk(async () => expect(await exists(path.join(trashDir(t, u), ids[0]))).toBe(false));
    expectErrorBody(await apiLoose(t, 'trash.delete', { username: u, id: ids[0] }), 404, 'trash_item_not_found');
    const emptied = await api(t, 'trash.empty', { username: u });
    expect(emptied.body).toEqual({ msg: expect.any(String), removed: 2 });
    await whenOnDisk(async () => expect(await listTree(trashDir(t, u))).toEqual([]));
    expect((await api(t, 'user.get', { username: u })).body.usage.usedBytes).toBe(0);
    expect((await api(t, 'trash.empty', { username: u })).body.removed).toBe(0);
  });

  it('lists newest first, paged with X-Total-Count', async () => {
    const u = await newUser();
    for (const name of ['a', 'b', 'c']) {
      await upload(t, u, name, name);
      await trashFile(t, u, name);
    }
    const all = await listed(t, u);
    expect(all.map((i) => i.name)).toEqual(['c', 'b', 'a']);
    const page = await api(t, 'trash.list', { username: u, limit: 1, offset: 1 });
    expect(page.headers.get('X-Total-Count')).toBe('3');
    expect(page.body.items.map((i) => i.name)).toEqual(['b']);
  });
});

describe('quota', () => {
  it('counts trashed bytes against the quota until the trash is emptied', async () => {
    const role = `tiny${userCount}`;
    expect((await api(t, 'role.create', { name: role, maxStorage: 1, badge: 'https://example.com/b.png' })).status).toBe(201);
    const u = await newUser();
    await api(t, 'user.role', { username: u, name: role });
    await upload(t, u, 'big.bin', Buffer.alloc(700 * 1024));
    await trashFile(t, u, 'big.bin');
    const refused = await t.api('POST', '/api/files/upload', { username: u, file: 'next.bin' }, { body: new Uint8Array(700 * 1024) });
    expectErrorBody(refused, 507, 'quota_exceeded');
    const all = (await api(t, 'user.all')).body.find((user) => user.username === u)!;
    expect(all.usage.usedBytes).toBe(700 * 1024);
    await api(t, 'trash.empty', { username: u });
    await upload(t, u, 'next.bin', Buffer.alloc(700 * 1024));
  });
});

describe('races', () => {
  it('two restores of one item at once: one 201, one 404, one file', async () => {
    const u = await newUser();
    await upload(t, u, 'twice.txt', 'once');
    const id = await trashFile(t, u, 'twice.txt');
    const answers = await Promise.all([
      apiLoose(t, 'trash.restore', { username: u, id }),
      apiLoose(t, 'trash.restore', { username: u, id }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 404]);
    expect((await api(t, 'files.list', { username: u })).body.files.map((f) => f.name)).toEqual(['twice.txt']);
    await whenOnDisk(async () => expect(await listTree(trashDir(t, u))).toEqual([]));
  });

  // Races read the storage folder and the trash directory file by file: embedded only.
  onDisk(() => {
    it('a restore racing an upload of the same name: 409 or success, never a lost file', async () => {
      const u = await newUser();
      for (let round = 0; round < 8; round++) {
        await upload(t, u, 'race.txt', `trashed ${round}`, { overwrite: 'true' });
        const id = await trashFile(t, u, 'race.txt');
        const [restore, put] = await Promise.all([
          apiLoose(t, 'trash.restore', { username: u, id }),
          t.api('POST', '/api/files/upload', { username: u, file: 'race.txt' }, { body: `uploaded ${round}` }),
        ]);
        expect([restore.status, put.status].sort()).toEqual([201, 409]);
        const onDisk = await readFile(path.join(t.storageDir, u, 'race.txt'), 'utf8');
        const items = await listed(t, u);
        if (restore.status === 201) {
          expect(onDisk).toBe(`trashed ${round}`);
          expect(items).toEqual([]);
        } else {
          expect(onDisk).toBe(`uploaded ${round}`);
          expect(items.map((i) => i.id)).toEqual([id]);
          await api(t, 'trash.delete', { username: u, id });
        }
      }
    });
  });

  // Reads the trash directory's files: embedded only.
  onDisk(() => {
    it('a delete racing an upload of the same name: each file ends in storage or in the trash', async () => {
      const u = await newUser();
      for (let round = 0; round < 8; round++) {
        await upload(t, u, 'busy.txt', `first ${round}`, { overwrite: 'true' });
        const [del, put] = await Promise.all([
          apiLoose(t, 'files.delete', { username: u, file: 'busy.txt' }),
          t.api('POST', '/api/files/upload', { username: u, file: 'busy.txt', overwrite: 'true' }, { body: `second ${round}` }),
        ]);
        expect(del.status).toBe(200);
        expect(put.status).toBe(201);
        const stored = await readFile(path.join(t.storageDir, u, 'busy.txt'), 'utf8').catch(() => null);
        const trashed = await Promise.all((await listed(t, u)).map((i) => readFile(path.join(trashDir(t, u), i.id, i.name), 'utf8')));
        // The second upload replaced the first (an overwrite), or the delete took the first and the upload placed anew.
        expect([stored, ...trashed].filter((x) => x !== null)).toContain(`second ${round}`);
        await api(t, 'trash.empty', { username: u });
        await api(t, 'files.delete', { username: u, file: 'busy.txt', permanent: true }).catch(() => undefined);
      }
    });
  });

  // Opens db.json and the storage folder in this process beside the daemon: embedded only.
  onDisk(() => {
    it('a purge racing a restore: the item is restored or purged, never both, never half', async () => {
      const own = await startTestDaemon();
      try {
        const u = await newUser(own);
        await upload(own, u, 'p.txt', 'purge or restore');
        await api(own, 'folders.create', { username: u, folder: 'Dir' });
        for (const n of ['1', '2', '3']) await upload(own, u, n, n, { folder: 'Dir' });
        const fileId = await trashFile(own, u, 'p.txt');
        const folderId = (await api(own, 'folders.delete', { username: u, folder: 'Dir' })).body.trashId!;
        await own.stop();
        const nimbus = await openContext(own.dataDir, own.storageDir);
        const later = Date.now() + 365 * DAY_MS;
        const results = await Promise.allSettled([
          restoreItem(nimbus, u, fileId, false),
          purgeTrash(nimbus, later),
          restoreItem(nimbus, u, folderId, false),
        ]);
        await nimbus.store.close();
        expect(results[1].status).toBe('fulfilled');
        const restoredFile = results[0].status === 'fulfilled';
        const restoredFolder = results[2].status === 'fulfilled';
        for (const r of [results[0], results[2]])
          if (r.status === 'rejected') expect((r.reason as { code?: string }).code).toBe('trash_item_not_found');
        await whenOnDisk(async () => expect(await exists(path.join(own.storageDir, u, 'p.txt'))).toBe(restoredFile));
        expect(await listTree(path.join(own.storageDir, u, 'Dir'))).toEqual(restoredFolder ? ['1', '2', '3'] : []);
        await whenOnDisk(async () => expect(await listTree(trashDir(own, u))).toEqual([]));
        expect((await readDb(own.dataDir)).trash).toEqual([]);
      } finally {
        await own.close();
      }
    });
  });
});

// The storage folder on another file system than <data-dir>/trash: embedded only.
onDisk(() => {
  describe('across file systems', () => {
    it('copies, fsyncs and removes when the storage folder is on another disk', async () => {
      const shm = '/dev/shm';
      if (!(await exists(shm)) || (await stat(shm)).dev === (await stat(os.tmpdir())).dev) return;
      const storageDir = await mkdtemp(path.join(shm, 'nimbus-storage-'));
      const own = await startTestDaemon({ storageDir });
      try {
        const u = await newUser(own);
        await upload(own, u, 'far.txt', 'far away');
        await api(own, 'folders.create', { username: u, folder: 'Far' });
        await upload(own, u, 'in.txt', 'inside', { folder: 'Far' });
        const fileId = await trashFile(own, u, 'far.txt');
        const folderId = (await api(own, 'folders.delete', { username: u, folder: 'Far' })).body.trashId!;
        expect(await listTree(path.join(storageDir, u))).toEqual([]);
        expect(await listTree(trashDir(own, u))).toEqual(
          [`${fileId}/`, `${fileId}/far.txt`, `${folderId}/`, `${folderId}/Far/`, `${folderId}/Far/in.txt`].sort(),
        );
        expect((await api(own, 'trash.restore', { username: u, id: fileId })).status).toBe(201);
        expect((await api(own, 'trash.restore', { username: u, id: folderId })).status).toBe(201);
        expect(await listTree(path.join(storageDir, u))).toEqual(['Far/', 'Far/in.txt', 'far.txt']);
        expect(await readFile(path.join(storageDir, u, 'Far', 'in.txt'), 'utf8')).toBe('inside');
        await whenOnDisk(async () => expect(await listTree(trashDir(own, u))).toEqual([]));
      } finally {
        await own.close();
        await rm(storageDir, { recursive: true, force: true });
      }
    });
  });
});

describe('the trash and its user', () => {
  it('follows a renamed user and goes with a deleted one', async () => {
    const u = await newUser();
    await upload(t, u, 'mine.txt', 'mine');
    const id = await trashFile(t, u, 'mine.txt');
    const renamed = `${u}-renamed`;
    const edit = await api(t, 'user.edit', { username: u, newusername: renamed, newemail: `${u}@example.com` });
    expect(edit.status, edit.text).toBe(201);
    expect(edit.body.user.usage.usedBytes).toBe(4);
    expect((await listed(t, renamed)).map((i) => i.id)).toEqual([id]);
    await whenOnDisk(async () => expect(await readFile(path.join(trashDir(t, renamed), id, 'mine.txt'), 'utf8')).toBe('mine'));
    await whenOnDisk(async () => expect(await exists(trashDir(t, u))).toBe(false));
    expect((await api(t, 'trash.restore', { username: renamed, id })).status).toBe(201);
    await trashFile(t, renamed, 'mine.txt');
    expect((await api(t, 'user.delete', { username: renamed })).status).toBe(200);
    await whenOnDisk(async () => expect(await exists(trashDir(t, renamed))).toBe(false));
    expect((await readDb(t)).trash.filter((i: { username: string }) => i.username === renamed)).toEqual([]);
  });
});

// Entries and records made in <data-dir>/trash and db.json before a start: embedded only.
onDisk(() => {
  describe('at start', () => {
    it('adopts an entry without a record, drops a record without an entry, and cleans what a crash left', async () => {
      const own = await startTestDaemon();
      try {
        const u = await newUser(own);
        await upload(own, u, 'kept.txt', 'kept');
        const kept = await trashFile(own, u, 'kept.txt');
        await own.stop();
        const orphanId = 'a'.repeat(32);
        await mkdir(path.join(trashDir(own, u), orphanId, 'Found'), { recursive: true });
        await writeFile(path.join(trashDir(own, u), orphanId, 'Found', 'x.txt'), '12345');
        await mkdir(path.join(trashDir(own, u), 'not-an-id'));
        await mkdir(path.join(trashDir(own, u), 'b'.repeat(32)));
        await mkdir(path.join(own.dataDir, 'trash', 'nobody', 'c'.repeat(32)), { recursive: true });
        const db = await readDb(own.dataDir);
        db.trash.push({
          id: 'd'.repeat(32),
          username: u,
          kind: 'file',
          name: 'lost.txt',
          folder: null,
          size: 9,
          fileCount: 1,
          deletedAt: new Date().toISOString(),
        });
        await writeFile(path.join(own.dataDir, 'db.json'), JSON.stringify(db));
        await own.restart();
        const items = await listed(own, u);
        expect(items.map((i) => [i.id, i.kind, i.name, i.folder, i.size, i.fileCount]).sort()).toEqual(
          [
            [kept, 'file', 'kept.txt', null, 4, 1],
            [orphanId, 'folder', 'Found', null, 5, 1],
          ].sort(),
        );
        expect(await listTree(trashDir(own, u))).toEqual(
          [`${kept}/`, `${kept}/kept.txt`, `${orphanId}/`, `${orphanId}/Found/`, `${orphanId}/Found/x.txt`].sort(),
        );
        await whenOnDisk(async () => expect(await exists(path.join(own.dataDir, 'trash', 'nobody'))).toBe(false));
        expect((await api(own, 'user.get', { username: u })).body.usage.usedBytes).toBe(9);
      } finally {
        await own.close();
      }
    });

    it('purges items older than NIMBUS_TRASH_DAYS and keeps younger ones', async () => {
      const own = await startTestDaemon({ env: { NIMBUS_TRASH_DAYS: '7' } });
      try {
        const u = await newUser(own);
        await upload(own, u, 'old.txt', 'old');
        await upload(own, u, 'young.txt', 'young');
        const oldId = await trashFile(own, u, 'old.txt');
        const youngId = await trashFile(own, u, 'young.txt');
        const young = (await listed(own, u)).find((i) => i.id === youngId)!;
        expect(Date.parse(young.purgeAt) - Date.parse(young.deletedAt)).toBe(7 * DAY_MS);
        await own.stop();
        const db = await readDb(own.dataDir);
        for (const item of db.trash) {
          item.deletedAt = new Date(Date.now() - (item.id === oldId ? 8 : 6) * DAY_MS).toISOString();
        }
        await writeFile(path.join(own.dataDir, 'db.json'), JSON.stringify(db));
        await own.restart();
        expect((await listed(own, u)).map((i) => i.id)).toEqual([youngId]);
        await whenOnDisk(async () => expect(await exists(path.join(trashDir(own, u), oldId))).toBe(false));
        await whenOnDisk(async () => expect(await exists(path.join(trashDir(own, u), youngId, 'young.txt'))).toBe(true));
      } finally {
        await own.close();
      }
    });

    it('dates an adopted entry by its directory, so an old one is purged', async () => {
      const own = await startTestDaemon();
      try {
        const u = await newUser(own);
        await own.stop();
        const id = 'e'.repeat(32);
        await mkdir(path.join(trashDir(own, u), id), { recursive: true });
        await writeFile(path.join(trashDir(own, u), id, 'ancient.txt'), 'ancient');
        const longAgo = new Date(Date.now() - 40 * DAY_MS);
        await utimes(path.join(trashDir(own, u), id), longAgo, longAgo);
        await own.restart();
        expect(await listed(own, u)).toEqual([]);
        await whenOnDisk(async () => expect(await exists(path.join(trashDir(own, u), id))).toBe(false));
      } finally {
        await own.close();
      }
    });

    it('loads a db.json written before the trash', async () => {
      const own = await startTestDaemon();
      try {
        const u = await newUser(own);
        await own.stop();
        const db = await readDb(own.dataDir);
        delete db.trash;
        await writeFile(path.join(own.dataDir, 'db.json'), JSON.stringify(db));
        await own.restart();
        expect(await listed(own, u)).toEqual([]);
        expect((await readDb(own.dataDir)).trash).toEqual([]);
      } finally {
        await own.close();
      }
    });

    it('nimbus daemon exits 1 with one clear line for a bad NIMBUS_TRASH_DAYS', async () => {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-trash-days-'));
      try {
        const run = runCli(['daemon', '--port', '0', '--data-dir', dataDir], childEnv({ NIMBUS_KEYCHAIN: 'off', NIMBUS_TRASH_DAYS: '0' }));
        expect(await run.exited).toBe(1);
        expect(run.stderr()).toMatch(/Invalid NIMBUS_TRASH_DAYS: 0 \(a whole number of days from 1 to 36500\)/);
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    });

    it('refuses a bad NIMBUS_TRASH_DAYS with a clear message', async () => {
      for (const bad of ['0', '-1', '1.5', 'thirty', '99999999']) {
        await expect(startTestDaemon({ env: { NIMBUS_TRASH_DAYS: bad } })).rejects.toThrow(/Invalid NIMBUS_TRASH_DAYS/);
      }
    });
  });
});
