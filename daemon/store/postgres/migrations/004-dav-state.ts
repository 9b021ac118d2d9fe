/**
 * WebDAV's state (issue 26, docs/webdav.md "Locks and properties"): its locks and its dead
 * properties, each a collection in the shape of 001-records.ts (the record as `data jsonb`
 * under its key), with the user and path as generated columns for operators' queries.
 */
import type { Migration } from './migration.js';

const table = (name: string): string =>
  `CREATE TABLE "${name}" (key text PRIMARY KEY, data jsonb NOT NULL, ` +
  `username text GENERATED ALWAYS AS (data->>'username') STORED, path text GENERATED ALWAYS AS (data->>'path') STORED);`;

const sql = [
  table('davLocks'),
  'CREATE INDEX "davLocks_username" ON "davLocks" (username);',
  table('davProps'),
  'CREATE INDEX "davProps_username" ON "davProps" (username);',
].join('\n');

const migration: Migration = { version: 4, name: 'dav-state', sql };
export default migration;
