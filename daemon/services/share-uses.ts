/**
 * A share link's downloads, counted against its limit (docs/sharing.md, "Download limits").
 *
 * One daemon (db.json): the count is the record's `downloads`, read and raised in one turn of
 * the event loop, so two downloads at once cannot both take the last one. A limited link's
 * count is on disk before its bytes go out (a crash cannot give a download back); an unlimited
 * link's count rides along with the store's next write (a crash may forget a few, never
 * refuse anyone), so a popular link does not rewrite db.json per download.
 *
 * Several daemons (PostgreSQL): the `share_downloads` table, one conditional upsert per
 * download, so the database decides who has the last one.
 */
import type { NimbusContext } from '../context.js';
import type { StoredShare } from '../store/schema.js';

/** Far above any limit: the bound an unlimited link's upsert is checked against. */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/** Counts one download of `share`; false (nothing counted) when its limit is used up. */
export async function takeDownload(nimbus: NimbusContext, share: StoredShare): Promise<boolean> {
  const limit = share.maxDownloads ?? NO_LIMIT;
  const database = nimbus.store.database;
  if (database) {
    const { rowCount } = await database.query(
      `INSERT INTO share_downloads (token, downloads) VALUES ($1, 1)
       ON CONFLICT (token) DO UPDATE SET downloads = share_downloads.downloads + 1 WHERE share_downloads.downloads < $2
       RETURNING downloads`,
      [share.token, limit],
    );
    return rowCount === 1;
  }
  const current = nimbus.store.sharesByToken.get(share.token) ?? share;
  const taken = current.downloads ?? 0;
  if (taken >= limit) return false;
  nimbus.store.putShare({ ...current, downloads: taken + 1 }, current);
  if (share.maxDownloads === undefined) return true;
  await nimbus.store.commit();
  return true;
}

/** Downloads so far of each share, by token. */
export async function downloadCounts(nimbus: NimbusContext, shares: StoredShare[]): Promise<Map<string, number>> {
  const database = nimbus.store.database;
  if (!database) return new Map(shares.map((s) => [s.token, s.downloads ?? 0]));
  const { rows } = await database.query<{ token: string; downloads: string }>(
    'SELECT token, downloads FROM share_downloads WHERE token = ANY($1::text[])',
    [shares.map((s) => s.token)],
  );
  const counts = new Map(shares.map((s) => [s.token, 0]));
  for (const row of rows) counts.set(row.token, Number(row.downloads));
  return counts;
}
