/**
 * Issue 25 in object storage, for now: folders stay one level deep there. A nested path that
 * names nothing is a 404 as any missing folder, and creating a nested folder is a clear 400:
 * never a 5xx, never half a tree.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, snapshotState, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { expectErrorBody } from '../helpers/records.js';

let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon({ backend: 'object' });
  await createUser(t, 'ana');
  await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'docs' });
}, 60_000);
afterAll(() => t.close());

describe('object storage and folder paths', () => {
  it('answers 404 for a nested path and 400 for creating one, changing nothing', async () => {
    const before = await snapshotState(t);
    const ana = { username: 'ana' };
    expectErrorBody(await t.api('GET', '/api/folders/files', { ...ana, folder: 'docs/june' }), 404, 'folder_not_found');
    expectErrorBody(await t.api('GET', '/api/folders', { ...ana, folder: 'docs/june' }), 404, 'folder_not_found');
    expectErrorBody(
      await t.api('POST', '/api/files/upload', { ...ana, folder: 'docs/june', file: 'a.txt' }, { body: 'x' }),
      404,
      'folder_not_found',
    );
    expectErrorBody(await t.api('GET', '/api/files/download', { ...ana, folder: 'docs/june', file: 'a.txt' }), 404, 'folder_not_found');
    expectErrorBody(await t.api('POST', '/api/folders/delete', { ...ana, folder: 'docs/june' }), 404, 'folder_not_found');
    const created = await t.api('POST', '/api/folders/create', { ...ana, folder: 'docs/june' });
    expectErrorBody(created, 400, 'invalid_parameter');
    expect(created.body.error).toMatch(/inside folders/);
    expectErrorBody(await t.api('POST', '/api/folders/create', { ...ana, folder: 'docs/june', parents: 'true' }), 400, 'invalid_parameter');
    expect(await snapshotState(t)).toEqual(before);
    const listed = await t.api('GET', '/api/folders', ana);
    expect(listed.body.folders).toMatchObject([{ name: 'docs', path: 'docs', fileCount: 0, folderCount: 0 }]);
  });

  it('refuses moving a folder into another with a clear 400, changing nothing (a nested rename names nothing: 404)', async () => {
    const ana = { username: 'ana' };
    expect((await t.api('POST', '/api/folders/create', { ...ana, folder: 'other' })).status).toBe(201);
    const before = await snapshotState(t);
    const moved = await t.api('POST', '/api/folders/move', { ...ana, folder: 'docs', to: 'other' });
    expectErrorBody(moved, 400, 'invalid_parameter');
    expect(moved.body.error).toMatch(/object storage/);
    expectErrorBody(await t.api('POST', '/api/folders/rename', { ...ana, folder: 'docs/june', newname: 'x' }), 404, 'folder_not_found');
    expect(await snapshotState(t)).toEqual(before);
  });

  it('refuses copying a folder with a clear 400 (a missing one is 404), changing nothing', async () => {
    const ana = { username: 'ana' };
    expect((await t.api('POST', '/api/folders/create', { ...ana, folder: 'copies' })).status).toBe(201);
    const before = await snapshotState(t);
    const copied = await t.api('POST', '/api/folders/copy', { ...ana, folder: 'docs', to: 'copies' });
    expectErrorBody(copied, 400, 'invalid_parameter');
    expect(copied.body.error).toMatch(/object storage/);
    expectErrorBody(await t.api('POST', '/api/folders/copy', { ...ana, folder: 'docs/june' }), 404, 'folder_not_found');
    expect(await snapshotState(t)).toEqual(before);
  });
});
