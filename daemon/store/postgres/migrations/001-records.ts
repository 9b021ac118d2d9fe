/**
 * The store's collections, one table each (docs/cluster.md, "The store"): the record as
 * `data jsonb` under its key, plus generated columns for what operators query and what the
 * unique indexes need. The built-in roles are seeded here, so they are written exactly once
 * per database (migrations run under a lock), whichever daemon starts first.
 */
import { emptyDb } from '../../schema.js';
import type { Migration } from './migration.js';

/** `text` column generated from a field of the record (NULL when absent or JSON null). */
const field = (column: string, name: string): string => `${column} text GENERATED ALWAYS AS (data->>'${name}') STORED`;
const bigintField = (column: string, name: string): string => `${column} bigint GENERATED ALWAYS AS ((data->>'${name}')::bigint) STORED`;

const table = (name: string, columns: string[] = []): string =>
  `CREATE TABLE "${name}" (${['key text PRIMARY KEY', 'data jsonb NOT NULL', ...columns].join(', ')});`;

/** A string as an SQL literal. */
const literal = (text: string): string => `'${text.replace(/'/g, "''")}'`;
const seedRoles = emptyDb()
  .roles.map((role) => `(${literal(role.name)}, ${literal(JSON.stringify(role))}::jsonb)`)
  .join(', ');

const sql = [
  table('users', [field('email', 'email'), field('role', 'role')]),
  'CREATE INDEX users_email ON users (email);',
  'CREATE INDEX users_role ON users (role);',
  table('roles'),
  `INSERT INTO roles (key, data) VALUES ${seedRoles};`,
  table('shares', [field('username', 'username'), field('folder', 'folder'), field('file', 'file')]),
  `CREATE UNIQUE INDEX shares_path ON shares (username, coalesce(folder, ''), file);`,
  table('keys', [field('username', 'username')]),
  table('verifications', [field('username', 'username')]),
  table('sessions', [field('username', 'username')]),
  'CREATE INDEX sessions_username ON sessions (username);',
  table('resets', [field('username', 'username')]),
  table('trash', [field('username', 'username'), bigintField('size', 'size')]),
  'CREATE INDEX trash_username ON trash (username);',
  table('files', [
    field('username', 'username'),
    field('folder_id', 'folderId'),
    field('name', 'name'),
    bigintField('size', 'size'),
    field('trash_id', 'trashId'),
  ]),
  'CREATE INDEX files_username ON files (username);',
  `CREATE UNIQUE INDEX files_name ON files (username, coalesce(folder_id, ''), name) WHERE trash_id IS NULL;`,
  'CREATE INDEX files_trash_id ON files (trash_id) WHERE trash_id IS NOT NULL;',
  table('folders', [field('username', 'username'), field('name', 'name'), field('trash_id', 'trashId')]),
  'CREATE UNIQUE INDEX folders_name ON folders (username, name) WHERE trash_id IS NULL;',
].join('\n');

const migration: Migration = { version: 1, name: 'records', sql };
export default migration;
