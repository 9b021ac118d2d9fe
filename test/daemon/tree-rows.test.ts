/**
 * Issue 25 in PostgreSQL (docs/tree.md, "Cluster"): folders are rows with a parent. A database
 * of the one-level schema upgrades in place (its folders at the root, `parent_id` NULL), and a
 * name is unique among a parent's visible folders only, so `a/june` and `b/june` both exist.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../daemon/errors.js';
import { Database } from '../../daemon/store/postgres/database.js';
import { migrate } from '../../daemon/store/postgres/migrate.js';
import { MIGRATIONS } from '../../daemon/store/postgres/migrations/index.js';
import type { StoredFolder } from '../../daemon/store/schema.js';
import { Store } from '../../daemon/store/store.js';
import { sharedPostgres } from '../helpers/engines.js';

const folder = (id: string, name: string, parentId: string | null): StoredFolder => ({
  id,
  username: 'ana',
  name,
  mtimeMs: 1,
  trashId: null,
  parentId,
});

let newDatabase: () => Promise<string>;
const opened: Store[] = [];
beforeAll(async () => {
  const engine = await sharedPostgres();
  newDatabase = () => engine.createDatabase();
});
afterAll(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close().catch(() => undefined)));
});

describe('folders as rows with a parent', () => {
  it('upgrade a one-level database in place: its folders stay at the root', async () => {
    const url = await newDatabase();
    const database = await Database.connect(url);
    try {
      await migrate(
        database,
        MIGRATIONS.filter((m) => m.version <= 2),
      );
      await database.query(`INSERT INTO folders (key, data) VALUES ('f1', $1)`, [
        JSON.stringify({ id: 'f1', username: 'ana', name: 'docs', mtimeMs: 1, trashId: null }),
      ]);
      await migrate(database);
      const { rows } = await database.query<{ parent_id: string | null }>(`SELECT parent_id FROM folders WHERE key = 'f1'`);
      expect(rows).toEqual([{ parent_id: null }]);
    } finally {
      await database.close();
    }
    const store = await Store.openPostgres(url);
    opened.push(store);
    expect(store.folders.get('f1')?.name).toBe('docs');
    // A root folder of the same name is still taken; one inside it is not.
    store.folders.set('f2', folder('f2', 'docs', null));
    await expect(store.commit()).rejects.toBeInstanceOf(ApiError);
    store.folders.set('f3', folder('f3', 'docs', 'f1'));
    await store.commit();
  });

  it('keep a name unique among one parent’s visible folders only', async () => {
    const store = await Store.openPostgres(await newDatabase());
    opened.push(store);
    store.folders.set('a', folder('a', 'a', null));
    store.folders.set('b', folder('b', 'b', null));
    store.folders.set('aj', folder('aj', 'june', 'a'));
    store.folders.set('bj', folder('bj', 'june', 'b'));
    await store.commit();
    store.folders.set('aj2', folder('aj2', 'june', 'a'));
    const refused = await store.commit().catch((err: unknown) => err);
    expect((refused as ApiError).code).toBe('conflict');
    expect(store.folders.has('aj2')).toBe(false);
    // One in the trash frees its name.
    store.folders.set('aj', { ...folder('aj', 'june', 'a'), trashId: 't1' });
    store.folders.set('aj3', folder('aj3', 'june', 'a'));
    await store.commit();
  });
});
