/**
 * Brings a database's schema up to date at start: the migrations not yet recorded in
 * `nimbus_migrations` run in one transaction, under a transaction-scoped advisory lock, so
 * daemons that start at once take turns and the second finds nothing left to do.
 */
import type { Database } from './database.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';

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
