/**
 * Resumable uploads' rows with several daemons (docs/uploads.md, "Several daemons"; the table is
 * migration 008). Every change is a compare-and-set on the row: the offset moves only from
 * where the writer found it, and only while that writer (a PATCH's random token) still holds
 * it; a newer PATCH takes the row over, and the older one's next write finds it gone. Read and
 * written straight in the database (never through the store's Maps, which are last-writer-wins).
 */
import type pg from 'pg';
import { Database } from '../../store/postgres/database.js';

/** Where a finished upload goes, fixed at creation. */
export interface TusTargetRecord {
  folder: string | null;
  file: string;
  overwrite: boolean;
  /** Upload-Metadata as the client sent it (a HEAD answers it back). */
  metadata: string;
  /** The account it belongs to, by its creation time. */
  userCreatedAt: string;
}

/** A part the bucket holds: its number, ETag and size. */
export interface StoredPart {
  n: number;
  etag: string;
  size: number;
}

export interface TusRow {
  id: string;
  username: string;
  target: TusTargetRecord;
  length: number;
  /** The object `files/<objectId>` the parts complete into. */
  objectId: string;
  partSize: number;
  /** The bucket's multipart upload, once the first part went. */
  multipartId: string | null;
  parts: StoredPart[];
  /** Bytes received, durable (the parts and the tail) and acknowledged. */
  offset: number;
  expiresAt: number;
  done: boolean;
}

/** The row with its tail: the bytes past the last part (read only by the writer that takes it). */
export interface WritableRow extends TusRow {
  tail: Buffer;
}

const COLUMNS = `id, username, target, length, object_id, part_size, multipart_id, parts, upload_offset,
  (extract(epoch FROM expires_at) * 1000)::float8 AS expires_ms, done`;

interface Raw {
  id: string;
  username: string;
  target: TusTargetRecord;
  length: string;
  object_id: string;
  part_size: string;
  multipart_id: string | null;
  parts: StoredPart[];
  upload_offset: string;
  expires_ms: number;
  done: boolean;
  tail?: Buffer;
}

const rowOf = (r: Raw): TusRow => ({
  id: r.id,
  username: r.username,
  target: r.target,
  length: Number(r.length),
  objectId: r.object_id,
  partSize: Number(r.part_size),
  multipartId: r.multipart_id,
  parts: r.parts,
  offset: Number(r.upload_offset),
  expiresAt: Math.round(r.expires_ms),
  done: r.done,
});

/** An instant as PostgreSQL takes it from milliseconds since the epoch. */
const AT = (param: string) => `to_timestamp(${param}::float8 / 1000)`;

export class TusRows {
  readonly db: { query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> };

  constructor(database: Database) {
    // As the store's commits: a database that cannot be reached, or no pooled connection free in time, is a 503.
    this.db = {
      query: <R extends pg.QueryResultRow>(text: string, values?: unknown[]) =>
        database.query<R>(text, values).catch(Database.rethrowForRequest),
    };
  }

  async insert(row: TusRow): Promise<void> {
    await this.db.query(
      `INSERT INTO tus_uploads (id, username, target, length, object_id, part_size, expires_at) VALUES ($1, $2, $3, $4, $5, $6, ${AT('$7')})`,
      [row.id, row.username, JSON.stringify(row.target), row.length, row.objectId, row.partSize, row.expiresAt],
    );
  }

  async get(id: string): Promise<TusRow | null> {
    const { rows } = await this.db.query<Raw>(`SELECT ${COLUMNS} FROM tus_uploads WHERE id = $1`, [id]);
    return rows[0] ? rowOf(rows[0]) : null;
  }

