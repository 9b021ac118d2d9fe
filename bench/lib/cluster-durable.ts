/**
 * "Durability is nearly free" on the cluster backend (issue 15): N concurrent durable POST
 * /api/user/role take ≤ 1.2× the time of N concurrent GET /api/user on the same N keep-alive
 * connections (opened and warmed before the clock: the store row's WarmConnections) to the
 * same cluster daemon; the embedded daemon's own ratio, measured the same way alternately in
 * the same run, is the baseline column. Per burst the row
 * counts what durability cost PostgreSQL: the write transactions the daemon committed (one
 * NOTIFY each, so a LISTEN on the changes channel counts them exactly) and the WAL fsyncs
 * (pg_stat_wal.wal_sync, every backend's and the WAL writer's). Every acknowledged change is
 * checked in PostgreSQL from another connection afterwards.
 */
import pg from 'pg';
import { CHANGES_CHANNEL } from '../../daemon/store/postgres/listener.js';
import { WarmConnections } from '../scenarios/store.js';
import type { Bench } from './context.js';
import type { NimbusProcess } from './nimbus.js';
import { fmt, verdict, type Row } from './report.js';
import { median, percentile } from './stats.js';

const GOAL = 1.2;
/** A backend reports its statistics at most once a second when idle (PostgreSQL 15's PGSTAT_MIN_INTERVAL). */
const STATS_SETTLE_MS = 1100;

interface Burst {
  wallMs: number;
  p99: number;
  /** Write transactions of the daemon (its NOTIFYs). */
  commits: number;
  /** WAL fsyncs during the burst, from pg_stat_wal. */
  fsyncs: number;
}

export async function clusterDurableRow(b: Bench, a: NimbusProcess, databaseUrl: string): Promise<Row> {
  const users = b.ds.roleUsers;
  const conns = new Map([b.nimbus, a].map((d) => [d.url, new WarmConnections({ url: d.url, key: b.nimbus.key })]));
  const roles = (d: { url: string }, role: string) =>
    conns.get(d.url)!.burst(users, 'POST', (u) => `/api/user/role?username=${u}&name=${role}`, 201);
  const reads = (d: { url: string }) => conns.get(d.url)!.burst(users, 'GET', (u) => `/api/user?username=${u}`, 200);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let notices = 0;
  client.on('notification', (message) => {
    if (message.channel === CHANGES_CHANNEL) notices++;
  });
  await client.query(`LISTEN ${CHANGES_CHANNEL}`);
  const walSyncs = async () => {
    await new Promise((r) => setTimeout(r, STATS_SETTLE_MS));
    const { rows } = await client.query<{ n: string }>('SELECT wal_sync AS n FROM pg_stat_wal');
    return Number(rows[0].n);
  };
  const clusterBurst = async (role: string): Promise<Burst> => {
    const syncsBefore = await walSyncs();
    // The LISTEN connection's round trip: notifications of earlier commits are all counted before the burst.
    await client.query('SELECT 1');
    const noticesBefore = notices;
    const r = await roles(a, role);
    await client.query('SELECT 1');
    const commits = notices - noticesBefore;
    const fsyncs = (await walSyncs()) - syncsBefore;
    // Acknowledged means committed in PostgreSQL (read by another connection).
    const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM users WHERE key = ANY($1::text[]) AND role = $2`, [
      users,
      role,
    ]);
    if (Number(rows[0].n) !== users.length)
      throw new Error(`only ${rows[0].n} of ${users.length} acknowledged role changes are in PostgreSQL`);
    return { wallMs: r.wallMs, p99: percentile(r.latencies, 99), commits, fsyncs };
  };
  try {
    // Opens the N connections to each daemon and warms both paths (JIT, the pools' connections); none of it counts.
    for (const d of [b.nimbus, a]) {
      await reads(d);
      await roles(d, 'admin');
      await reads(d);
    }
    const opened = () => [...conns.values()].reduce((n, c) => n + c.opened, 0);
    const openedBefore = opened();
    const cluster: Burst[] = [];
    const clusterReads: number[] = [];
    const embedded: number[] = [];
    const embeddedReads: number[] = [];
    for (let round = 0; round < b.rounds; round++) {
      const role = round % 2 === 0 ? 'user' : 'admin';
      // Alternating which goes first, so neither always follows the other's garbage.
      if (round % 2 === 0) {
        embedded.push((await roles(b.nimbus, role)).wallMs);
        embeddedReads.push((await reads(b.nimbus)).wallMs);
        cluster.push(await clusterBurst(role));
        clusterReads.push((await reads(a)).wallMs);
      } else {
        embeddedReads.push((await reads(b.nimbus)).wallMs);
        embedded.push((await roles(b.nimbus, role)).wallMs);
        clusterReads.push((await reads(a)).wallMs);
        cluster.push(await clusterBurst(role));
      }
      const c = cluster.at(-1)!;
      b.log(
        `  durable round ${round + 1}: cluster ${fmt.ms(c.wallMs)} (p99 ${fmt.ms(c.p99)}, ${c.commits} commits, ${c.fsyncs} WAL fsyncs) vs reads ${fmt.ms(clusterReads.at(-1)!)} | embedded ${fmt.ms(embedded.at(-1)!)} vs reads ${fmt.ms(embeddedReads.at(-1)!)}`,
      );
    }
    if (opened() !== openedBefore) throw new Error(`the bursts opened ${opened() - openedBefore} new connections`);
    const clusterRatio = median(cluster.map((c, i) => c.wallMs / clusterReads[i]));
    const embeddedRatio = median(embedded.map((w, i) => w / embeddedReads[i]));
    const n = users.length.toLocaleString('en-US');
    return {
      scenario: `${n} concurrent POST /api/user/role, durable, vs ${n} concurrent GET /api/user: PostgreSQL + S3`,
      nimbus: `${fmt.ms(median(cluster.map((c) => c.wallMs)))} vs ${fmt.ms(median(clusterReads))} reads, p99 ${fmt.ms(median(cluster.map((c) => c.p99)))}`,
      baseline: `${fmt.ms(median(embedded))} vs ${fmt.ms(median(embeddedReads))} reads (embedded: ${fmt.ratio(embeddedRatio)})`,
      ratio: `${fmt.ratio(clusterRatio)} of reads`,
      target: `≤ ${GOAL} × the reads`,
      verdict: verdict(clusterRatio <= GOAL),
      detail:
        `${n} keep-alive connections to each daemon opened and warmed before the clock (none opened during the bursts); each burst sends one request per connection at once; per round the ratio of the burst's wall time to that of the same number of reads on the same connections (alternately before and after it), the median of the rounds' ratios. ` +
        `PostgreSQL with its default durability (fsync, synchronous_commit on); every acknowledged change checked in PostgreSQL afterwards. ` +
        `Cluster writes ${fmt.list(
          cluster.map((c) => c.wallMs),
          fmt.ms,
        )}, reads ${fmt.list(clusterReads, fmt.ms)}; per burst ${cluster.map((c) => c.commits).join(', ')} write transactions (the daemon's NOTIFYs) ` +
        `and ${cluster.map((c) => c.fsyncs).join(', ')} WAL fsyncs (pg_stat_wal.wal_sync, every process's). Embedded writes ${fmt.list(embedded, fmt.ms)}, reads ${fmt.list(embeddedReads, fmt.ms)}.`,
    };
  } finally {
    for (const c of conns.values()) c.close();
    await client.end();
  }
}
