/**
 * The embedded store's db.json and object mode's collections (docs/cluster.md, "Records
 * added"): files and folders are written as arrays, and an older db.json without them gets
 * empty ones at start.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoredFile, StoredFolder } from '../../daemon/store/schema.js';
import { Store } from '../../daemon/store/store.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const folder: StoredFolder = { id: 'a'.repeat(32), username: 'ana', name: 'docs', mtimeMs: 1, trashId: null };
const file: StoredFile = {
  id: 'b'.repeat(32),
  username: 'ana',
  folderId: folder.id,
  name: 'a.txt',
  size: 5,
  mtimeMs: 2,
  contentType: 'text/plain',
  etag: '"x"',
  trashId: null,
};

describe('db.json', () => {
  it('keeps files and folders across a reopen, and starts with empty ones', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-store-json-'));
    const dbFile = path.join(dir, 'db.json');
    const first = new Store(dbFile);
    await first.open();
    expect(JSON.parse(await readFile(dbFile, 'utf8'))).toMatchObject({ files: [], folders: [] });
    first.folders.set(folder.id, folder);
    first.files.set(file.id, file);
    await first.commit();
    await first.close();

    const second = new Store(dbFile);
    await second.open();
    expect(second.files.get(file.id)).toEqual(file);
    expect(second.folders.get(folder.id)).toEqual(folder);
    expect(second.database).toBeNull();
    expect(second.available).toBe(true);
    await second.close();
  });

  it('gives a store written before issue 14 empty files and folders, written back at once', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-store-json-'));
    const dbFile = path.join(dir, 'db.json');
    const old = { schema: 1, users: [], roles: [], shares: [], keys: [], verifications: [], sessions: [], resets: [], trash: [] };
    await writeFile(dbFile, JSON.stringify(old));
    const store = new Store(dbFile);
    await store.open();
    expect(store.files.size).toBe(0);
    expect(JSON.parse(await readFile(dbFile, 'utf8'))).toMatchObject({ files: [], folders: [] });
    await store.close();
  });
});
