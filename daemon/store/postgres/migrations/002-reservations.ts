/**
 * Quota reservations shared by every daemon (docs/cluster.md, "Quota across daemons"): the
 * bytes promised to uploads and copies in flight. A row lives until its upload's file row is
 * committed (or the upload fails); `expires_at` is pushed forward while its daemon lives, so
 * a dead daemon's reservations stop counting on their own.
 */
import type { Migration } from './migration.js';

const sql = [
  'CREATE TABLE reservations (id text PRIMARY KEY, username text NOT NULL, bytes bigint NOT NULL, expires_at timestamptz NOT NULL);',
  'CREATE INDEX reservations_username ON reservations (username);',
].join('\n');

const migration: Migration = { version: 2, name: 'reservations', sql };
export default migration;
