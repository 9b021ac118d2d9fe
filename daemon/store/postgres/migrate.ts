/**
 * Brings a database's schema up to date at start: the migrations not yet recorded in
 * `nimbus_migrations` run in one transaction, under a transaction-scoped advisory lock, so
 * daemons that start at once take turns and the second finds nothing left to do. A database
 * that a newer Nimbus migrated further than this code knows is refused, changing nothing:
 * this code would write records without what the newer one keeps in them.
 */
import { NewerStoreError } from '../upgrades.js';
import type { Database } from './database.js';
import { MIGRATIONS } from './migrations/index.js';
import type { Migration } from './migrations/migration.js';

/** The advisory lock the migrations hold ("Nim" + 1; other modules' locks must use other ids). */
export const MIGRATION_LOCK_ID = 0x4e696d01;

/** Applies the missing migrations; returns the versions it applied (none: already up to date). */
export async function migrate(database: Database, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  return database.transaction(async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_ID]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS nimbus_migrations (
         version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const done = new Set((await client.query<{ version: number }>('SELECT version FROM nimbus_migrations')).rows.map((r) => r.version));
    const newest = Math.max(0, ...done);
    const known = Math.max(0, ...ordered.map((m) => m.version));
    if (newest > known) {
      // Named by the server, not by the URL: that may carry a password.
      const { rows } = await client.query<{ name: string }>('SELECT current_database() AS name');
      throw new NewerStoreError(`The PostgreSQL database ${JSON.stringify(rows[0].name)}`, newest, known);
    }
    const applied: number[] = [];
    for (const migration of ordered) {
      if (done.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO nimbus_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
      applied.push(migration.version);
    }
    return applied;
  });
}
