/**
 * Issue 25 until `nimbus migrate` carries trees: an embedded installation holding folders
 * inside folders (or a trashed file from one) is refused before anything is copied, naming
 * them, rather than migrated without their files.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEmbedded } from '../../daemon/migrate/embedded-source.js';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';

let t: TestDaemon;

beforeAll(async () => {
  t = await startTestDaemon({ backend: 'embedded' });
  await createUser(t, 'ana');
  await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'docs' });
  await upload(t, 'ana', 'flat.txt', 'flat', { folder: 'docs' });
});
afterAll(() => t.close());

describe('reading an embedded installation for nimbus migrate', () => {
  it('takes one-level folders as before', async () => {
    const read = await readEmbedded(t.dataDir, t.storageDir);
    expect(read.files.map((f) => `${f.folder}:${f.name}`)).toEqual(['docs:flat.txt']);
  });

  it('refuses a tree with a folder inside a folder, naming it, before anything is copied', async () => {
    expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'docs/2024', parents: 'true' })).status).toBe(201);
    expect((await upload(t, 'ana', 'deep.txt', 'deep', { folder: 'docs/2024' })).status).toBe(201);
    await expect(readEmbedded(t.dataDir, t.storageDir)).rejects.toThrow(/ana\/docs\/2024/);
    await expect(readEmbedded(t.dataDir, t.storageDir)).rejects.toMatchObject({ name: 'MigrationRefused' });
  });
});
