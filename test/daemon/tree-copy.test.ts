/**
 * Issue 25, folders.copy (both backends: on disk a hidden directory renamed into place, in
 * object mode new rows and objects in one commit): a subtree copied whole into another folder or the root,
 * bytes identical at every depth, usage rising by the subtree's bytes, one `folder.added`
 * event; the 409/404/400 refusals changing nothing; the quota checked before a byte is
 * written and held under races (two copies at once never pass it together); a copy refused
 * half way leaving nothing behind; links inside the source skipped, never followed (on disk).
 */
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { WatchFactory } from '../../daemon/storage/watcher.js';
import { embeddedRun, onDisk } from '../helpers/backend.js';
import { createUser, listTree, snapshotState, startTestDaemon, storedBytes, TEST_KEY, upload, type TestDaemon } from '../helpers/daemon.js';
import { openEventStream } from '../helpers/events.js';
import { expectErrorBody, expectFolder } from '../helpers/records.js';

let t: TestDaemon;
let n = 0;
const WAIT = { timeout: 15_000, interval: 50 };
const MB = 1024 * 1024;

beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.close());

/** Bytes that differ at every offset, so a copy cut short or shifted shows. */
const bytes = (size: number, seed: number) => {
  const out = Buffer.alloc(size);
  for (let i = 0; i < size; i++) out[i] = (i * 31 + seed) & 0xff;
  return out;
};

/** A new user holding `a/b/c` with a file at each level (`a/top.bin`, `a/b/mid.bin`, `a/b/c/deep.bin`, 1,000 bytes in all). */
async function tree(d: TestDaemon = t): Promise<string> {
  const username = `c${++n}`;
  await createUser(d, username);
  expect((await d.api('POST', '/api/folders/create', { username, folder: 'a/b/c', parents: 'true' })).status).toBe(201);
  await upload(d, username, 'top.bin', bytes(100, 1), { folder: 'a' });
  await upload(d, username, 'mid.bin', bytes(300, 2), { folder: 'a/b' });
  await upload(d, username, 'deep.bin', bytes(600, 3), { folder: 'a/b/c' });
  return username;
}

/** A role of `mb` MB for the user. */
async function quota(d: TestDaemon, username: string, mb: number): Promise<void> {
  const name = `q${++n}`;
  expect((await d.api('POST', '/api/role/create', { name, maxStorage: String(mb), badge: 'https://example.com/b.png' })).status).toBe(201);
  expect((await d.api('POST', '/api/user/role', { username, name })).status).toBe(201);
}

const usedBytes = async (username: string, d: TestDaemon = t) =>
  (await d.api('GET', '/api/user', { username })).body.usage.usedBytes as number;
const disk = (username: string, ...rest: string[]) => path.join(t.storageDir, username, ...rest);
/** Names Nimbus hides in the storage folder (a copy's temporary directory among them), at any depth; a bucket has none. */
const hiddenIn = async (d: TestDaemon) =>
  embeddedRun ? (await listTree(d.storageDir)).filter((p) => p.split('/').some((c) => c.startsWith('.nimbus-c'))) : [];
/** A file's bytes as stored (`folder/file`): read from the disk, downloaded from the bucket. */
const stored = (username: string, where: string) => storedBytes(t, username, where);

/** What a folder holds at every depth as `listTree` pictures it (`b/`, `b/mid.bin`): the disk's, or the API's listings in object mode. */
async function contents(username: string, folder: string | null): Promise<string[]> {
  if (embeddedRun) return listTree(folder === null ? disk(username) : disk(username, ...folder.split('/')));
  const out: string[] = [];
  const walk = async (at: string | null, rel: string) => {
    const where: Record<string, string> = at === null ? { username } : { username, folder: at };
    for (const f of (await t.api('GET', '/api/files', where)).body.files as { name: string }[]) out.push(`${rel}${f.name}`);
    for (const f of (await t.api('GET', '/api/folders', where)).body.folders as { name: string; path: string }[]) {
      out.push(`${rel}${f.name}/`);
      await walk(f.path, `${rel}${f.name}/`);
    }
  };
  await walk(folder, '');
  return out.sort();
}
const filesOf = async (username: string, folder: string) =>
  ((await t.api('GET', '/api/folders/files', { username, folder })).body.files as { name: string; size: number }[]).map((f) => [
    f.name,
    f.size,
  ]);