  async unfinishedOf(username: string): Promise<number> {
    const { rows } = await this.db.query<{ n: string }>('SELECT count(*) AS n FROM tus_uploads WHERE username = $1 AND NOT done', [
      username,
    ]);
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Makes `writer` the row's writer if it stands at `offset`, unfinished and not being placed;
   * pushes its expiry to `expiresAt`. The row with its tail, or null (it moved, or is gone).
   */
  async takeWriter(id: string, offset: number, writer: string, expiresAt: number): Promise<WritableRow | null> {
    const { rows } = await this.db.query<Raw>(
      `UPDATE tus_uploads SET writer = $3, expires_at = ${AT('$4')}
        WHERE id = $1 AND upload_offset = $2 AND NOT done AND (placing_until IS NULL OR placing_until < now())
        RETURNING ${COLUMNS}, tail`,
      [id, offset, writer, expiresAt],
    );
    return rows[0] ? { ...rowOf(rows[0]), tail: rows[0].tail ?? Buffer.alloc(0) } : null;
  }

  /** The next part number for `writer`, or null when another writer took the row. */
  async nextPart(id: string, writer: string): Promise<number | null> {
    const { rows } = await this.db.query<{ n: number }>(
      'UPDATE tus_uploads SET next_part = next_part + 1 WHERE id = $1 AND writer = $2 RETURNING next_part - 1 AS n',
      [id, writer],
    );
    return rows[0]?.n ?? null;
  }

  /** Records the bucket's multipart upload (only the first writer to begin one): false when the row has another or another writer. */
  async setMultipart(id: string, writer: string, multipartId: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      'UPDATE tus_uploads SET multipart_id = $3 WHERE id = $1 AND writer = $2 AND multipart_id IS NULL',
      [id, writer, multipartId],
    );
    return rowCount === 1;
  }

  /** Records what is durable now (the parts, the tail, the offset) while `writer` holds the row: false once it does not. */
  async record(id: string, writer: string, parts: StoredPart[], tail: Buffer, offset: number): Promise<boolean> {
    const { rowCount } = await this.db.query(
      'UPDATE tus_uploads SET parts = $3, tail = $4, upload_offset = $5 WHERE id = $1 AND writer = $2 AND NOT done',
      [id, writer, JSON.stringify(parts), tail, offset],
    );
    return rowCount === 1;
  }

  /**
   * Claims a complete row for placing (every byte in, not done), for `holdMs`: no other daemon
   * places it meanwhile, nor a PATCH takes it. Null when another holds that claim, or it is done.
   */
  async claimPlacing(id: string, writer: string, holdMs: number): Promise<TusRow | null> {
    const { rows } = await this.db.query<Raw>(
      `UPDATE tus_uploads SET writer = $2, placing_until = now() + $3 * interval '1 millisecond'
        WHERE id = $1 AND upload_offset = length AND NOT done AND (placing_until IS NULL OR placing_until < now())
        RETURNING ${COLUMNS}`,
      [id, writer, holdMs],
    );
    return rows[0] ? rowOf(rows[0]) : null;
  }

  /** Lets the claim go without placing (a failure that waiting may mend): the next HEAD or PATCH tries again. */
  async unclaim(id: string, writer: string): Promise<void> {
    await this.db.query('UPDATE tus_uploads SET placing_until = NULL, writer = NULL WHERE id = $1 AND writer = $2', [id, writer]);
  }

  /** Placed: the parts and tail are no longer needed; the row stays until it expires, so a HEAD learns it is done. */
  async markDone(id: string): Promise<void> {
    await this.db.query(
      `UPDATE tus_uploads SET done = true, upload_offset = length, tail = '\\x', parts = '[]', placing_until = NULL, writer = NULL WHERE id = $1`,
      [id],
    );
  }

  /**
   * Deletes the row unless a daemon is placing it (`placer`: the caller's own claim, which may);
   * the row as this call deleted it (whoever deletes it cleans up after it), or null.
   */
  async delete(id: string, placer?: string): Promise<TusRow | null> {
    const { rows } = await this.db.query<Raw>(
      `DELETE FROM tus_uploads WHERE id = $1 AND (placing_until IS NULL OR placing_until < now() OR writer = $2) RETURNING ${COLUMNS}`,
      [id, placer ?? null],
    );
    return rows[0] ? rowOf(rows[0]) : null;
  }

  /** The unfinished uploads, with their accounts (the sweep drops those whose account is gone). */
  async unfinished(): Promise<{ id: string; username: string; userCreatedAt: string }[]> {
    const { rows } = await this.db.query<{ id: string; username: string; created: string }>(
      "SELECT id, username, target->>'userCreatedAt' AS created FROM tus_uploads WHERE NOT done",
    );
    return rows.map((r) => ({ id: r.id, username: r.username, userCreatedAt: r.created }));
  }

  /** The rows past their expiry, none being placed. */
  async expired(limit = 500): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      'SELECT id FROM tus_uploads WHERE expires_at < now() AND (placing_until IS NULL OR placing_until < now()) LIMIT $1',
      [limit],
    );
    return rows.map((r) => r.id);
  }
}

/** The objects unfinished uploads will complete into, and their multipart uploads' keys (the sweeper leaves them be). */
export const TUS_OBJECTS_SQL = 'SELECT object_id FROM tus_uploads WHERE NOT done';
