/**
 * Folders inside folders (issue 25, docs/tree.md "Cluster"): a folder row names its parent
 * folder's id (`parentId`, absent or null at the root), and a name is unique among the visible
 * folders of one parent instead of the user's. Rows written before keep no `parentId`, so they
 * upgrade in place as root folders (`parent_id` NULL), which is what they were.
 */
import type { Migration } from './migration.js';

const sql = [
  `ALTER TABLE folders ADD COLUMN parent_id text GENERATED ALWAYS AS (data->>'parentId') STORED;`,
  'DROP INDEX folders_name;',
  `CREATE UNIQUE INDEX folders_name ON folders (username, coalesce(parent_id, ''), name) WHERE trash_id IS NULL;`,
  // A subtree is found by its parents (a delete for good, an operator's recursive query).
  'CREATE INDEX folders_parent_id ON folders (parent_id) WHERE parent_id IS NOT NULL;',
].join('\n');

const migration: Migration = { version: 3, name: 'folder-parents', sql };
export default migration;
