/**
 * `nimbus migrate` and stores of other versions (issue 22, item 12): a source a newer Nimbus
 * wrote (db.json with a higher schema, a database migrated further) is refused with the one
 * message and left as it was; collections the database has no table for are refused rather
 * than dropped; fields of records this version does not know travel both ways.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { runMigrate } from '../../daemon/migrate/command.js';
import { Database } from '../../daemon/store/postgres/database.js';
import { migrate } from '../../daemon/store/postgres/migrate.js';
import { MIGRATIONS } from '../../daemon/store/postgres/migrations/index.js';
import { SCHEMA_VERSION } from '../../daemon/store/schema.js';
import { createUser, editDb, readDb, startTestDaemon } from '../helpers/daemon.js';
import { sharedPostgres } from '../helpers/engines.js';

const dirs: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-migrate-upgrades-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Runs the command in this process, as `nimbus migrate …` would: its exit code and what it printed. */
async function runCommand(input: { dataDir?: string; toDataDir?: string }, databaseUrl: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runMigrate(
    input,
    { NIMBUS_DATABASE_URL: databaseUrl },
    (line) => out.push(line),
    (line) => err.push(line),
  );
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

const tablesOf = async (url: string) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
    );
    return rows.map((r) => r.name);
  } finally {
    await client.end();
  }
};

/** A stopped embedded installation with one user, made by a real daemon; `edit` then changes its db.json. */
async function embedded(edit: (db: Record<string, unknown> & { schema: number; users: Record<string, unknown>[] }) => void) {
  const t = await startTestDaemon({ backend: 'embedded', dataDir: await tempDir() });
  await createUser(t, 'ana');
  await t.stop();
  await editDb(t, edit);
  return { dataDir: t.dataDir, text: await readFile(path.join(t.dataDir, 'db.json'), 'utf8') };
}

describe('nimbus migrate --data-dir', () => {
  it('refuses a db.json a newer Nimbus wrote, with the one message, touching neither side', async () => {
    const { dataDir, text } = await embedded((db) => {
      db.schema = SCHEMA_VERSION + 1;
    });
    const url = await (await sharedPostgres()).createDatabase();
    const run = await runCommand({ dataDir }, url);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `^nimbus migrate: The store .*db\\.json has schema ${SCHEMA_VERSION + 1}; this Nimbus knows schema ${SCHEMA_VERSION} at most: it was written by a newer Nimbus; upgrade Nimbus or restore a backup`,
      ),
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(await readFile(path.join(dataDir, 'db.json'), 'utf8')).toBe(text);
    expect(await tablesOf(url)).toEqual([]);
  });

  it('refuses a db.json holding collections the database has no table for, naming them', async () => {
    const { dataDir, text } = await embedded((db) => {
      db.albums = [{ id: 'a1' }];
      db.preferences = { theme: 'dark' };
    });
    const url = await (await sharedPostgres()).createDatabase();
    const run = await runCommand({ dataDir }, url);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^nimbus migrate: .*db\.json holds albums and preferences, which this Nimbus does not know/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(await readFile(path.join(dataDir, 'db.json'), 'utf8')).toBe(text);
  });

  it('carries fields of records this version does not know into the database and back', async () => {
    const { dataDir } = await embedded((db) => {
      for (const user of db.users) user.avatar = { color: 'teal' };
    });
    const url = await (await sharedPostgres()).createDatabase();
    const into = await runCommand({ dataDir }, url);
    expect(into.code, into.stderr).toBe(0);
    const back = path.join(await tempDir(), 'back');
    const out = await runCommand({ toDataDir: back }, url);
    expect(out.code, out.stderr).toBe(0);
    expect((await readDb(back)).users).toEqual([expect.objectContaining({ username: 'ana', avatar: { color: 'teal' } })]);
  });
});

const KNOWN = Math.max(...MIGRATIONS.map((m) => m.version));
const PG_REFUSAL = new RegExp(
  `^nimbus migrate: The PostgreSQL database "[^"]+" has schema ${KNOWN + 1}; this Nimbus knows schema ${KNOWN} at most: it was written by a newer Nimbus`,
);

/** A database migrated by this code, then by a newer Nimbus (one more migration recorded). */
async function newerDatabase(): Promise<string> {
  const url = await (await sharedPostgres()).createDatabase();
  const database = await Database.connect(url);
  try {
    await migrate(database);
    await database.query('INSERT INTO nimbus_migrations (version, name) VALUES ($1, $2)', [KNOWN + 1, 'albums']);
  } finally {
    await database.close();
  }
  return url;
}

describe('nimbus migrate into a database a newer Nimbus migrated', () => {
  it('refuses with the one message and leaves the source as it was', async () => {
    const { dataDir, text } = await embedded(() => undefined);
    const run = await runCommand({ dataDir }, await newerDatabase());
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(PG_REFUSAL);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(await readFile(path.join(dataDir, 'db.json'), 'utf8')).toBe(text);
  });
});

describe('nimbus migrate --to-data-dir', () => {
  it('refuses a database a newer Nimbus migrated, and leaves no target directory behind', async () => {
    const url = await newerDatabase();
    const parent = await tempDir();
    const target = path.join(parent, 'back');
    const run = await runCommand({ toDataDir: target }, url);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(PG_REFUSAL);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(await readdir(parent)).toEqual([]);
  });
});
