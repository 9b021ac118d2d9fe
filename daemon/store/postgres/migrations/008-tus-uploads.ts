/**
 * Resumable (tus) uploads with several daemons (docs/uploads.md, "Several daemons"): one row
 * per upload, read and written by whichever daemon a request reaches, with compare-and-set
 * updates (never through the store's Maps, which are last-writer-wins). The bytes are an S3
 * multipart upload onto `files/<object_id>`; `parts` lists those uploaded, and `tail` holds
 * what a PATCH received past the last whole part (under a part's size), so every answered
 * offset is durable. `writer` names the request writing it now: a newer PATCH takes it over.
 */
import type { Migration } from './migration.js';

const sql = [
  `CREATE TABLE tus_uploads (
    id text PRIMARY KEY,
    username text NOT NULL,
    target jsonb NOT NULL,
    length bigint NOT NULL,
    object_id text NOT NULL,
    part_size bigint NOT NULL,
    multipart_id text,
    parts jsonb NOT NULL DEFAULT '[]',
    next_part integer NOT NULL DEFAULT 1,
    tail bytea NOT NULL DEFAULT '\\x',
    upload_offset bigint NOT NULL DEFAULT 0,
    expires_at timestamptz NOT NULL,
    done boolean NOT NULL DEFAULT false,
    writer text,
    placing_until timestamptz
  );`,
  'CREATE INDEX tus_uploads_username ON tus_uploads (username);',
  'CREATE INDEX tus_uploads_expires_at ON tus_uploads (expires_at);',
].join('\n');

const migration: Migration = { version: 8, name: 'tus-uploads', sql };
export default migration;
