/**
 * Issue 25, deleting a folder at any depth (both backends): the whole subtree goes into the trash
 * as one item (its record keeps the parent path), its shares are revoked, the usage still
 * counts it; a restore brings it back whole, making a parent that is gone again; a
 * permanent delete removes it for good; the 404s and 400s.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { embeddedRun } from '../helpers/backend.js';
import { createUser, snapshotState, startTestDaemon, storedBytes, upload, type TestDaemon } from '../helpers/daemon.js';
import { expectErrorBody } from '../helpers/records.js';

let t: TestDaemon;
let n = 0;

beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.close());

/** A new user holding `a/top.txt`, `a/b/mid.txt` and `a/b/c/deep.txt` (shared); answers the user and the share's token. */
async function tree(): Promise<{ username: string; token: string }> {
  const username = `d${++n}`;
  await createUser(t, username);
  expect((await t.api('POST', '/api/folders/create', { username, folder: 'a/b/c', parents: 'true' })).status).toBe(201);
  await upload(t, username, 'top.txt', 'top', { folder: 'a' });
  await upload(t, username, 'mid.txt', 'middle', { folder: 'a/b' });
  await upload(t, username, 'deep.txt', 'bottom', { folder: 'a/b/c' });
  const shared = await t.api('POST', '/api/files/share', { username, folder: 'a/b/c', file: 'deep.txt' });
  expect(shared.status, shared.text).toBe(201);
  const token = new URL(shared.body.file.shareUrl as string).pathname.split('/')[2];
  return { username, token };
}

const usedBytes = async (username: string) => (await t.api('GET', '/api/user', { username })).body.usage.usedBytes as number;
const paths = async (username: string, folder: string) =>
  (await t.api('GET', '/api/folders', { username, folder })).body.folders.map((f: { path: string }) => f.path);
const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );
const trashItems = async (username: string) => (await t.api('GET', '/api/trash', { username })).body.items;

