/**
 * Issue 25 in cluster mode (PostgreSQL + S3), what only the rows and the bucket show: a folder
 * rename or move writes the folder's one row whatever its subtree holds (and the shares below
 * it, which keep paths), no file row and no object key changes, and a restarted daemon builds
 * the tree again from the rows; a folder copy writes new rows in one commit and one new object
 * per file, and one failing half way leaves neither. The API's answers at depth are the tree-*.test.ts files, run
 * on both backends.
 */
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Client } from '../../daemon/storage/objects/s3-client.js';
import { Database } from '../../daemon/store/postgres/database.js';
import { armFailpoint, disarmFailpoint } from '../../daemon/util/failpoints.js';
import { createUser, snapshotState, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';

let t: TestDaemon;
let database: Database;
const ana = { username: 'ana' };
/** Files in the deepest folder: enough that a write per file would show. */
const FILES = 60;

beforeAll(async () => {
  t = await startTestDaemon({ backend: 'cluster' });
  database = await Database.connect(t.env.NIMBUS_DATABASE_URL!);
  await createUser(t, 'ana');
  expect((await t.api('POST', '/api/folders/create', { ...ana, folder: 'a/b/c', parents: 'true' })).status).toBe(201);
  expect((await t.api('POST', '/api/folders/create', { ...ana, folder: 'other' })).status).toBe(201);
  await upload(t, 'ana', 'mid.txt', 'middle', { folder: 'a/b' });
  for (let i = 0; i < FILES; i += 10) {
    await Promise.all(Array.from({ length: 10 }, (_, j) => upload(t, 'ana', `f${i + j}.txt`, `file ${i + j}`, { folder: 'a/b/c' })));
  }
  expect((await t.api('POST', '/api/files/share', { ...ana, folder: 'a/b/c', file: 'f0.txt' })).status).toBe(201);
}, 120_000);
afterAll(async () => {
  await database.close();
  await t.close();
});

/** Every row of the tables, by table and key, with the transaction that last wrote it (xmin). */
async function rowVersions(): Promise<Map<string, string>> {
  const versions = new Map<string, string>();
  for (const table of ['folders', 'files', 'shares']) {
    const { rows } = await database.query<{ key: string; xmin: string }>(`SELECT key, xmin::text FROM "${table}"`);
    for (const row of rows) versions.set(`${table}/${row.key}`, row.xmin);
  }
  return versions;
}

/** The rows written since `before` (changed, added or gone), as `table/key`. */
function written(before: Map<string, string>, after: Map<string, string>): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((key) => before.get(key) !== after.get(key)).sort();
}

const tables = (keys: string[]) => keys.map((key) => key.slice(0, key.indexOf('/')));

