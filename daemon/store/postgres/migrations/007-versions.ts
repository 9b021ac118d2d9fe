/**
 * Files' earlier versions (issue 27, docs/versions.md): a collection in the shape of
 * 001-records.ts, with the user as a generated column. Object mode keeps no versions yet; the
 * table is there so that every daemon's store holds every collection.
 */
import type { Migration } from './migration.js';

const sql = [
  `CREATE TABLE "versions" (key text PRIMARY KEY, data jsonb NOT NULL, username text GENERATED ALWAYS AS (data->>'username') STORED);`,
  'CREATE INDEX versions_username ON versions (username);',
].join('\n');

const migration: Migration = { version: 7, name: 'versions', sql };
export default migration;
