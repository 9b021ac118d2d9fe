/**
 * Routing (issue 11): the daemon routed by @koa/router built from the endpoint table
 * (bench/lib/koa-router-routing.ts) against today's table dispatch (one Map get), on
 * `GET /api/user`. Each round starts a fresh daemon of each variant, one after the other,
 * on the same copy of the users (db.json and their directories; the running daemon holds
 * the dataset's lock), waits until it is at rest (index ready, watcher up), warms it up and
 * loads it; the order alternates from round to round. Target: @koa/router costs under 5 %
 * of the table's throughput — met means switch to it, missed means keep the table.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DbData } from '../../daemon/store/schema.js';
import { startChild, type Child } from '../lib/child.js';
import type { Bench } from '../lib/context.js';
import { load, LOADGEN, type LoadResult } from '../lib/load.js';
import { cpuMsOf } from '../lib/machine.js';
import { api, pollUntil, request, ROOT } from '../lib/nimbus.js';
import { fmt, verdict, type Row } from '../lib/report.js';
import { median } from '../lib/stats.js';

const CONNECTIONS = 50;
const us = (v: number) => `${v.toFixed(0)} µs`;
/** @koa/router ÷ table throughput at or above this: the router costs under 5 %. */
const TARGET = 0.95;
const VARIANTS = ['table', 'koa-router'] as const;
type Variant = (typeof VARIANTS)[number];

/** A load run and the daemon's CPU time per answered request during it (less sensitive to other load on the machine than req/s). */
type Measured = LoadResult & { cpuUsPerRequest: number };

interface Dash {
  index: { state: string; watcher: string };
}

/** A data directory of its own holding the dataset's users: db.json and one empty directory per user. */
function copyUsers(b: Bench): string {
  const dataDir = path.join(b.root, 'routing-data');
  rmSync(dataDir, { recursive: true, force: true });
  const storage = path.join(dataDir, 'storage');
  mkdirSync(storage, { recursive: true });
  const db = readFileSync(path.join(b.ds.dataDir, 'db.json'), 'utf8');
  writeFileSync(path.join(dataDir, 'db.json'), db);
  for (const u of (JSON.parse(db) as DbData).users) mkdirSync(path.join(storage, u.username));
  return dataDir;
}

/** A fresh daemon with this routing, at rest: index ready and the watcher up. */
async function startVariant(variant: Variant, dataDir: string, key: string): Promise<{ child: Child; url: string }> {
  const { child, match } = await startChild(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'bench', 'lib', 'routing-daemon.ts'), variant, dataDir],
    /listening on (http:\/\/\S+)/,
    { cwd: ROOT, env: { ...process.env, NODE_ENV: 'production', NIMBUS_API_KEY: key, NIMBUS_KEYCHAIN: 'off' } },
  );
  const url = match[1];
  try {
    await pollUntil(
      async () => {
        const d = await api<Dash>({ url, key }, 'GET', '/api/dash');
        return d.index.state === 'ready' && d.index.watcher !== 'starting' ? true : undefined;
      },
      240_000,
      50,
    );
    return { child, url };
  } catch (err) {
    await child.stop();
    throw err;
  }
}