describe('folders.delete at depth', () => {
  it('moves a middle folder whole into the trash as one item, revokes shares below, keeps the usage; restore brings it back whole', async () => {
    const { username, token } = await tree();
    const used = await usedBytes(username);
    const res = await t.api('POST', '/api/folders/delete', { username, folder: 'a/b' });
    expect(res.status, res.text).toBe(200);

    expect(await paths(username, 'a')).toEqual([]);
    if (embeddedRun) expect(await exists(path.join(t.storageDir, username, 'a', 'b'))).toBe(false);
    expectErrorBody(await t.api('GET', '/api/folders/files', { username, folder: 'a/b/c' }), 404, 'folder_not_found');
    expect((await t.api('GET', '/api/folders/files', { username, folder: 'a' })).body.files.map((f: { name: string }) => f.name)).toEqual([
      'top.txt',
    ]);
    const items = await trashItems(username);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ kind: 'folder', name: 'b', folder: 'a', size: 12, fileCount: 2 });
    expect((await fetch(`${t.url}/s/${token}`)).status).toBe(404);
    expect(await usedBytes(username)).toBe(used);

    const restored = await t.api('POST', '/api/trash/restore', { username, id: items[0].id });
    expect(restored.status, restored.text).toBe(201);
    expect(restored.body.restored).toEqual({ kind: 'folder', name: 'b', folder: 'a' });
    expect(await paths(username, 'a')).toEqual(['a/b']);
    expect(await paths(username, 'a/b')).toEqual(['a/b/c']);
    expect((await t.api('GET', '/api/files/download', { username, folder: 'a/b/c', file: 'deep.txt' })).text).toBe('bottom');
    expect((await t.api('GET', '/api/files/download', { username, folder: 'a/b', file: 'mid.txt' })).text).toBe('middle');
    const listed = (await t.api('GET', '/api/folders', { username, folder: 'a' })).body.folders[0];
    expect(listed).toMatchObject({ path: 'a/b', fileCount: 2, folderCount: 1, sizeBytes: 12 });
    expect(await trashItems(username)).toEqual([]);
    expect(await usedBytes(username)).toBe(used);
    expect((await storedBytes(t, username, 'a/b/c/deep.txt')).toString()).toBe('bottom');
  });

  it('restores into a parent that is gone by making it again, level by level', async () => {
    const { username } = await tree();
    expect((await t.api('POST', '/api/folders/delete', { username, folder: 'a/b' })).status).toBe(200);
    const [item] = await trashItems(username);
    expect((await t.api('POST', '/api/folders/delete', { username, folder: 'a', permanent: 'true' })).status).toBe(200);
    expect(await paths(username, '')).toEqual([]);
    const restored = await t.api('POST', '/api/trash/restore', { username, id: item.id });
    expect(restored.status, restored.text).toBe(201);
    expect(await paths(username, '')).toEqual(['a']);
    expect(await paths(username, 'a')).toEqual(['a/b']);
    expect((await t.api('GET', '/api/files/download', { username, folder: 'a/b/c', file: 'deep.txt' })).text).toBe('bottom');
    expect(await usedBytes(username)).toBe(12); // mid.txt and deep.txt; top.txt went with a
  });

  it('restores beside a name taken again with rename=true, and 409 without', async () => {
    const { username } = await tree();
    expect((await t.api('POST', '/api/folders/delete', { username, folder: 'a/b' })).status).toBe(200);
    const [item] = await trashItems(username);
    expect((await t.api('POST', '/api/folders/create', { username, folder: 'a/b' })).status).toBe(201);
    expectErrorBody(await t.api('POST', '/api/trash/restore', { username, id: item.id }), 409, 'folder_exists');
    const restored = await t.api('POST', '/api/trash/restore', { username, id: item.id, rename: 'true' });
    expect(restored.status, restored.text).toBe(201);
    expect(restored.body.restored).toEqual({ kind: 'folder', name: 'b (restored)', folder: 'a' });
    expect((await t.api('GET', '/api/files/download', { username, folder: 'a/b (restored)/c', file: 'deep.txt' })).text).toBe('bottom');
  });

  it('deletes a nested folder for good with permanent=true: its bytes gone from disk and usage, its shares revoked', async () => {
    const { username, token } = await tree();
    const stored = (await snapshotState(t)).tree.length;
    const res = await t.api('POST', '/api/folders/delete', { username, folder: 'a/b', permanent: 'true' });
    expect(res.status, res.text).toBe(200);
    if (embeddedRun) expect(await exists(path.join(t.storageDir, username, 'a', 'b'))).toBe(false);
    // In a bucket: the objects of mid.txt and deep.txt, after their rows.
    else await vi.waitFor(async () => expect((await snapshotState(t)).tree.length).toBe(stored - 2));
    expect(await paths(username, 'a')).toEqual([]);
    expect(await trashItems(username)).toEqual([]);
    expect(await usedBytes(username)).toBe(3);
    expect((await fetch(`${t.url}/s/${token}`)).status).toBe(404);
  });

  it("keeps a trashed subtree's size and file count through a restart (the start-up survey counts every depth)", async () => {
    const { username } = await tree();
    expect((await t.api('POST', '/api/folders/delete', { username, folder: 'a/b' })).status).toBe(200);
    await t.stop();
    await t.restart();
    const items = await trashItems(username);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ kind: 'folder', name: 'b', folder: 'a', size: 12, fileCount: 2 });
    expect(await usedBytes(username)).toBe(15);
  });

  it('answers 404 for a missing folder at depth and 400 for a bad path, changing nothing', async () => {
    const { username } = await tree();
    const before = await snapshotState(t);
    expectErrorBody(await t.api('POST', '/api/folders/delete', { username, folder: 'a/nope' }), 404, 'folder_not_found');
    expectErrorBody(
      await t.api('POST', '/api/folders/delete', { username, folder: 'a/nope/b', permanent: 'true' }),
      404,
      'folder_not_found',
    );
    expectErrorBody(await t.api('POST', '/api/folders/delete', { username, folder: 'a/../b' }), 400, 'invalid_parameter');
    expectErrorBody(await t.api('POST', '/api/folders/delete', { username, folder: 'a/b/' }), 400, 'invalid_parameter');
    expect(await snapshotState(t)).toEqual(before);
  });
});
