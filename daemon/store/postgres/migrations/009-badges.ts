/**
 * Pictures uploaded for roles' badges (issue 29, shared/badges.ts): a collection in the shape of
 * 001-records.ts. Small (at most 64 KiB each, base64 in `data`) and few: one per role at most
 * once the unused ones are pruned (daemon/services/badges.ts).
 */
import type { Migration } from './migration.js';

const sql = 'CREATE TABLE "badges" (key text PRIMARY KEY, data jsonb NOT NULL);';

const migration: Migration = { version: 9, name: 'badges', sql };
export default migration;
