/**
 * Issue 25's subtree move on PostgreSQL + S3 (`BENCH_ONLY=tree-cluster`): a folder holding a
 * tenth of BENCH_TREE_FILES files moved to another folder and back, against the same moves of
 * an empty folder, and the rows each move wrote (PostgreSQL's own count: rows whose xmin is the
 * move's transaction or later). Until the cluster backend holds nested folders it refuses to
 * create one, and the row says "n/a (cluster tree not built)" without failing the bench.
 *
 * The subtree is made the way the cluster dataset is (bench/lib/cluster-dataset.ts): folders
 * through the API, then one file uploaded through it and its row cloned into PostgreSQL for
 * every other file (rows without objects: a move reads no object, and Swift stores 37–80
 * objects a second here), then a fresh daemon reads the rows.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Bench } from '../lib/context.js';
import { startBenchEngines, type BenchEngines } from '../lib/engines.js';
import { api, pollUntil, request, type NimbusProcess } from '../lib/nimbus.js';
import { fmt, notMeasured, verdict, type Row } from '../lib/report.js';
import { median } from '../lib/stats.js';
import { breadthFirst, EMPTY, fileName, MOVED, PARK_A, PARK_B, TREE_USER, treeSpecFor } from '../lib/tree-layout.js';
import { startClusterDaemon } from './cluster.js';

const FILES = Number(process.env.BENCH_TREE_FILES ?? 1_000_000);
/** Folders made through the API, one request each: fewer than the embedded subtree's, the same files. */
const MAX_FOLDERS = 1000;
const ROW_BATCH = 5000;
const MOVE_FACTOR = 2;
const TITLE = 'Tree: move a subtree, PostgreSQL + S3';

export async function treeClusterRows(b: Bench): Promise<Row[]> {
  let engines: BenchEngines;
  try {
    engines = await startBenchEngines();
  } catch (err) {
    return [notMeasured(TITLE, '—', `the engines did not start (${(err as Error).message.split('\n')[0].slice(0, 200)})`)];
  }
  const daemons: NimbusProcess[] = [];
  const start = async (name: string) => {
    const d = await startClusterDaemon(b, engines, `tree-${name}`, 0);
    daemons.push(d);
    return d;
  };
  try {
    const first = await start('load');
    await api(first, 'POST', '/api/user/create', {
      username: TREE_USER,
      email: 'tree@example.org',
      password: randomBytes(12).toString('hex'),
    });
    const probe = await request('POST', `${first.url}/api/folders/create?username=${TREE_USER}&folder=${MOVED}&parents=true`, first.key);
    if (probe.status !== 201) {
      const why = `the cluster backend answered ${probe.status} to a nested folders.create: ${probe.body.toString().slice(0, 160)}`;
      b.log(`  n/a (cluster tree not built): ${why}`);
      return [{ ...notMeasured(TITLE, '—', why), nimbus: 'n/a (cluster tree not built)' }];
    }
    const spec = treeSpecFor(FILES);
    const folders = breadthFirst(MOVED, Math.min(spec.movedFolders, MAX_FOLDERS), 10);
    const t = performance.now();
    for (const f of [PARK_B, EMPTY, ...folders.slice(1)])
      await api(first, 'POST', '/api/folders/create', { username: TREE_USER, folder: f });
    await cloneFiles(first, engines.databaseUrl, spec.movedFiles);
    await first.child.stop();
    b.log(`  ${folders.length} folders and ${spec.movedFiles} file rows in ${fmt.ms(performance.now() - t)}`);
    const d = await start('move');
    await pollUntil(
      async () => ((await api<{ index: { state: string } }>(d, 'GET', '/api/dash')).index.state === 'ready' ? true : undefined),
      600_000,
      50,
    );
    const loaded = (
      await api<{ folders: { name: string; fileCount: number }[] }>(d, 'GET', '/api/folders', { username: TREE_USER, folder: PARK_A })
    ).folders;
    const count = loaded.find((f) => f.name === 'moved')?.fileCount;
    if (count !== spec.movedFiles) throw new Error(`the cluster daemon counts ${count} files in ${MOVED}, not ${spec.movedFiles}`);
    return [await moveRow(b, d, engines.databaseUrl, spec.movedFiles, folders.length)];
  } catch (err) {
    b.log(`  failed: ${(err as Error).stack ?? String(err)}`);
    return [notMeasured(TITLE, '—', `the row failed: ${(err as Error).message.slice(0, 300)}`)];
  } finally {
    for (const d of daemons) await d.child.stop();
    engines.close();
  }
}