export async function routerRow(b: Bench): Promise<Row> {
  const username = b.ds.roleUsers.at(-1)!;
  const route = `/api/user?username=${username}`;
  const headers = { 'API-Key': b.nimbus.key };
  const dataDir = copyUsers(b);
  const results: Record<Variant, Measured[]> = { table: [], 'koa-router': [] };
  // Each variant's answer with its own address taken out (badge URLs name it): they must be the same bytes.
  const bodies: Partial<Record<Variant, string>> = {};
  const run = async (variant: Variant): Promise<Measured> => {
    const { child, url } = await startVariant(variant, dataDir, b.nimbus.key);
    try {
      const reply = await request('GET', `${url}${route}`, b.nimbus.key);
      if (reply.status !== 200)
        throw new Error(`${variant}: GET ${route} answered ${reply.status}: ${reply.body.toString().slice(0, 300)}`);
      bodies[variant] = reply.body.toString().replaceAll(url, '');
      // Warm up (JIT, connection pools) before anything counts.
      await load({ url: `${url}${route}`, connections: CONNECTIONS, seconds: 2, headers });
      const cpuBefore = cpuMsOf(child.pid);
      const r = await load({ url: `${url}${route}`, connections: CONNECTIONS, seconds: b.seconds, headers });
      const cpuMs = cpuMsOf(child.pid) - cpuBefore;
      if (r.errors + r.non2xx > 0) throw new Error(`${variant}: errors or non-2xx answers (${r.errors}/${r.non2xx})`);
      return { ...r, cpuUsPerRequest: (cpuMs * 1000) / (r.reqPerSec * b.seconds) };
    } finally {
      await child.stop();
    }
  };
  try {
    for (let round = 0; round < b.rounds; round++) {
      const order = round % 2 === 0 ? VARIANTS : ([...VARIANTS].reverse() as Variant[]);
      for (const variant of order) results[variant].push(await run(variant));
      if (bodies.table !== bodies['koa-router'])
        throw new Error(`the two routings answered differently:\n${bodies.table}\n${bodies['koa-router']}`);
      const [t, k] = [results.table.at(-1)!, results['koa-router'].at(-1)!];
      b.log(
        `  routing round ${round + 1} (${order.join(' → ')}): table ${fmt.rps(t.reqPerSec)} p99 ${fmt.ms(t.p99)} ${us(t.cpuUsPerRequest)} CPU/req | @koa/router ${fmt.rps(k.reqPerSec)} p99 ${fmt.ms(k.p99)} ${us(k.cpuUsPerRequest)} CPU/req (${fmt.ratio(k.reqPerSec / t.reqPerSec)} req/s)`,
      );
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  const rps = (v: Variant) => median(results[v].map((x) => x.reqPerSec));
  const p99 = (v: Variant) => median(results[v].map((x) => x.p99));
  const cpu = (v: Variant) => median(results[v].map((x) => x.cpuUsPerRequest));
  const ratio = rps('koa-router') / rps('table');
  const perRound = (v: Variant) =>
    `${fmt.list(
      results[v].map((x) => x.reqPerSec),
      fmt.rps,
    )} (p99 ${fmt.list(
      results[v].map((x) => x.p99),
      fmt.ms,
    )}; daemon CPU per request ${fmt.list(
      results[v].map((x) => x.cpuUsPerRequest),
      us,
    )})`;
  return {
    scenario: 'Routing: @koa/router ÷ the endpoint table, GET /api/user',
    nimbus: `@koa/router ${fmt.rps(rps('koa-router'))}, p99 ${fmt.ms(p99('koa-router'))}`,
    baseline: `table ${fmt.rps(rps('table'))}, p99 ${fmt.ms(p99('table'))}`,
    ratio: `${fmt.ratio(ratio)} req/s; p99 ${fmt.ratio(p99('koa-router') / p99('table'))}`,
    target: `≥ ${TARGET} × req/s (router costs < 5 %)`,
    verdict: verdict(ratio >= TARGET),
    detail:
      `the daemon with @koa/router built from the endpoint table (one \`router.get\`/\`router.post\` per row, calling the same dispatch; bench/lib/koa-router-routing.ts) ` +
      `against today's routing (one Map get); met would mean switch to @koa/router, missed means keep the table. ` +
      `\`GET ${route}\`, ${CONNECTIONS} connections, ${LOADGEN}, ${b.seconds} s per run after a 2 s warm-up; ` +
      `a fresh daemon per variant per round (bench/lib/routing-daemon.ts, from source through tsx), on one copy of the ${b.ds.spec.users.toLocaleString('en-US')} users, ` +
      `order alternating (table first in odd rounds); both answered the same ${bodies.table?.length ?? 0}-byte body. ` +
      `@koa/router ${perRound('koa-router')}; table ${perRound('table')}; per-round ratios ${fmt.list(
        results.table.map((t, i) => results['koa-router'][i].reqPerSec / t.reqPerSec),
        fmt.ratio,
      )}. Median daemon CPU per request (user + system time of the process during the run ÷ requests): @koa/router ${us(cpu('koa-router'))}, table ${us(cpu('table'))} (${fmt.ratio(cpu('koa-router') / cpu('table'))}).`,
  };
}
