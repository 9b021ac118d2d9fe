/**
 * The quota ledger of several daemons (docs/cluster.md, "Quota across daemons"): reservations
 * are rows of the `reservations` table, and each reservation (or growth) is one transaction
 * holding `pg_advisory_xact_lock(hashtext(username))` that sums, from the database and not
 * from a daemon's cache, the user's `files.size` (trash included: trashed files keep their
 * rows) and their live reservations. Two daemons racing for the last bytes of a quota are
 * serialised by the lock, so together they never pass it.
 *
 * The sum is the files table's: this ledger is for object mode (PostgreSQL + S3), where the
 * rows are every file; the daemon's own count (`usedBytes`) is not used.
 *
 * A reservation expires `ttlMs` after its last refresh; this daemon refreshes its own on a
 * timer, so only a dead daemon's expire (and are deleted by the next reservation of that user).
 * A release the database could not take (it was down) is tried again every second until it
 * is taken: the user's quota is whole again as soon as the database is back, not at expiry.
 */
import { randomBytes } from 'node:crypto';
import { quotaExceeded } from '../errors.js';
import { usedMessage, type QuotaLedger, type Reservation } from './quota.js';
import { Database } from '../store/postgres/database.js';

const MIB = 1024 * 1024;
/** How often a release the database could not take is tried again. */
const RELEASE_RETRY_MS = 1000;

interface RowReservation extends Reservation {
  readonly id: string;
  bytes: number;
  /** Whether its row is in the table: a hold for a user without a limit writes none (`#hold`). */
  stored: boolean;
}

export interface PgQuotaLedgerOptions {
  /** How long a reservation counts without a refresh (its daemon died): 5 minutes by default. */
  ttlMs?: number;
  /** Bytes reserved ahead for a body of unknown length: 8 MiB by default. */
  step?: number;
}

