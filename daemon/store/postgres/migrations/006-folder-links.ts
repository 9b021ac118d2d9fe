/**
 * Folder and upload links (docs/sharing.md): a share record of kind `folder` or `upload` names
 * a folder and has an empty file name. One link of each kind per folder, as one per file: the
 * unique index now tells the kinds apart (a file link's record has no `kind`).
 */
import type { Migration } from './migration.js';

const sql = [
  'DROP INDEX shares_path;',
  `CREATE UNIQUE INDEX shares_path ON shares (username, coalesce(folder, ''), file, coalesce(data->>'kind', 'file'));`,
].join('\n');

const migration: Migration = { version: 6, name: 'folder-links', sql };
export default migration;