describe('folders.copy', () => {
  it('copies a subtree three levels deep into another folder, bytes identical at each level, the source untouched, usage up by its bytes', async () => {
    const username = await tree();
    expect((await t.api('POST', '/api/folders/create', { username, folder: 'x/y', parents: 'true' })).status).toBe(201);
    const used = await usedBytes(username);
    const res = await t.api('POST', '/api/folders/copy', { username, folder: 'a/b', to: 'x/y' });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['folder', 'msg']);
    expectFolder(res.body.folder);
    expect(res.body.folder).toMatchObject({ name: 'b', path: 'x/y/b', fileCount: 2, folderCount: 1, sizeBytes: 900 });

    expect(await stored(username, 'x/y/b/mid.bin')).toEqual(bytes(300, 2));
    expect(await stored(username, 'x/y/b/c/deep.bin')).toEqual(bytes(600, 3));
    expect(await filesOf(username, 'x/y/b')).toEqual([['mid.bin', 300]]);
    expect(await filesOf(username, 'x/y/b/c')).toEqual([['deep.bin', 600]]);
    // The source is as it was.
    expect(await filesOf(username, 'a/b/c')).toEqual([['deep.bin', 600]]);
    expect(await stored(username, 'a/b/c/deep.bin')).toEqual(bytes(600, 3));
    // Totals up both chains: x and x/y now hold the copy.
    const top = await t.api('GET', '/api/folders', { username });
    expect(
      top.body.folders.map((f: { path: string; fileCount: number; folderCount: number; sizeBytes: number }) => [
        f.path,
        f.fileCount,
        f.folderCount,
        f.sizeBytes,
      ]),
    ).toEqual([
      ['a', 3, 2, 1000],
      ['x', 2, 3, 900],
    ]);
    expect(await usedBytes(username)).toBe(used + 900);
    expect(await hiddenIn(t)).toEqual([]);

    // The whole top folder too, a level deeper than it was: every level's bytes.
    const whole = await t.api('POST', '/api/folders/copy', { username, folder: 'a', to: 'x/y/b/c' });
    expect(whole.status, whole.text).toBe(201);
    expect(whole.body.folder).toMatchObject({ path: 'x/y/b/c/a', fileCount: 3, folderCount: 2, sizeBytes: 1000 });
    expect(await stored(username, 'x/y/b/c/a/top.bin')).toEqual(bytes(100, 1));
    expect(await stored(username, 'x/y/b/c/a/b/c/deep.bin')).toEqual(bytes(600, 3));
    expect(await usedBytes(username)).toBe(used + 1900);
  });

  it('copies into the root when `to` is empty or absent', async () => {
    const username = await tree();
    const res = await t.api('POST', '/api/folders/copy', { username, folder: 'a/b/c', to: '' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.folder).toMatchObject({ name: 'c', path: 'c', fileCount: 1, sizeBytes: 600 });
    expect(await stored(username, 'c/deep.bin')).toEqual(bytes(600, 3));
    expect((await t.api('POST', '/api/folders/copy', { username, folder: 'a/b' })).body.folder).toMatchObject({ path: 'b', fileCount: 2 });
    const top = await t.api('GET', '/api/folders', { username });
    expect(top.body.folders.map((f: { path: string }) => f.path)).toEqual(['a', 'b', 'c']);
  });

  it('publishes one folder.added for the copy, none per file or folder inside it', async () => {
    const username = await tree();
    const stream = await openEventStream(t.url, { 'API-Key': TEST_KEY });
    try {
      await vi.waitFor(() => expect(stream.text()).toContain(': connected'), WAIT);
      expect((await t.api('POST', '/api/folders/copy', { username, folder: 'a/b', to: '' })).status).toBe(201);
      // Written by another program on disk (once the watcher reports it, it has reported any echo of the copy too), uploaded in object mode.
      if (embeddedRun) await writeFile(disk(username, 'after.txt'), 'z');
      else expect((await upload(t, username, 'after.txt', 'z')).status).toBe(201);
      await vi.waitFor(() => expect(stream.messages.some((m) => m.data.file === 'after.txt')).toBe(true), WAIT);
      const mine = stream.messages.filter((m) => m.data.username === username && m.data.file !== 'after.txt');
      expect(mine.map((m) => [m.event, m.data.folder, m.data.file])).toEqual([['folder.added', 'b', null]]);
    } finally {
      await stream.close();
    }
  });

  it('refuses a copy into itself or below it, a name taken at the target, a missing folder or target, a bad path, changing nothing', async () => {
    const username = await tree();
    expect((await t.api('POST', '/api/folders/create', { username, folder: 'x/B', parents: 'true' })).status).toBe(201);
    await upload(t, username, 'c', 'a file named like the folder', { folder: 'x' });
    const before = await snapshotState(t);
    const copy = (params: Record<string, string>) => t.api('POST', '/api/folders/copy', { username, ...params });
    expectErrorBody(await copy({ folder: 'a/b', to: 'a/b' }), 409, 'conflict');
    expectErrorBody(await copy({ folder: 'a/b', to: 'a/b/c' }), 409, 'conflict');
    expectErrorBody(await copy({ folder: 'a', to: 'a/b/c' }), 409, 'conflict');
    // Into its own parent: its own name is taken there.
    expectErrorBody(await copy({ folder: 'a/b', to: 'a' }), 409, 'folder_exists');
    expectErrorBody(await copy({ folder: 'a/b/c', to: 'x' }), 409, 'folder_exists');
    expectErrorBody(await copy({ folder: 'a/b', to: 'x' }), 409, 'name_case_conflict');
    expectErrorBody(await copy({ folder: 'a/nope', to: 'x' }), 404, 'folder_not_found');
    expectErrorBody(await copy({ folder: 'a/b', to: 'nope' }), 404, 'folder_not_found');
    expectErrorBody(await copy({ folder: 'a/b', to: 'x/nope' }), 404, 'folder_not_found');
    expectErrorBody(await t.api('POST', '/api/folders/copy', { username: 'nobody', folder: 'a' }), 404, 'user_not_found');
    for (const bad of [
      { folder: 'a/b', to: '../x' },
      { folder: 'a/../b', to: 'x' },
      { folder: 'a//b', to: 'x' },
      { folder: '/a', to: 'x' },
      { folder: 'a/b', to: 'x/' },
      { folder: 'a\\b', to: 'x' },
    ]) {
      expectErrorBody(await copy(bad), 400, 'invalid_parameter');
    }
    expectErrorBody(await copy({ folder: '', to: 'x' }), 400, 'missing_parameter');
    expect(await snapshotState(t)).toEqual(before);
    // `ab` is not inside `a`: a sibling whose name starts alike takes a copy.
    expect((await t.api('POST', '/api/folders/create', { username, folder: 'ab' })).status).toBe(201);
    expect((await copy({ folder: 'a', to: 'ab' })).status).toBe(201);
  });

  it('refuses a copy whose folders would pass 64 levels (400), writing nothing', async () => {
    const username = await tree();
    const deep = Array.from({ length: 61 }, (_, i) => `l${i}`).join('/');
    expect((await t.api('POST', '/api/folders/create', { username, folder: deep, parents: 'true' })).status).toBe(201);
    // a/b/c lands as <61 levels>/a/b/c: 64 levels, the limit; one more level is refused.
    const refused = await t.api('POST', '/api/folders/copy', { username, folder: 'a', to: `${deep}/l61` });
    expectErrorBody(refused, 404, 'folder_not_found');
    expect((await t.api('POST', '/api/folders/create', { username, folder: `${deep}/l61` })).status).toBe(201);
    const past = await snapshotState(t);
    const res = await t.api('POST', '/api/folders/copy', { username, folder: 'a', to: `${deep}/l61` });
    expectErrorBody(res, 400, 'invalid_parameter');
    expect(res.body.error).toMatch(/64 levels/);
    expect(await snapshotState(t)).toEqual(past);
    expect((await t.api('POST', '/api/folders/copy', { username, folder: 'a', to: deep })).status).toBe(201);
  });

  it('answers 507 before a byte is written when the subtree does not fit, holding nothing afterwards', async () => {
    const username = await tree();
    await quota(t, username, 1);
    await upload(t, username, 'big.bin', bytes(600 * 1024, 4), { folder: 'a/b/c' });
    const used = await usedBytes(username);
    const before = await snapshotState(t);
    expectErrorBody(await t.api('POST', '/api/folders/copy', { username, folder: 'a', to: '' }), 409, 'folder_exists');
    expectErrorBody(await t.api('POST', '/api/folders/copy', { username, folder: 'a/b', to: '' }), 507, 'quota_exceeded');
    expect(await snapshotState(t)).toEqual(before);
    expect(await usedBytes(username)).toBe(used);
    expect(await hiddenIn(t)).toEqual([]);
    // Nothing is still held: exactly what is left fits.
    await upload(t, username, 'fill.bin', Buffer.alloc(MB - used));
    expect(await usedBytes(username)).toBe(MB);
  });

  it('lets only one of two copies racing for the last of the quota pass; the other writes nothing', async () => {
    for (let round = 0; round < 3; round++) {
      const username = await tree();
      await quota(t, username, 1);
      await upload(t, username, 'big.bin', bytes(400 * 1024, 5), { folder: 'a/b/c' });
      expect((await t.api('POST', '/api/folders/create', { username, folder: 'x' })).status).toBe(201);
      const used = await usedBytes(username);
      const results = await Promise.all([
        t.api('POST', '/api/folders/copy', { username, folder: 'a/b', to: 'x' }),
        t.api('POST', '/api/folders/copy', { username, folder: 'a/b', to: '' }),
      ]);
      const statuses = results.map((r) => r.status).sort();
      expect(statuses, results.map((r) => r.text).join(' | ')).toEqual([201, 507]);
      expect(await usedBytes(username)).toBe(used + 400 * 1024 + 900);
      expect(await usedBytes(username)).toBeLessThanOrEqual(MB);
      // The first went into x, the second to the root: only the one that passed is there.
      const inX = (await t.api('GET', '/api/folders', { username, folder: 'x' })).body.folders.length;
      const atRoot = (await t.api('GET', '/api/folders', { username })).body.folders.map((f: { path: string }) => f.path);
      expect([inX, atRoot]).toEqual(results[0].status === 201 ? [1, ['a', 'x']] : [0, ['a', 'b', 'x']]);
      expect(await hiddenIn(t)).toEqual([]);
      expect((await contents(username, null)).filter((p) => p.endsWith('big.bin'))).toHaveLength(2);
    }
  });

  it('a copy racing a delete of its source: whole or refused (404), never half a tree, usage what the disk holds', async () => {
    for (let round = 0; round < 4; round++) {
      const username = await tree();
      expect((await t.api('POST', '/api/folders/create', { username, folder: 'x' })).status).toBe(201);
      const [copied, deleted] = await Promise.all([
        t.api('POST', '/api/folders/copy', { username, folder: 'a/b', to: 'x' }),
        t.api('POST', '/api/folders/delete', { username, folder: 'a/b' }),
      ]);
      expect(deleted.status, deleted.text).toBe(200);
      if (copied.status === 201) {
        expect(await contents(username, 'x')).toEqual(['b/', 'b/c/', 'b/c/deep.bin', 'b/mid.bin']);
        expect(await stored(username, 'x/b/c/deep.bin')).toEqual(bytes(600, 3));
      } else {
        expectErrorBody(copied, 404, 'folder_not_found');
        expect(await contents(username, 'x')).toEqual([]);
      }
      expect(await hiddenIn(t)).toEqual([]);
      // The trash counts too: usage is the source in the trash, the top file, and the copy if it landed.
      expect(await usedBytes(username)).toBe(1000 + (copied.status === 201 ? 900 : 0));
    }
  });

  // Links are the disk's (a bucket has none).
  onDisk(() => {
    it('skips a symlink planted inside the source at any depth (never followed), copying the rest', async () => {
      const username = await tree();
      const outside = path.join(t.dataDir, `outside-${username}`);
      await mkdir(path.join(outside, 'dir'), { recursive: true });
      await writeFile(path.join(outside, 'secret.txt'), 'SECRET');
      await writeFile(path.join(outside, 'dir', 'inner.txt'), 'SECRET INNER');
      await symlink(path.join(outside, 'secret.txt'), disk(username, 'a', 'b', 'link.txt'));
      await symlink(path.join(outside, 'dir'), disk(username, 'a', 'b', 'c', 'linkdir'));
      expect((await t.api('POST', '/api/folders/create', { username, folder: 'copies' })).status).toBe(201);
      const copied = await t.api('POST', '/api/folders/copy', { username, folder: 'a', to: 'copies' });
      expect(copied.status, copied.text).toBe(201);
      expect(copied.body.folder).toMatchObject({ fileCount: 3, folderCount: 2, sizeBytes: 1000 });
      expect(await listTree(disk(username, 'copies'))).toEqual(['a/', 'a/b/', 'a/b/c/', 'a/b/c/deep.bin', 'a/b/mid.bin', 'a/top.bin']);
      expect(await readdir(outside)).toEqual(['dir', 'secret.txt']);
      expect(await readdir(path.join(outside, 'dir'))).toEqual(['inner.txt']);
    });
  });
});

