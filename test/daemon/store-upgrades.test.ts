/**
 * Upgrades and downgrades (issue 22, item 12): a store written by a newer Nimbus (db.json with a
 * higher `schema`, a database with a newer migration) stops the start with a clear message and
 * is left exactly as it was; what this version does not know of a store it may open (collections
 * it has no Map for, fields of records it has no type for) is written back as it was found.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startDaemon } from '../../daemon/index.js';
import { Database } from '../../daemon/store/postgres/database.js';
import { migrate } from '../../daemon/store/postgres/migrate.js';
import { MIGRATIONS } from '../../daemon/store/postgres/migrations/index.js';
import { SCHEMA_VERSION } from '../../daemon/store/schema.js';
import { Store } from '../../daemon/store/store.js';
import { childEnv, runCli } from '../helpers/child.js';
import { createUser, editDb, readDb, startTestDaemon, TEST_KEY, type TestDaemon } from '../helpers/daemon.js';
import { sharedPostgres } from '../helpers/engines.js';

const tempDir = () => mkdtemp(path.join(os.tmpdir(), 'nimbus-upgrades-'));
const quiet = { port: 0, apiKey: TEST_KEY, env: {}, log: () => undefined };
const NEWER = SCHEMA_VERSION + 1;
const REFUSAL = new RegExp(
  `db\\.json has schema ${NEWER}; this Nimbus knows schema ${SCHEMA_VERSION} at most: it was written by a newer Nimbus; upgrade Nimbus or restore a backup`,
);

/** A data directory whose db.json (and backup) a newer Nimbus wrote: a new collection, and schema + 1. */
async function newerDataDir(): Promise<{ dataDir: string; db: string; bak: string }> {
  const dataDir = await tempDir();
  const db = JSON.stringify({
    schema: NEWER,
    users: [],
    roles: [{ name: 'user', maxStorage: 128, badge: '/badges/user.svg', builtIn: true, tier: 'free' }],
    shares: [],
    keys: [],
    verifications: [],
    sessions: [],
    resets: [],
    trash: [],
    albums: [{ id: 'a1', title: 'Summer' }],
  });
  const bak = JSON.stringify({ schema: NEWER, users: [], roles: [], shares: [], keys: [], verifications: [], albums: [] });
  await writeFile(path.join(dataDir, 'db.json'), db);
  await writeFile(path.join(dataDir, 'db.json.bak'), bak);
  return { dataDir, db, bak };
}