export class PgQuotaLedger implements QuotaLedger {
  readonly step: number;
  readonly #database: Database;
  readonly #ttlMs: number;
  /** This daemon's reservations, refreshed while it lives. */
  readonly #live = new Map<string, RowReservation>();
  readonly #timer: NodeJS.Timeout;
  /** Released reservations whose row could not be deleted yet (the database was down): id → when it expires anyway. */
  readonly #unreleased = new Map<string, number>();
  #retry: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(database: Database, options: PgQuotaLedgerOptions = {}) {
    this.#database = database;
    this.#ttlMs = options.ttlMs ?? 5 * 60_000;
    this.step = options.step ?? 8 * MIB;
    this.#timer = setInterval(() => void this.refresh().catch(() => undefined), Math.max(1000, this.#ttlMs / 3));
    this.#timer.unref();
  }

  async reserve(username: string, bytes: number, maxBytes: number, _usedBytes: number, freedBytes: number): Promise<Reservation> {
    const reservation: RowReservation = { id: randomBytes(16).toString('hex'), username, bytes: 0, stored: false };
    await this.#hold(reservation, bytes, maxBytes, freedBytes);
    this.#live.set(reservation.id, reservation);
    return reservation;
  }

  async grow(reservation: Reservation, bytes: number, maxBytes: number, _usedBytes: number, freedBytes: number): Promise<void> {
    await this.#hold(reservation as RowReservation, bytes, maxBytes, freedBytes);
  }

  async release(reservation: Reservation): Promise<void> {
    const held = reservation as RowReservation;
    this.#live.delete(held.id);
    held.bytes = 0;
    if (!held.stored) return;
    // Never throws: a database lost just now must not fail an upload that landed. The row is
    // deleted once the database is back (or stops counting at its expiry, whichever is first).
    this.#unreleased.set(held.id, Date.now() + this.#ttlMs);
    await this.#deleteUnreleased();
  }

  /** Deletes the rows of released reservations; while the database cannot take it, tries again every second. */
  async #deleteUnreleased(): Promise<void> {
    const now = Date.now();
    for (const [id, expiresAt] of this.#unreleased) if (expiresAt <= now) this.#unreleased.delete(id);
    const ids = [...this.#unreleased.keys()];
    if (ids.length === 0) return;
    try {
      await this.#database.query('DELETE FROM reservations WHERE id = ANY($1::text[])', [ids]);
      for (const id of ids) this.#unreleased.delete(id);
    } catch {
      if (this.#closed) return;
      this.#retry ??= setTimeout(() => {
        this.#retry = null;
        void this.#deleteUnreleased();
      }, RELEASE_RETRY_MS);
      this.#retry.unref();
    }
  }

  /** What the database counts against the user now: their files (trash included) and live reservations. */
  async usedBytes(username: string): Promise<number> {
    return usedIn(this.#database, username);
  }

  /** Pushes this daemon's reservations' expiry forward (the timer calls it; tests may). */
  async refresh(): Promise<void> {
    const ids = [...this.#live.values()].filter((r) => r.stored).map((r) => r.id);
    if (ids.length === 0) return;
    await this.#database.query(`UPDATE reservations SET expires_at = now() + $2 * interval '1 millisecond' WHERE id = ANY($1::text[])`, [
      ids,
      this.#ttlMs,
    ]);
  }

  /** Stops refreshing (the daemon stops); its reservations expire unless released. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = null;
  }

  /**
   * A reservation that outlives this daemon (a resumable upload's, docs/uploads.md): `id` is
   * the caller's, and it counts until `untilMs` (the upload's expiry) unless released by
   * `releaseHeld` or pushed on by `holdUntil`; no daemon refreshes it.
   */
  async reserveUntil(id: string, username: string, bytes: number, maxBytes: number, freedBytes: number, untilMs: number): Promise<void> {
    await this.#hold({ id, username, bytes: 0, stored: false }, bytes, maxBytes, freedBytes, untilMs);
  }

  /** Pushes such a reservation's end to `untilMs`. */
  async holdUntil(id: string, untilMs: number): Promise<void> {
    await this.#database
      .query('UPDATE reservations SET expires_at = to_timestamp($2::float8 / 1000) WHERE id = $1', [id, untilMs])
      .catch(Database.rethrowForRequest);
  }

  /** Lets such a reservation go (its upload placed, terminated or expired). */
  async releaseHeld(id: string): Promise<void> {
    await this.#database.query('DELETE FROM reservations WHERE id = $1', [id]).catch(Database.rethrowForRequest);
  }

  /**
   * Holds `bytes` more on the reservation if the user's usage, everything reserved and `bytes`
   * fit in `maxBytes`. A user without a limit has no last bytes to race for: the hold is only
   * counted here, with no transaction (an upload of theirs was three commits where the bare
   * server makes one; bench/NOTES.md). Should a limit come meanwhile (a role changed), the next
   * hold checks and writes the whole total, as any other.
   */
  async #hold(reservation: RowReservation, bytes: number, maxBytes: number, freedBytes: number, untilMs?: number): Promise<void> {
    if (maxBytes < 0 && !reservation.stored && untilMs === undefined) {
      reservation.bytes += bytes;
      return;
    }
    const expires =
      untilMs === undefined ? [`now() + $4 * interval '1 millisecond'`, this.#ttlMs] : ['to_timestamp($4::float8 / 1000)', untilMs];
    await this.#database
      .transaction(async (client) => {
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [reservation.username]);
        // Expired reservations (their daemon died) stop counting, and go.
        await client.query('DELETE FROM reservations WHERE username = $1 AND expires_at < now()', [reservation.username]);
        if (maxBytes >= 0) {
          // Bytes held while there was no limit are in no row yet: they count here, with these.
          const needed = bytes + (reservation.stored ? 0 : reservation.bytes);
          const used = (await usedIn(client, reservation.username)) - freedBytes;
          if (used + needed > maxBytes) throw quotaExceeded(usedMessage(used, maxBytes), { needed, available: maxBytes - used });
        }
        // The whole total, not an increment: a row that expired meanwhile (this daemon stalled) comes back whole.
        await client.query(
          `INSERT INTO reservations (id, username, bytes, expires_at) VALUES ($1, $2, $3, ${expires[0]})
         ON CONFLICT (id) DO UPDATE SET bytes = EXCLUDED.bytes, expires_at = EXCLUDED.expires_at`,
          [reservation.id, reservation.username, reservation.bytes + bytes, expires[1]],
        );
      })
      .catch(Database.rethrowForRequest);
    reservation.bytes += bytes;
    reservation.stored = true;
  }
}

/** Anything that runs one statement (the pool, or a transaction's client). */
interface RunsQueries {
  query(text: string, values: unknown[]): Promise<{ rows: { used?: string }[] }>;
}

async function usedIn(db: RunsQueries, username: string): Promise<number> {
  const { rows } = await db.query(
    `SELECT (SELECT coalesce(sum(size), 0) FROM files WHERE username = $1)
          + (SELECT coalesce(sum((data->>'size')::bigint), 0) FROM versions WHERE username = $1)
          + (SELECT coalesce(sum(bytes), 0) FROM reservations WHERE username = $1 AND expires_at >= now()) AS used`,
    [username],
  );
  return Number(rows[0]?.used ?? 0);
}
