/**
 * Issue 25, folders and files at depth (both backends): folders.create with and without
 * `parents`, listings with the whole subtree's counts, and every file endpoint at depth.
 */
import { readFile, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { embeddedRun, onDisk } from '../helpers/backend.js';
import { createUser, snapshotState, startTestDaemon, storedBytes, upload, type TestDaemon } from '../helpers/daemon.js';
import { expectErrorBody, expectFolder } from '../helpers/records.js';

let t: TestDaemon;
const ana = { username: 'ana' };
const usedBytes = async () => (await t.api('GET', '/api/user', ana)).body.usage.usedBytes as number;

beforeAll(async () => {
  t = await startTestDaemon();
  await createUser(t, 'ana');
});
afterAll(() => t.close());

describe('folders.create at depth', () => {
  it('needs the parent to exist (404, nothing made) without parents=true', async () => {
    const before = await snapshotState(t);
    const res = await t.api('POST', '/api/folders/create', { ...ana, folder: 'photos/2024' });
    expectErrorBody(res, 404, 'folder_not_found');
    expect(await snapshotState(t)).toEqual(before);
  });

  it('makes every missing folder with parents=true, as mkdir -p, and answers the last', async () => {
    const res = await t.api('POST', '/api/folders/create', { ...ana, folder: 'photos/2024/june', parents: 'true' });
    expect(res.status, res.text).toBe(201);
    expectFolder(res.body.folder);
    expect(res.body.folder).toMatchObject({ name: 'june', path: 'photos/2024/june', fileCount: 0, folderCount: 0 });
    if (embeddedRun) {
      const stat = await readFile(path.join(t.storageDir, 'ana', 'photos', '2024', 'june')).catch((err: NodeJS.ErrnoException) => err.code);
      expect(stat).toBe('EISDIR');
    }
  });

  it('makes one folder in an existing parent; an existing one is a 409 (with or without parents)', async () => {
    expect((await t.api('POST', '/api/folders/create', { ...ana, folder: 'photos/2023' })).status).toBe(201);
    expectErrorBody(await t.api('POST', '/api/folders/create', { ...ana, folder: 'photos/2023' }), 409, 'folder_exists');
    expectErrorBody(await t.api('POST', '/api/folders/create', { ...ana, folder: 'photos/2023', parents: 'true' }), 409, 'folder_exists');
    expectErrorBody(await t.api('POST', '/api/folders/create', { ...ana, folder: 'photos/2023/../x' }), 400, 'invalid_parameter');
  });
});

describe('files at depth', () => {
  const deep = { ...ana, folder: 'photos/2024/june' };

  it('are uploaded, listed, downloaded and renamed, each record carrying its folder path', async () => {
    const put = await upload(t, 'ana', 'beach.jpg', 'sand', { folder: deep.folder });
    expect(put.status, put.text).toBe(201);
    expect(put.body.file).toMatchObject({ name: 'beach.jpg', folder: 'photos/2024/june', size: 4 });
    expect((await storedBytes(t, 'ana', 'photos/2024/june/beach.jpg')).toString()).toBe('sand');
    const list = await t.api('GET', '/api/folders/files', deep);
    expect(list.body.files.map((f: { name: string; folder: string }) => [f.name, f.folder])).toEqual([['beach.jpg', 'photos/2024/june']]);
    expect((await t.api('GET', '/api/files', deep)).body.files).toHaveLength(1);
    expect((await t.api('GET', '/api/files/download', { ...deep, file: 'beach.jpg' })).text).toBe('sand');
    const renamed = await t.api('POST', '/api/files/rename', { ...deep, file: 'beach.jpg', newname: 'shore.jpg' });
    expect(renamed.status, renamed.text).toBe(201);
    expect(renamed.body.file).toMatchObject({ name: 'shore.jpg', folder: 'photos/2024/june' });
    expect((await t.api('GET', '/api/files/download', { ...deep, file: 'shore.jpg' })).text).toBe('sand');
  });

  it('are listed in folders.list with the whole subtree counted', async () => {
    await upload(t, 'ana', 'top.jpg', '12345', { folder: 'photos' });
    await upload(t, 'ana', 'mid.jpg', '123', { folder: 'photos/2024' });
    const root = await t.api('GET', '/api/folders', ana);
    expect(root.status, root.text).toBe(200);
    const photos = root.body.folders.find((f: { name: string }) => f.name === 'photos');
    expectFolder(photos);
    expect(photos).toMatchObject({ path: 'photos', fileCount: 3, folderCount: 3, sizeBytes: 12 });
    const inside = await t.api('GET', '/api/folders', { ...ana, folder: 'photos' });
    expect(inside.body.folders.map((f: { path: string; fileCount: number; folderCount: number; sizeBytes: number }) => f)).toMatchObject([
      { name: '2023', path: 'photos/2023', fileCount: 0, folderCount: 0, sizeBytes: 0 },
      { name: '2024', path: 'photos/2024', fileCount: 2, folderCount: 1, sizeBytes: 7 },
    ]);
    expectErrorBody(await t.api('GET', '/api/folders', { ...ana, folder: 'photos/nope' }), 404, 'folder_not_found');
    expect(await usedBytes()).toBe(12);
  });

  it('move and copy to a folder path, and are deleted, the usage following', async () => {
    const moved = await t.api('POST', '/api/files/move', { ...ana, folder: 'photos', file: 'top.jpg', to: 'photos/2023' });
    expect(moved.status, moved.text).toBe(201);
    expect((await t.api('GET', '/api/files/download', { ...ana, folder: 'photos/2023', file: 'top.jpg' })).text).toBe('12345');
    const copied = await t.api('POST', '/api/files/copy', { ...ana, folder: 'photos/2023', file: 'top.jpg', to: 'photos/2024/june' });
    expect(copied.status, copied.text).toBe(201);
    expect(await usedBytes()).toBe(17);
    const del = await t.api('POST', '/api/files/delete', { ...ana, folder: 'photos/2024/june', file: 'top.jpg', permanent: 'true' });
    expect(del.status, del.text).toBe(200);
    expect(await usedBytes()).toBe(12);
    const trashed = await t.api('POST', '/api/folders/files/delete', { ...ana, folder: 'photos/2024', file: 'mid.jpg' });
    expect(trashed.status, trashed.text).toBe(200);
    const inside = await t.api('GET', '/api/folders', { ...ana, folder: 'photos' });
    expect(inside.body.folders[1]).toMatchObject({ path: 'photos/2024', fileCount: 1, sizeBytes: 4 });
  });

  it('come back from the trash into their folder path', async () => {
    const trash = await t.api('GET', '/api/trash', ana);
    const item = trash.body.items.find((i: { name: string }) => i.name === 'mid.jpg');
    expect(item).toMatchObject({ folder: 'photos/2024' });
    const restored = await t.api('POST', '/api/trash/restore', { ...ana, id: item.id });
    expect(restored.status, restored.text).toBeLessThan(300);
    expect((await t.api('GET', '/api/files/download', { ...ana, folder: 'photos/2024', file: 'mid.jpg' })).text).toBe('123');
  });

  it('are not renamed onto the name of a folder beside them (409, changing nothing)', async () => {
    await upload(t, 'ana', 'loose.txt', 'l', { folder: 'photos' });
    const before = await snapshotState(t);
    const res = await t.api('POST', '/api/files/rename', { ...ana, folder: 'photos', file: 'loose.txt', newname: '2023' });
    expectErrorBody(res, 409, 'file_exists');
    expect(await snapshotState(t)).toEqual(before);
  });

  it('that are folders inside folders are deleted whole (tree-trash.test.ts); a missing one is a 404 that changes nothing; renames: tree-rename.test.ts', async () => {
    const before = await snapshotState(t);
    expectErrorBody(
      await t.api('POST', '/api/folders/delete', { ...ana, folder: 'photos/2023/nope', permanent: 'true' }),
      404,
      'folder_not_found',
    );
    expectErrorBody(await t.api('POST', '/api/folders/delete', { ...ana, folder: 'photos/nope' }), 404, 'folder_not_found');
    expect(await snapshotState(t)).toEqual(before);
  });
});

describe("a folder's modifiedAt", () => {
  it("is the latest of its whole subtree: a file uploaded three levels down moves the top folder's", async () => {
    expect((await t.api('POST', '/api/folders/create', { ...ana, folder: 'reels/2030/may', parents: 'true' })).status).toBe(201);
    const top = async () =>
      ((await t.api('GET', '/api/folders', ana)).body.folders as { path: string; modifiedAt: string }[]).find((f) => f.path === 'reels')!
        .modifiedAt;
    const before = await top();
    await new Promise((resolve) => setTimeout(resolve, 20)); // a later clock reading than the folders' own
    const uploaded = await upload(t, 'ana', 'clip.txt', 'x', { folder: 'reels/2030/may' });
    expect(uploaded.status).toBe(201);
    const fileAt = uploaded.body.file.modifiedAt as string;
    expect(fileAt > before).toBe(true);
    expect((await top()) >= fileAt).toBe(true);
  });

  onDisk(() =>
    it("is the latest of its whole subtree: a file written three levels down by another program moves the top folder's", async () => {
      expect((await t.api('POST', '/api/folders/create', { ...ana, folder: 'albums/2030/may', parents: 'true' })).status).toBe(201);
      const deep = path.join(t.storageDir, 'ana', 'albums', '2030', 'may', 'later.txt');
      await writeFile(deep, 'x');
      // A date no directory of the test can have: only the file carries it.
      const later = new Date('2031-01-02T03:04:05.000Z');
      await utimes(deep, later, later);
      const modifiedAt = async (folder?: string) =>
        (await t.api('GET', '/api/folders', folder ? { ...ana, folder } : ana)).body.folders.map(
          (f: { path: string; modifiedAt: string }) => [f.path, f.modifiedAt],
        );
      await vi.waitFor(async () => expect(await modifiedAt()).toContainEqual(['albums', later.toISOString()]), {
        timeout: 8000,
        interval: 25,
      });
      expect(await modifiedAt('albums')).toEqual([['albums/2030', later.toISOString()]]);
      expect(await modifiedAt('albums/2030')).toEqual([['albums/2030/may', later.toISOString()]]);
    }),
  );
});
