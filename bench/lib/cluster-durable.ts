/**
 * "Durability is nearly free" on the cluster backend (issue 15): N concurrent durable POST
 * /api/user/role take ≤ 1.2× the time of N concurrent GET /api/user on the same N keep-alive
 * connections (opened and warmed before the clock: the store row's WarmConnections) to the
 * same cluster daemon; the embedded daemon's own ratio, measured the same way alternately in
 * the same run, is the baseline column. The row counts what durability cost PostgreSQL: per
 * burst the write transactions the daemon committed (one NOTIFY each, so a LISTEN on the
 * changes channel counts them exactly), and over one more untimed burst the WAL fsyncs
 * (pg_stat_wal.wal_sync, every backend's and the WAL writer's; read once the backends have
 * reported, a second after going idle). Every acknowledged change is checked in PostgreSQL
 * from another connection afterwards.
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
  const checkInDatabase = async (role: string) => {
    // Acknowledged means committed in PostgreSQL (read by another connection).
    const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM users WHERE key = ANY($1::text[]) AND role = $2`, [
      users,
      role,
    ]);
    if (Number(rows[0].n) !== users.length)
      throw new Error(`only ${rows[0].n} of ${users.length} acknowledged role changes are in PostgreSQL`);
  };
  /** Write transactions the cluster daemon commits during `during` (one NOTIFY each). */
  const countCommits = async <T>(during: () => Promise<T>): Promise<{ result: T; commits: number }> => {
    // A round trip on the LISTEN connection: notifications of earlier commits are all in.
    await client.query('SELECT 1');
    const before = notices;
    const result = await during();
    await client.query('SELECT 1');
    return { result, commits: notices - before };
  };
  let openedDuring = 0;
  /**
   * One timed write burst and one timed read burst on daemon `d`, alternately first, right after
   * an untimed read burst that reopens any connection the daemon closed while it sat idle
   * (its keep-alive timeout is 5 s, and the other daemon's bursts take seconds on a loaded machine).
   */
  const pair = async (d: NimbusProcess, role: string, writesFirst: boolean) => {
    // A socket the daemon closes as this burst reuses it fails (ECONNRESET): once more, on fresh ones.
    await reads(d).catch(() => reads(d));
    const c = conns.get(d.url)!;
    const before = c.opened;
    let writes: { wallMs: number; latencies: number[]; commits: number };
    let readMs: number;
    const timedWrites = async () => {
      const { result, commits } = await countCommits(() => roles(d, role));
      return { ...result, commits };
    };
    if (writesFirst) {
      writes = await timedWrites();
      readMs = (await reads(d)).wallMs;
    } else {
      readMs = (await reads(d)).wallMs;
      writes = await timedWrites();
    }
    openedDuring += c.opened - before;
    return { writes, readMs };
  };
  try {
    // Opens the N connections to each daemon and warms both paths (JIT, the pools' connections); none of it counts.
    for (const d of [b.nimbus, a]) {
      await reads(d);
      await roles(d, 'admin');
      await reads(d);
    }
    const cluster: Burst[] = [];
    const clusterReads: number[] = [];
    const embedded: number[] = [];
    const embeddedReads: number[] = [];
    for (let round = 0; round < b.rounds; round++) {
      const role = round % 2 === 0 ? 'user' : 'admin';
      // Alternating which goes first, so neither always follows the other's garbage.
      const e = await pair(b.nimbus, role, round % 2 === 0);
      const c = await pair(a, role, round % 2 === 0);
      await checkInDatabase(role);
      embedded.push(e.writes.wallMs);
      embeddedReads.push(e.readMs);
      cluster.push({ wallMs: c.writes.wallMs, p99: percentile(c.writes.latencies, 99), commits: c.writes.commits });
      clusterReads.push(c.readMs);
      b.log(
        `  durable round ${round + 1}: cluster ${fmt.ms(c.writes.wallMs)} (p99 ${fmt.ms(cluster.at(-1)!.p99)}, ${c.writes.commits} commits) vs reads ${fmt.ms(c.readMs)} | embedded ${fmt.ms(e.writes.wallMs)} vs reads ${fmt.ms(e.readMs)}`,
      );
    }
    // The fsyncs of one more burst, untimed: pg_stat_wal is read after each backend has reported (≤ 1 s idle).
    const role = b.rounds % 2 === 0 ? 'user' : 'admin';
    await reads(a).catch(() => reads(a));
    const syncsBefore = await walSyncs();
    const { commits: countedCommits } = await countCommits(() => roles(a, role));
    const fsyncs = (await walSyncs()) - syncsBefore;
    await checkInDatabase(role);
    b.log(`  one more burst, untimed: ${countedCommits} commits, ${fsyncs} WAL fsyncs`);
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
        `${n} keep-alive connections to each daemon opened and warmed before the clock (${openedDuring} opened during the timed bursts); each burst sends one request per connection at once; per round the ratio of the burst's wall time to that of the same number of reads on the same connections (alternately before and after it), the median of the rounds' ratios. ` +
        `PostgreSQL with its default durability (fsync, synchronous_commit on); every acknowledged change checked in PostgreSQL afterwards. ` +
        `Cluster writes ${fmt.list(
          cluster.map((c) => c.wallMs),
          fmt.ms,
        )}, reads ${fmt.list(clusterReads, fmt.ms)}; per burst ${cluster.map((c) => c.commits).join(', ')} write transactions (the daemon's NOTIFYs); ` +
        `one more burst, untimed: ${countedCommits} write transactions and ${fsyncs} WAL fsyncs (pg_stat_wal.wal_sync, every process's), against ${n} for a commit per request. Embedded writes ${fmt.list(embedded, fmt.ms)}, reads ${fmt.list(embeddedReads, fmt.ms)}.`,
    };
  } finally {
    for (const c of conns.values()) c.close();
    await client.end();
  }
}