// A file another program writes into the storage folder is the disk's.
onDisk(() => {
  /** A watch that never reports: a file another program writes stays unknown to the index. */
  const silentWatch: WatchFactory = async () => ({ unsubscribe: async () => undefined });

  describe('folders.copy refused half way', () => {
    let quiet: TestDaemon;
    beforeAll(async () => {
      quiet = await startTestDaemon({ watchFactory: silentWatch });
    });
    afterAll(() => quiet.close());

    it('removes what it wrote and lets go of the quota when the disk holds more than the index counted', async () => {
      const username = await tree(quiet);
      await quota(quiet, username, 1);
      // Unknown to the index (no watcher reports it): the copy finds it on the way and passes the quota with it.
      await writeFile(path.join(quiet.storageDir, username, 'a', 'b', 'c', 'unseen.bin'), bytes(MB, 6));
      const used = await usedBytes(username, quiet);
      const before = await listTree(quiet.storageDir);
      expectErrorBody(await quiet.api('POST', '/api/folders/copy', { username, folder: 'a/b', to: '' }), 507, 'quota_exceeded');
      expect(await listTree(quiet.storageDir)).toEqual(before);
      expect(await hiddenIn(quiet)).toEqual([]);
      expect(await readdir(path.join(quiet.dataDir, 'tmp')).catch(() => [])).toEqual([]);
      expect(await usedBytes(username, quiet)).toBe(used);
      expect((await quiet.api('GET', '/api/folders', { username })).body.folders.map((f: { path: string }) => f.path)).toEqual(['a']);
      // Nothing is still held: exactly what is left fits.
      await upload(quiet, username, 'fill.bin', Buffer.alloc(MB - used));
      expect(await usedBytes(username, quiet)).toBe(MB);
    });
  });
});
