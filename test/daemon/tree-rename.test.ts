/**
 * Issue 25, renaming a folder at any depth (both backends: on disk one rename of the
 * directory, in object mode one folder row), the index node relinked, the shares below following, one `folder.moved` event with the old
 * path in `from` (none per file), the 409/404/400 refusals, and a rename racing uploads into
 * the subtree.
 */
import { readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { embeddedRun } from '../helpers/backend.js';
import { createUser, snapshotState, startTestDaemon, TEST_KEY, upload, type TestDaemon } from '../helpers/daemon.js';
import { openEventStream } from '../helpers/events.js';
import { expectErrorBody, expectFolder } from '../helpers/records.js';

let t: TestDaemon;
let n = 0;
const WAIT = { timeout: 15_000, interval: 50 };

beforeAll(async () => {
  t = await startTestDaemon();
});
afterAll(() => t.close());

/** A new user holding `a/b/c/deep.txt` (shared) and `a/b/mid.txt`; answers the user and the share's token. */
async function tree(): Promise<{ username: string; token: string }> {
  const username = `r${++n}`;
  await createUser(t, username);
  expect((await t.api('POST', '/api/folders/create', { username, folder: 'a/b/c', parents: 'true' })).status).toBe(201);
  await upload(t, username, 'deep.txt', 'bottom', { folder: 'a/b/c' });
  await upload(t, username, 'mid.txt', 'middle', { folder: 'a/b' });
  const shared = await t.api('POST', '/api/files/share', { username, folder: 'a/b/c', file: 'deep.txt' });
  expect(shared.status, shared.text).toBe(201);
  const token = new URL(shared.body.file.shareUrl as string).pathname.split('/')[2];
  return { username, token };
}

/**
 * A file written after an operation, by another program on disk (once the watcher reports it,
 * it has reported any echo of the operation too), through the API in object mode.
 */
async function writeMarker(username: string): Promise<void> {
  if (embeddedRun) await writeFile(path.join(t.storageDir, username, 'after.txt'), 'z');
  else expect((await upload(t, username, 'after.txt', 'z')).status).toBe(201);
}

const usedBytes = async (username: string) => (await t.api('GET', '/api/user', { username })).body.usage.usedBytes as number;
const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

describe('folders.rename at depth', () => {
  it('renames a middle folder whole: listings under the new path, none under the old, the share still downloads, usage unchanged, one folder.moved event', async () => {
    const { username, token } = await tree();
    const used = await usedBytes(username);
    const stream = await openEventStream(t.url, { 'API-Key': TEST_KEY });
    try {
      await vi.waitFor(() => expect(stream.text()).toContain(': connected'), WAIT);
      const res = await t.api('POST', '/api/folders/rename', { username, folder: 'a/b', newname: 'x' });
      expect(res.status, res.text).toBe(201);
      expectFolder(res.body.folder);
      expect(res.body.folder).toMatchObject({ name: 'x', path: 'a/x', fileCount: 2, folderCount: 1, sizeBytes: 12 });

      if (embeddedRun) {
        expect(await readdir(path.join(t.storageDir, username, 'a'))).toEqual(['x']);
        expect(await exists(path.join(t.storageDir, username, 'a', 'x', 'c', 'deep.txt'))).toBe(true);
      }
      const inA = await t.api('GET', '/api/folders', { username, folder: 'a' });
      expect(inA.body.folders.map((f: { path: string }) => f.path)).toEqual(['a/x']);
      expect((await t.api('GET', '/api/folders', { username, folder: 'a/x' })).body.folders.map((f: { path: string }) => f.path)).toEqual([
        'a/x/c',
      ]);
      const deep = await t.api('GET', '/api/folders/files', { username, folder: 'a/x/c' });
      expect(deep.body.files.map((f: { name: string; folder: string; shared: boolean }) => [f.name, f.folder, f.shared])).toEqual([
        ['deep.txt', 'a/x/c', true],
      ]);
      expectErrorBody(await t.api('GET', '/api/folders/files', { username, folder: 'a/b/c' }), 404, 'folder_not_found');
      expectErrorBody(await t.api('GET', '/api/folders', { username, folder: 'a/b' }), 404, 'folder_not_found');
      expect((await t.api('GET', `/s/${token}`, {}, { key: null })).text).toBe('bottom');
      expect(await usedBytes(username)).toBe(used);

      await writeMarker(username);
      await vi.waitFor(() => expect(stream.messages.some((m) => m.data.file === 'after.txt')).toBe(true), WAIT);
      const mine = stream.messages.filter((m) => m.data.username === username && m.data.file !== 'after.txt');
      expect(mine.map((m) => [m.event, m.data.folder, m.data.from, m.data.file])).toEqual([['folder.moved', 'a/x', 'a/b', null]]);
    } finally {
      await stream.close();
    }
  });

  it('refuses a name taken in the parent (409, case twins too), a missing folder (404), a bad name (400), changing nothing', async () => {
    const { username } = await tree();
    expect((await t.api('POST', '/api/folders/create', { username, folder: 'a/Other' })).status).toBe(201);
    await upload(t, username, 'note.txt', 'n', { folder: 'a' });
    const before = await snapshotState(t);
    expectErrorBody(await t.api('POST', '/api/folders/rename', { username, folder: 'a/b', newname: 'Other' }), 409, 'folder_exists');
    expectErrorBody(await t.api('POST', '/api/folders/rename', { username, folder: 'a/b', newname: 'note.txt' }), 409, 'folder_exists');
    expectErrorBody(await t.api('POST', '/api/folders/rename', { username, folder: 'a/b', newname: 'other' }), 409, 'name_case_conflict');
    expectErrorBody(await t.api('POST', '/api/folders/rename', { username, folder: 'a/nope', newname: 'y' }), 404, 'folder_not_found');
    expectErrorBody(await t.api('POST', '/api/folders/rename', { username, folder: 'a/b/../b', newname: 'y' }), 400, 'invalid_parameter');
    expectErrorBody(await t.api('POST', '/api/folders/rename', { username, folder: 'a/b', newname: 'y/z' }), 400, 'invalid_parameter');
    expect(await snapshotState(t)).toEqual(before);
    // Only its case changes: allowed, the folder itself is no twin.
    const recased = await t.api('POST', '/api/folders/rename', { username, folder: 'a/b', newname: 'B' });
    expect(recased.status, recased.text).toBe(201);
    expect(recased.body.folder).toMatchObject({ path: 'a/B', fileCount: 2 });
  });

  it('racing uploads into the subtree: each upload lands under the new path or is refused cleanly, never lost or outside the tree', async () => {
    const { username } = await tree();
    const acknowledged: string[] = [];
    const refused: number[] = [];
    // Four uploaders write into a/b/c one file after another until one is refused; the rename starts once some have landed.
    const uploader = async (w: number) => {
      for (let i = 0; i < 200; i++) {
        const file = `race-${w}-${i}.txt`;
        const res = await t.api('POST', '/api/files/upload', { username, folder: 'a/b/c', file }, { body: file });
        if (res.status !== 201) return refused.push(res.status);
        acknowledged.push(file);
      }
    };
    const uploaders = Promise.all([0, 1, 2, 3].map(uploader));
    await vi.waitFor(() => expect(acknowledged.length).toBeGreaterThanOrEqual(4), WAIT);
    const rename = await t.api('POST', '/api/folders/rename', { username, folder: 'a/b', newname: 'moved' });
    expect(rename.status, rename.text).toBe(201);
    await uploaders;
    expect(refused.every((status) => status === 404)).toBe(true);
    const listed = (await t.api('GET', '/api/folders/files', { username, folder: 'a/moved/c' })).body.files.map(
      (f: { name: string }) => f.name,
    );
    expect(listed.filter((f: string) => f.startsWith('race')).sort()).toEqual([...acknowledged].sort());
    if (embeddedRun) {
      expect(await readdir(path.join(t.storageDir, username, 'a'))).toEqual(['moved']);
      const onDisk = (await readdir(path.join(t.storageDir, username, 'a', 'moved', 'c'))).filter((f) => f.startsWith('race'));
      expect(onDisk.sort()).toEqual([...acknowledged].sort());
    }
  });
});

describe('folders.move', () => {
  it('moves a subtree into another folder and back to the root: listings, the share, usage follow, one folder.moved event each time', async () => {
    const { username, token } = await tree();
    expect((await t.api('POST', '/api/folders/create', { username, folder: 'other' })).status).toBe(201);
    const used = await usedBytes(username);
    const stream = await openEventStream(t.url, { 'API-Key': TEST_KEY });
    try {
      await vi.waitFor(() => expect(stream.text()).toContain(': connected'), WAIT);
      const res = await t.api('POST', '/api/folders/move', { username, folder: 'a/b', to: 'other' });
      expect(res.status, res.text).toBe(201);
      expectFolder(res.body.folder);
      expect(res.body.folder).toMatchObject({ name: 'b', path: 'other/b', fileCount: 2, folderCount: 1, sizeBytes: 12 });
      const top = await t.api('GET', '/api/folders', { username });
      expect(top.body.folders.map((f: { path: string; fileCount: number }) => [f.path, f.fileCount])).toEqual([
        ['a', 0],
        ['other', 2],
      ]);
      if (embeddedRun) expect(await readdir(path.join(t.storageDir, username, 'a'))).toEqual([]);
      expect((await t.api('GET', '/api/folders/files', { username, folder: 'other/b/c' })).body.files[0]).toMatchObject({
        name: 'deep.txt',
        shared: true,
      });
      expect((await t.api('GET', `/s/${token}`, {}, { key: null })).text).toBe('bottom');
      expect(await usedBytes(username)).toBe(used);

      const back = await t.api('POST', '/api/folders/move', { username, folder: 'other/b', to: '' });
      expect(back.status, back.text).toBe(201);
      expect(back.body.folder).toMatchObject({ path: 'b', fileCount: 2 });
      expect((await t.api('GET', `/s/${token}`, {}, { key: null })).text).toBe('bottom');

      await writeMarker(username);
      await vi.waitFor(() => expect(stream.messages.some((m) => m.data.file === 'after.txt')).toBe(true), WAIT);
      const mine = stream.messages.filter((m) => m.data.username === username && m.data.file !== 'after.txt');
      expect(mine.map((m) => [m.event, m.data.folder, m.data.from, m.data.file])).toEqual([
        ['folder.moved', 'other/b', 'a/b', null],
        ['folder.moved', 'b', 'other/b', null],
      ]);
    } finally {
      await stream.close();
    }
  });

  it('refuses a move into itself or below it, a name taken at the target, a missing folder or target, changing nothing', async () => {
    const { username } = await tree();
    expect((await t.api('POST', '/api/folders/create', { username, folder: 'x/B', parents: 'true' })).status).toBe(201);
    const before = await snapshotState(t);
    expectErrorBody(await t.api('POST', '/api/folders/move', { username, folder: 'a/b', to: 'a/b' }), 409, 'conflict');
    expectErrorBody(await t.api('POST', '/api/folders/move', { username, folder: 'a/b', to: 'a/b/c' }), 409, 'conflict');
    expectErrorBody(await t.api('POST', '/api/folders/move', { username, folder: 'a', to: 'a/b/c' }), 409, 'conflict');
    expectErrorBody(await t.api('POST', '/api/folders/move', { username, folder: 'a/b', to: 'a' }), 409, 'folder_exists');
    expectErrorBody(await t.api('POST', '/api/folders/move', { username, folder: 'a/b', to: 'x' }), 409, 'name_case_conflict');
    expectErrorBody(await t.api('POST', '/api/folders/move', { username, folder: 'a/nope', to: 'x' }), 404, 'folder_not_found');
    expectErrorBody(await t.api('POST', '/api/folders/move', { username, folder: 'a/b', to: 'nope' }), 404, 'folder_not_found');
    expectErrorBody(await t.api('POST', '/api/folders/move', { username, folder: 'a/b', to: '../x' }), 400, 'invalid_parameter');
    expect(await snapshotState(t)).toEqual(before);
    // `ab` is not inside `a`: a sibling whose name starts alike moves into it.
    expect((await t.api('POST', '/api/folders/create', { username, folder: 'ab' })).status).toBe(201);
    expect((await t.api('POST', '/api/folders/move', { username, folder: 'a', to: 'ab' })).status).toBe(201);
  });
});