describe('a folder of a tree in PostgreSQL', () => {
  it('moves and renames by writing its one row (and the shares below it), whatever it holds; no object key changes', async () => {
    const objects = (await snapshotState(t)).tree;
    const before = await rowVersions();
    const moved = await t.api('POST', '/api/folders/move', { ...ana, folder: 'a/b', to: 'other' });
    expect(moved.status, moved.text).toBe(201);
    expect(moved.body.folder).toMatchObject({ path: 'other/b', fileCount: FILES + 1, folderCount: 1 });
    const afterMove = await rowVersions();
    expect(tables(written(before, afterMove))).toEqual(['folders', 'shares']);

    const renamed = await t.api('POST', '/api/folders/rename', { ...ana, folder: 'other/b/c', newname: 'deep' });
    expect(renamed.status, renamed.text).toBe(201);
    expect(tables(written(afterMove, await rowVersions()))).toEqual(['folders', 'shares']);

    expect((await snapshotState(t)).tree).toEqual(objects);
    const listed = await t.api('GET', '/api/folders/files', { ...ana, folder: 'other/b/deep' });
    expect(listed.body.files).toHaveLength(FILES);
    expect(listed.body.files.find((f: { name: string }) => f.name === 'f0.txt')).toMatchObject({ shared: true });
  });

  it('comes back whole after a restart, built from the rows', async () => {
    await t.stop();
    await t.restart();
    const inOther = await t.api('GET', '/api/folders', { ...ana, folder: 'other' });
    expect(inOther.body.folders).toMatchObject([{ path: 'other/b', fileCount: FILES + 1, folderCount: 1 }]);
    expect((await t.api('GET', '/api/files/download', { ...ana, folder: 'other/b/deep', file: 'f7.txt' })).text).toBe('file 7');
    expect((await t.api('GET', '/api/folders', { ...ana, folder: 'a' })).body.folders).toEqual([]);
  });

  it('copies a folder as new rows (parents first, new ids) and one new object per file, all in one commit; bytes identical from a second daemon', async () => {
    expect((await t.api('POST', '/api/folders/create', { ...ana, folder: 'copies' })).status).toBe(201);
    const objectsBefore = new Set((await snapshotState(t)).tree);
    const before = await rowVersions();
    const copied = await t.api('POST', '/api/folders/copy', { ...ana, folder: 'other', to: 'copies' });
    expect(copied.status, copied.text).toBe(201);
    expect(copied.body.folder).toMatchObject({ path: 'copies/other', fileCount: FILES + 1, folderCount: 2 });

    const added = written(before, await rowVersions());
    // Three folders (other, b, deep) and every file: new rows only, none of the source's touched, all in one transaction.
    expect(tables(added).filter((table) => table === 'folders')).toHaveLength(3);
    expect(tables(added).filter((table) => table === 'files')).toHaveLength(FILES + 1);
    expect(added.every((key) => !before.has(key))).toBe(true);
    const { rows } = await database.query<{ xmin: string }>(
      `SELECT DISTINCT xmin::text FROM files WHERE key = ANY($1) UNION SELECT DISTINCT xmin::text FROM folders WHERE key = ANY($1)`,
      [added.map((key) => key.slice(key.indexOf('/') + 1))],
    );
    expect(rows).toHaveLength(1);
    // One new object per file, named by its new row (as big as its source); the source's objects are all still there.
    const objectsAfter = (await snapshotState(t)).tree;
    const newObjects = objectsAfter.filter((key) => !objectsBefore.has(key));
    expect(newObjects).toHaveLength(FILES + 1);
    expect(objectsAfter.filter((key) => objectsBefore.has(key))).toHaveLength(objectsBefore.size);
    const newFileKeys = added.filter((key) => key.startsWith('files/')).map((key) => key.slice('files/'.length));
    // Listed as `files/<id> <size>`.
    expect(newObjects.map((object) => object.slice('files/'.length, object.indexOf(' '))).sort()).toEqual(newFileKeys.sort());

    const second = await startTestDaemon({ backend: 'cluster', env: t.env });
    try {
      const download = (folder: string, file: string) => second.api('GET', '/api/files/download', { ...ana, folder, file });
      expect((await download('copies/other/b/deep', 'f7.txt')).text).toBe('file 7');
      expect((await download('copies/other/b', 'mid.txt')).text).toBe('middle');
      const listed = await second.api('GET', '/api/folders/files', { ...ana, folder: 'copies/other/b/deep' });
      expect(listed.body.files).toHaveLength(FILES);
      // A copy is new and unshared.
      expect(listed.body.files.find((f: { name: string }) => f.name === 'f0.txt')).toMatchObject({ shared: false });
    } finally {
      await second.close();
    }
    // The source is as it was.
    expect((await t.api('GET', '/api/files/download', { ...ana, folder: 'other/b/deep', file: 'f7.txt' })).text).toBe('file 7');
  });

  it('leaves out a file whose object is gone by the time it is copied (deleted meanwhile), copying the rest', async () => {
    expect((await t.api('POST', '/api/folders/create', { ...ana, folder: 'thinning/sub', parents: 'true' })).status).toBe(201);
    expect((await t.api('POST', '/api/folders/create', { ...ana, folder: 'thinned' })).status).toBe(201);
    await upload(t, 'ana', 'kept.txt', 'kept', { folder: 'thinning/sub' });
    await upload(t, 'ana', 'lost.txt', 'lost', { folder: 'thinning/sub' });
    const { rows } = await database.query<{ key: string }>(`SELECT key FROM files WHERE data->>'name' = 'lost.txt'`);
    expect(rows).toHaveLength(1);
    // As a delete does after committing its row away: the object goes (here before the row, as if the delete raced the copy).
    const s3 = createS3Client({
      endpoint: t.env.NIMBUS_S3_ENDPOINT!,
      region: t.env.NIMBUS_S3_REGION!,
      accessKeyId: t.env.NIMBUS_S3_ACCESS_KEY_ID!,
      secretAccessKey: t.env.NIMBUS_S3_SECRET_ACCESS_KEY!,
    });
    try {
      await s3.send(new DeleteObjectCommand({ Bucket: t.env.NIMBUS_S3_BUCKET!, Key: `files/${rows[0].key}` }));
    } finally {
      s3.destroy();
    }
    const copied = await t.api('POST', '/api/folders/copy', { ...ana, folder: 'thinning', to: 'thinned' });
    expect(copied.status, copied.text).toBe(201);
    expect(copied.body.folder).toMatchObject({ path: 'thinned/thinning', fileCount: 1, folderCount: 1, sizeBytes: 4 });
    const listed = await t.api('GET', '/api/folders/files', { ...ana, folder: 'thinned/thinning/sub' });
    expect(listed.body.files.map((f: { name: string }) => f.name)).toEqual(['kept.txt']);
    expect((await t.api('GET', '/api/files/download', { ...ana, folder: 'thinned/thinning/sub', file: 'kept.txt' })).text).toBe('kept');
  });

  it('a copy failing once its objects are made deletes them, commits no row and holds no quota', async () => {
    expect((await t.api('POST', '/api/folders/create', { ...ana, folder: 'failed' })).status).toBe(201);
    expect((await t.api('POST', '/api/folders/create', { ...ana, folder: 'source/sub', parents: 'true' })).status).toBe(201);
    for (const [folder, file] of [
      ['source', 'one.txt'],
      ['source/sub', 'two.txt'],
      ['source/sub', 'three.txt'],
    ])
      await upload(t, 'ana', file, `bytes of ${file}`, { folder });
    const before = await snapshotState(t);
    const rows = await rowVersions();
    const used = (await t.api('GET', '/api/user', ana)).body.usage.usedBytes as number;
    armFailpoint('folder.copy.objects', 'EIO');
    try {
      const res = await t.api('POST', '/api/folders/copy', { ...ana, folder: 'source', to: 'failed' });
      expect(res.status, res.text).toBeGreaterThanOrEqual(500);
    } finally {
      disarmFailpoint('folder.copy.objects');
    }
    expect(written(rows, await rowVersions())).toEqual([]);
    expect(await snapshotState(t)).toEqual(before);
    expect((await t.api('GET', '/api/folders', { ...ana, folder: 'failed' })).body.folders).toEqual([]);
    expect((await t.api('GET', '/api/user', ana)).body.usage.usedBytes).toBe(used);
    // Nothing left behind: the same copy lands now.
    const again = await t.api('POST', '/api/folders/copy', { ...ana, folder: 'source', to: 'failed' });
    expect(again.status, again.text).toBe(201);
    expect(again.body.folder).toMatchObject({ path: 'failed/source', fileCount: 3, folderCount: 1 });
  });
});

describe('a shared file renamed in PostgreSQL', () => {
  it('writes its row and its share in one transaction: no daemon sees the share’s file gone in between (and revokes it)', async () => {
    await upload(t, 'ana', 'shared.txt', 'shared', { folder: 'other' });
    expect((await t.api('POST', '/api/files/share', { ...ana, folder: 'other', file: 'shared.txt' })).status).toBe(201);
    const before = await rowVersions();
    const renamed = await t.api('POST', '/api/files/rename', { ...ana, folder: 'other', file: 'shared.txt', newname: 'renamed.txt' });
    expect(renamed.status, renamed.text).toBe(201);
    const after = await rowVersions();
    const changed = written(before, after);
    expect(tables(changed)).toEqual(['files', 'shares']);
    // One transaction wrote both (two commits gave two): another daemon saw the file renamed
    // and its share still at the old name, and revoked the share after the grace period.
    expect(new Set(changed.map((key) => after.get(key))).size).toBe(1);
  });
});