/** One file uploaded into each of the subtree's first folders; its row cloned until the subtree holds `files`, spread over those folders. */
async function cloneFiles(n: NimbusProcess, databaseUrl: string, files: number): Promise<void> {
  const seed = `seed-${randomBytes(4).toString('hex')}.txt`;
  const reply = await fetch(`${n.url}/api/files/upload?username=${TREE_USER}&folder=${encodeURIComponent(MOVED)}&file=${seed}`, {
    method: 'POST',
    headers: { 'API-Key': n.key },
    body: 'a few bytes',
  });
  if (reply.status !== 201) throw new Error(`the seed upload answered ${reply.status}: ${await reply.text()}`);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const row = (await client.query<{ data: Record<string, unknown> }>(`SELECT data FROM files WHERE data->>'name' = $1`, [seed])).rows[0]
      ?.data;
    if (!row) throw new Error(`no row in "files" names ${seed}: the schema is not the one this row knows`);
    const ids = (
      await client.query<{ key: string }>(
        `SELECT key FROM folders WHERE data->>'username' = $1 AND data->>'name' NOT IN ('park-a', 'park-b', 'empty')`,
        [TREE_USER],
      )
    ).rows.map((r) => r.key);
    await client.query('BEGIN');
    for (let i = 1; i < files; i += ROW_BATCH) {
      const batch = [];
      for (let j = i; j < Math.min(files, i + ROW_BATCH); j++) {
        const id = randomBytes(16).toString('hex');
        batch.push({ key: id, data: { ...row, id, name: fileName(j), folderId: ids[j % ids.length] } });
      }
      await client.query(
        `INSERT INTO files (key, data) SELECT r.key, r.data FROM jsonb_to_recordset($1::jsonb) AS r(key text, data jsonb)`,
        [JSON.stringify(batch)],
      );
    }
    await client.query('COMMIT');
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
}

/** Rows of every table inserted or updated since `xid` (the move's transaction and any after it). */
async function rowsWrittenSince(client: pg.Client, xid: bigint): Promise<number> {
  const tables = (await client.query<{ relname: string }>('SELECT relname FROM pg_stat_user_tables')).rows.map((r) => r.relname);
  let total = 0;
  for (const t of tables) {
    const r = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${t}" WHERE xmin::text::bigint >= $1`, [
      String(xid % 2n ** 32n),
    ]);
    total += Number(r.rows[0].n);
  }
  return total;
}

async function moveRow(b: Bench, n: NimbusProcess, databaseUrl: string, files: number, folders: number): Promise<Row> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const move = async (folder: string, to: string) => {
      const xid = BigInt((await client.query<{ x: string }>('SELECT txid_current() AS x')).rows[0].x);
      const t = performance.now();
      await api(n, 'POST', '/api/folders/move', { username: TREE_USER, folder, to });
      const ms = performance.now() - t;
      return { ms, rows: await rowsWrittenSince(client, xid) };
    };
    const big: { ms: number; rows: number }[] = [];
    const empty: { ms: number; rows: number }[] = [];
    for (let round = -1; round < b.rounds; round++) {
      const r = [
        await move(MOVED, PARK_B),
        await move(`${PARK_B}/moved`, PARK_A),
        await move(EMPTY, PARK_B),
        await move(`${PARK_B}/empty`, PARK_A),
      ];
      if (round >= 0) {
        big.push(r[0], r[1]);
        empty.push(r[2], r[3]);
      }
      b.log(
        `  cluster move round ${round + 1}: subtree ${r
          .slice(0, 2)
          .map((x) => `${fmt.ms(x.ms)} (${x.rows} rows)`)
          .join(', ')}; empty ${r
          .slice(2)
          .map((x) => `${fmt.ms(x.ms)} (${x.rows} rows)`)
          .join(', ')}`,
      );
    }
    const ratio = median(big.map((x) => x.ms)) / median(empty.map((x) => x.ms));
    const rows = (s: { rows: number }[]) => [...new Set(s.map((x) => x.rows))].join('/');
    return {
      scenario: `Tree: move a subtree of ${files.toLocaleString('en-US')} files, PostgreSQL + S3`,
      nimbus: `median ${fmt.ms(median(big.map((x) => x.ms)))}, ${rows(big)} rows written`,
      baseline: `median ${fmt.ms(median(empty.map((x) => x.ms)))}, ${rows(empty)} rows (an empty folder)`,
      ratio: fmt.ratio(ratio),
      target: `≤ ${MOVE_FACTOR}×, rows the same (O(1))`,
      verdict: verdict(ratio <= MOVE_FACTOR && rows(big) === rows(empty)),
      detail:
        `\`POST /api/folders/move?username=${TREE_USER}&folder=${MOVED}&to=${PARK_B}\` and back on a cluster daemon, ${b.rounds} rounds after a warm-up, request to the 201 (after COMMIT); ` +
        `${files.toLocaleString('en-US')} file rows (one uploaded, the rest its row cloned, no objects) in ${folders} folders. Subtree ${fmt.list(
          big.map((x) => x.ms),
          fmt.ms,
        )}; \`${EMPTY}\` ${fmt.list(
          empty.map((x) => x.ms),
          fmt.ms,
        )}. Rows written: every table's rows with an xmin at or after a transaction id taken just before the move.`,
    };
  } finally {
    await client.end();
  }
}
