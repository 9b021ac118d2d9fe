/**
 * The PostgreSQL quota ledger (daemon/services/pg-quota.ts) on a real server: a user without a
 * limit holds nothing in the table, and once a limit comes (a role changed mid-upload) the bytes
 * held before it count, checked and written whole, against other daemons' reservations too.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PgQuotaLedger } from '../../daemon/services/pg-quota.js';
import type { Reservation } from '../../daemon/services/quota.js';
import { MIGRATIONS } from '../../daemon/store/postgres/migrations/index.js';
import reservations from '../../daemon/store/postgres/migrations/002-reservations.js';
import { Store } from '../../daemon/store/store.js';
import { sharedPostgres } from '../helpers/engines.js';

const KIB = 1024;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Two daemons' ledgers on one fresh database, and a count of the reservation rows. */
async function twoLedgers() {
  const url = await (await sharedPostgres()).createDatabase();
  const ledgers: PgQuotaLedger[] = [];
  let first: Store | null = null;
  for (let i = 0; i < 2; i++) {
    const store = await Store.openPostgres(url);
    if (i === 0 && !MIGRATIONS.some((m) => m.version === reservations.version)) await store.database!.query(reservations.sql);
    const ledger = new PgQuotaLedger(store.database!);
    ledgers.push(ledger);
    first ??= store;
    cleanups.push(async () => {
      ledger.close();
      await store.close();
    });
  }
  const rows = async () => {
    const { rows } = await first!.database!.query<{ n: number; bytes: string | null }>(
      'SELECT count(*)::int AS n, sum(bytes)::text AS bytes FROM reservations',
    );
    return { n: rows[0].n, bytes: Number(rows[0].bytes ?? 0) };
  };
  return { a: ledgers[0], b: ledgers[1], rows };
}

const NO_LIMIT = -1;
const LIMIT = 1024 * KIB;

describe('PgQuotaLedger', () => {
  it('holds nothing in the table for a user without a limit, and writes a limited hold', async () => {
    const { a, rows } = await twoLedgers();
    const free = await a.reserve('ana', 600 * KIB, NO_LIMIT, 0, 0);
    await a.grow(free, 600 * KIB, NO_LIMIT, 0, 0);
    expect(free.bytes).toBe(1200 * KIB);
    expect(await rows()).toEqual({ n: 0, bytes: 0 });
    await a.release(free);
    expect(await rows()).toEqual({ n: 0, bytes: 0 });

    const limited = await a.reserve('ana', 100 * KIB, LIMIT, 0, 0);
    expect(await rows()).toEqual({ n: 1, bytes: 100 * KIB });
    await a.release(limited);
    expect(await rows()).toEqual({ n: 0, bytes: 0 });
  });

  it('counts what was held without a limit once a limit comes: checked with it, written whole, seen by another daemon', async () => {
    const { a, b, rows } = await twoLedgers();
    const upload: Reservation = await a.reserve('ana', 600 * KIB, NO_LIMIT, 0, 0);
    // The role changed: 600 KiB held and 500 more do not fit in 1 MiB; nothing is written.
    await expect(a.grow(upload, 500 * KIB, LIMIT, 0, 0)).rejects.toMatchObject({
      code: 'quota_exceeded',
      needed: 1100 * KIB,
      available: LIMIT,
    });
    expect(await rows()).toEqual({ n: 0, bytes: 0 });
    // 400 more fit: the row holds the whole 1,000 KiB.
    await a.grow(upload, 400 * KIB, LIMIT, 0, 0);
    expect(upload.bytes).toBe(1000 * KIB);
    expect(await rows()).toEqual({ n: 1, bytes: 1000 * KIB });
    // Another daemon's upload of the same user sees them.
    await expect(b.reserve('ana', 100 * KIB, LIMIT, 0, 0)).rejects.toMatchObject({ code: 'quota_exceeded' });
    await a.release(upload);
    const other = await b.reserve('ana', 100 * KIB, LIMIT, 0, 0);
    expect(await rows()).toEqual({ n: 1, bytes: 100 * KIB });
    await b.release(other);
  });
});