describe('a db.json written by a newer Nimbus', () => {
  it('stops the start naming the file and both schemas, and leaves db.json and its backup byte-identical', async () => {
    const { dataDir, db, bak } = await newerDataDir();
    try {
      const file = path.join(dataDir, 'db.json');
      await expect(startDaemon({ ...quiet, dataDir })).rejects.toThrow(REFUSAL);
      await expect(startDaemon({ ...quiet, dataDir })).rejects.toThrow(file);
      expect(await readFile(file, 'utf8')).toBe(db);
      expect(await readFile(`${file}.bak`, 'utf8')).toBe(bak);
      // Nothing else was written but the log saying why (no temp file, no backup rotation).
      expect((await readdir(dataDir)).filter((n) => n !== 'storage').sort()).toEqual(['db.json', 'db.json.bak', 'logs']);
      expect(await readFile(path.join(dataDir, 'logs', 'nimbus.log'), 'utf8')).toMatch(
        /Nimbus could not start: .*written by a newer Nimbus/,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('makes `nimbus daemon` exit 1 with the one message, no stack trace', async () => {
    const { dataDir, db, bak } = await newerDataDir();
    try {
      const run = runCli(['daemon', '--port', '0', '--data-dir', dataDir], childEnv({ NIMBUS_API_KEY: TEST_KEY, NIMBUS_KEYCHAIN: 'off' }));
      expect(await run.exited).toBe(1);
      expect(run.stderr()).toMatch(REFUSAL);
      expect(run.stderr()).not.toMatch(/\n\s+at /);
      expect(run.stdout()).not.toMatch(/listening/);
      expect(await readFile(path.join(dataDir, 'db.json'), 'utf8')).toBe(db);
      expect(await readFile(path.join(dataDir, 'db.json.bak'), 'utf8')).toBe(bak);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('what this version does not know of a db.json of its schema', () => {
  let t: TestDaemon;
  const albums = [{ id: 'a1', title: 'Summer', photos: [1, 2, 3] }];
  const preferences = { theme: 'dark', nested: { deep: [true, null] } };
  beforeAll(async () => {
    t = await startTestDaemon({ backend: 'embedded' });
    await createUser(t, 'ana');
    await createUser(t, 'bob');
    await t.api('POST', '/api/role/create', { name: 'gold', maxStorage: '42', badge: 'https://example.com/g.png' });
    await t.api('POST', '/api/role/create', { name: 'silver', maxStorage: '7', badge: 'https://example.com/s.png' });
    await t.api('POST', '/api/keys/create', { label: 'ci', scope: 'read' });
    await t.stop();
    // What a newer minor version (or an operator) added: a collection, and fields on known records.
    await editDb(t, (db) => {
      db.albums = albums;
      db.preferences = preferences;
      for (const user of db.users) user.avatar = { color: 'teal', initials: user.username.toUpperCase() };
      for (const role of db.roles) role.tier = `tier-of-${role.name}`;
      for (const key of db.keys) key.lastUsedFrom = '10.0.0.1';
    });
    await t.restart();
  });
  afterAll(() => t.close());

  it('keeps unknown collections and the unknown fields of users, roles and keys through edits, role changes and renames', async () => {
    const edited = await t.api('POST', '/api/user/edit', {
      username: 'ana',
      newusername: 'ana.lopez',
      newemail: 'ana.lopez@example.com',
      newpassword: 'a-new-password-123',
    });
    expect(edited.status, edited.text).toBe(201);
    expect((await t.api('POST', '/api/user/role', { username: 'ana.lopez', name: 'gold' })).status).toBe(201);
    expect((await t.api('POST', '/api/user/role', { username: 'bob', name: 'silver' })).status).toBe(201);
    const renamed = await t.api('POST', '/api/role/edit', {
      name: 'gold',
      newname: 'platinum',
      maxStorage: '64',
      badge: 'https://example.com/p.png',
    });
    expect(renamed.status, renamed.text).toBe(201);
    const builtIn = await t.api('POST', '/api/role/edit', {
      name: 'user',
      newname: 'user',
      maxStorage: '100',
      badge: `${t.url}/badges/user.svg`,
    });
    expect(builtIn.status, builtIn.text).toBe(201);
    await t.stop();
    try {
      const db = await readDb(t);
      const userOf = (name: string) => db.users.find((u: { username: string }) => u.username === name);
      const roleOf = (name: string) => db.roles.find((r: { name: string }) => r.name === name);
      expect(userOf('ana.lopez')).toMatchObject({
        role: 'platinum',
        email: 'ana.lopez@example.com',
        avatar: { color: 'teal', initials: 'ANA' },
      });
      expect(userOf('bob')).toMatchObject({ role: 'silver', avatar: { color: 'teal', initials: 'BOB' } });
      expect(roleOf('platinum')).toMatchObject({ maxStorage: 64, tier: 'tier-of-gold' });
      expect(roleOf('silver')).toMatchObject({ tier: 'tier-of-silver' });
      expect(roleOf('user')).toMatchObject({ maxStorage: 100, tier: 'tier-of-user' });
      expect(db.keys[0]).toMatchObject({ label: 'ci', lastUsedFrom: '10.0.0.1' });
      expect(db.albums).toEqual(albums);
      expect(db.preferences).toEqual(preferences);
    } finally {
      await t.restart();
    }
  });

  it('never answers the unknown fields through the API', async () => {
    const answers = [
      await t.api('GET', '/api/user/all'),
      await t.api('GET', '/api/user', { username: 'bob' }),
      await t.api('GET', '/api/role/all'),
      await t.api('GET', '/api/role', { name: 'silver' }),
      await t.api('GET', '/api/keys'),
      await t.api('GET', '/api/dash'),
    ];
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(200);
      expect(answer.text).not.toMatch(/avatar|tier-of|lastUsedFrom|albums|Summer|preferences/);
    }
  });
});

/** Runs `sql` on the database at `url` (as an operator, or a newer Nimbus, would). */
async function onDatabase<R extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

describe('a PostgreSQL database migrated by a newer Nimbus', () => {
  const KNOWN = Math.max(...MIGRATIONS.map((m) => m.version));
  const PG_REFUSAL = new RegExp(
    `The PostgreSQL database "[^"]+" has schema ${KNOWN + 1}; this Nimbus knows schema ${KNOWN} at most: it was written by a newer Nimbus; upgrade Nimbus or restore a backup`,
  );

  /** A database at this code's schema, plus one migration recorded (and its table made) by a newer Nimbus. */
  async function newerDatabase(): Promise<string> {
    const url = await (await sharedPostgres()).createDatabase();
    const database = await Database.connect(url);
    try {
      await migrate(database);
    } finally {
      await database.close();
    }
    await onDatabase(url, 'CREATE TABLE albums (key text PRIMARY KEY, data jsonb NOT NULL)');
    await onDatabase(url, 'INSERT INTO nimbus_migrations (version, name) VALUES ($1, $2)', [KNOWN + 1, 'albums']);
    return url;
  }
  const migrations = (url: string) => onDatabase(url, 'SELECT version, name, applied_at FROM nimbus_migrations ORDER BY version');

  it('refuses to open the store, and leaves the migrations table as it was', async () => {
    const url = await newerDatabase();
    const before = await migrations(url);
    await expect(Store.openPostgres(url)).rejects.toThrow(PG_REFUSAL);
    expect(await migrations(url)).toEqual(before);
  });

  it('refuses even before applying a migration of its own that the database lacks', async () => {
    const url = await (await sharedPostgres()).createDatabase();
    const database = await Database.connect(url);
    try {
      await migrate(database, MIGRATIONS.slice(0, 1));
      await onDatabase(url, 'INSERT INTO nimbus_migrations (version, name) VALUES ($1, $2)', [KNOWN + 1, 'albums']);
      await expect(migrate(database)).rejects.toThrow(PG_REFUSAL);
    } finally {
      await database.close();
    }
    expect((await migrations(url)).map((m) => m.version)).toEqual([1, KNOWN + 1]);
  });

  it('stops the start of a daemon with the message, naming the database but never its URL (it may hold a password)', async () => {
    const url = await newerDatabase();
    const dataDir = await tempDir();
    try {
      const started = startDaemon({ ...quiet, dataDir, env: { NIMBUS_DATABASE_URL: url } });
      await expect(started).rejects.toThrow(PG_REFUSAL);
      const message = await started.catch((err: Error) => err.message);
      expect(message).not.toContain(url);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('what this version does not know of a PostgreSQL database of its schema', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon({ backend: 'postgres' });
    await createUser(t, 'ana');
    await t.api('POST', '/api/role/create', { name: 'gold', maxStorage: '42', badge: 'https://example.com/g.png' });
    await t.stop();
    const url = t.env.NIMBUS_DATABASE_URL;
    // Fields a newer minor version (or an operator) added to records, and a column of their own.
    await onDatabase(url, `UPDATE users SET data = data || '{"avatar": {"color": "teal"}}'::jsonb`);
    await onDatabase(url, `UPDATE roles SET data = data || jsonb_build_object('tier', 'tier-of-' || key)`);
    await onDatabase(url, 'ALTER TABLE users ADD COLUMN note text');
    await onDatabase(url, `UPDATE users SET note = 'kept'`);
    await t.restart();
  });
  afterAll(() => t.close());

  it('keeps unknown fields through edits, role changes and renames, and an unknown column through edits in place', async () => {
    const url = t.env.NIMBUS_DATABASE_URL;
    const edited = await t.api('POST', '/api/user/edit', { username: 'ana', newusername: 'ana', newemail: 'ana.lopez@example.com' });
    expect(edited.status, edited.text).toBe(201);
    expect((await t.api('POST', '/api/user/role', { username: 'ana', name: 'gold' })).status).toBe(201);
    expect(await onDatabase(url, 'SELECT note FROM users')).toEqual([{ note: 'kept' }]);
    const renamedUser = await t.api('POST', '/api/user/edit', {
      username: 'ana',
      newusername: 'ana.lopez',
      newemail: 'ana.lopez@example.com',
    });
    expect(renamedUser.status, renamedUser.text).toBe(201);
    const renamedRole = await t.api('POST', '/api/role/edit', {
      name: 'gold',
      newname: 'platinum',
      maxStorage: '64',
      badge: 'https://example.com/p.png',
    });
    expect(renamedRole.status, renamedRole.text).toBe(201);
    const users = await onDatabase<{ data: Record<string, unknown> }>(url, 'SELECT data FROM users');
    expect(users.map((u) => u.data)).toEqual([
      expect.objectContaining({ username: 'ana.lopez', role: 'platinum', email: 'ana.lopez@example.com', avatar: { color: 'teal' } }),
    ]);
    const roles = await onDatabase<{ key: string; data: Record<string, unknown> }>(url, 'SELECT key, data FROM roles ORDER BY key');
    expect(roles.map((r) => [r.key, r.data.tier])).toEqual([
      ['admin', 'tier-of-admin'],
      ['platinum', 'tier-of-gold'],
      ['user', 'tier-of-user'],
    ]);
    for (const answer of [await t.api('GET', '/api/user/all'), await t.api('GET', '/api/role/all')]) {
      expect(answer.text).not.toMatch(/avatar|tier-of|kept/);
    }
  });
});
