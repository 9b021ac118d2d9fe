/**
 * How many times each share link was downloaded, one counter for every daemon
 * (docs/sharing.md, "Download limits"): a download takes one with a conditional upsert, so two
 * daemons serving the last allowed download at once cannot both have it. Kept apart from the
 * `shares` records so that a download writes one small row, not the record and its NOTIFY.
 */
import type { Migration } from './migration.js';

const sql = 'CREATE TABLE share_downloads (token text PRIMARY KEY, downloads bigint NOT NULL);';

const migration: Migration = { version: 5, name: 'share-downloads', sql };
export default migration;
